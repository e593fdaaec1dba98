import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { decodeGloveFile, encodeGloveFile } from '../../../src/lib/embeddings/glove-file.ts';
import { GLOVE_MODEL_URL, GloveSifEmbedder, loadGloveModel } from '../../../src/lib/embeddings/glove-sif.ts';
import { words } from '../../../src/lib/embeddings/tokenize.ts';
import { dot } from '../../../src/lib/embeddings/vector.ts';

const embedder = new GloveSifEmbedder();
const sim = async (a: string, b: string) => {
  const [x, y] = await embedder.embed([a, b]);
  return dot(x!, y!);
};

describe('GloVe-SIF embedder (offline default)', () => {
  test('a paraphrase is closer than an unrelated sentence that shares no topic', async () => {
    const cases: [string, string, string][] = [
      ['The cat sat on the carpet.', 'A kitten was lying on the rug.', 'Interest rates will rise next quarter.'],
      ['What is your morning routine?', 'I wake up, meditate for ten minutes and get sunlight in my eyes.', 'The tax plan cuts rates for the middle class.'],
      ['Should a startup launch a freemium plan or a free trial?', 'A free plan works when the product spreads by itself; a trial when sales matter.', 'I went on vacation for ten days in Sweden.'],
      ['How do you feel about nuclear energy?', 'Nuclear power plants are a safe source of electricity.', 'My favourite food is pasta with tomatoes.'],
    ];
    for (const [q, near, far] of cases) {
      const a = await sim(q, near);
      const b = await sim(q, far);
      assert.ok(a > b + 0.2, `"${q}": ${a.toFixed(3)} to the paraphrase, ${b.toFixed(3)} to the unrelated sentence`);
    }
  });

  test('vectors are unit length, deterministic, and independent of what is embedded beside them', async () => {
    const [a] = await embedder.embed(['Spider monkeys live in the rainforest canopy.']);
    const [, b] = await embedder.embed(['Something else entirely about taxes.', 'Spider monkeys live in the rainforest canopy.']);
    assert.equal(a!.length, 100);
    assert.ok(Math.abs(dot(a!, a!) - 1) < 1e-5);
    assert.deepEqual(Array.from(a!), Array.from(b!));
  });

  test('a text with no known word embeds to the zero vector', async () => {
    const [empty, unknown] = await embedder.embed(['', 'zzqxv qqwwzz']);
    assert.ok(empty!.every((x) => x === 0));
    assert.ok(unknown!.every((x) => x === 0));
  });

  test('word vectors keep GloVe’s neighbourhoods after quantization', async () => {
    const model = await loadGloveModel();
    const w = (a: string, b: string) => dot(model.wordVector(a)!, model.wordVector(b)!);
    assert.ok(w('king', 'queen') > 0.7);
    assert.ok(w('money', 'cash') > 0.8);
    assert.ok(w('cat', 'democracy') < 0.2);
    assert.equal(model.wordVector('zzqxv'), null);
  });

  test('the vector file decodes and encodes back to the same bytes', async () => {
    const bytes = await readFile(GLOVE_MODEL_URL);
    const decoded = decodeGloveFile(bytes);
    assert.equal(decoded.header.dimensions, 100);
    assert.equal(decoded.words.length, decoded.header.count);
    assert.ok(decoded.header.source.includes('PDDL'));
    assert.equal(Buffer.compare(encodeGloveFile(decoded), bytes), 0);
    assert.throws(() => decodeGloveFile(Buffer.from('not a vector file')), /not a Mindprint GloVe vector file/);
  });
});

describe('tokenizer', () => {
  test('contractions expand as the vocabulary spells them; compounds split only when unknown', () => {
    const known = (w: string) => w === 'well-known';
    assert.deepEqual(words("I don't think we're well-known; it’s a long-term plan", known), ['i', 'do', 'not', 'think', 'we', 'are', 'well-known', 'it', 'a', 'long', 'term', 'plan']);
    assert.deepEqual(words("can't won't", known), ['can', 'not', 'will', 'not']);
  });
});
