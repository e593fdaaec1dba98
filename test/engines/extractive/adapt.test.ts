/**
 * The reranker adapted per mind from its own question → answer pairs (src/engines/extractive/adapt.ts),
 * on Obama's three 2012 debate excerpts (test/fixtures).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adaptToMind, MAX_ADAPT_PAIRS, MIN_ADAPT_PAIRS, mindPairs, pairGroup } from '../../../src/engines/extractive/adapt.ts';
import { answer } from '../../../src/engines/extractive/index.ts';
import { rerankEmbedder, shippedModel } from '../../../src/engines/extractive/rerank/index.ts';
import { obama2012 } from './real.ts';

test("a mind's pairs are its answers to questions, each reply once, and none is asked against its own conversation", async () => {
  const mind = await obama2012();
  const pairs = mindPairs(mind.memory);
  assert.ok(pairs.length >= MIN_ADAPT_PAIRS, `${pairs.length} pairs`);
  assert.ok(pairs.length <= MAX_ADAPT_PAIRS);
  for (const p of pairs) {
    assert.match(p.question, /\?/, 'a pair is an answer to a question');
    const turn = mind.memory.find((t) => t.context === p.question && p.answer.startsWith(t.text));
    assert.ok(turn, 'the answer is the turn that answered the question');
    assert.equal(turn.snapshotId, p.snapshotId);
  }
  const embed = await rerankEmbedder();
  const group = pairGroup(pairs[0]!, mind.memory, mind.name, embed, shippedModel());
  assert.ok(group && group.x.length >= 2);
  assert.ok(group.y.every((y) => y >= 0 && y <= 1));
  // Leave one conversation out: with only the pair's own conversation in memory there is nothing to ask.
  const own = mind.memory.filter((t) => t.snapshotId === pairs[0]!.snapshotId);
  assert.equal(pairGroup(pairs[0]!, own, mind.name, embed, shippedModel()), null);
});

test('adapting moves the shipped weights towards the mind, keeps its features and standardization, and the engine answers with it', async () => {
  const mind = await obama2012();
  const embed = await rerankEmbedder();
  const shipped = shippedModel();
  let pauses = 0;
  const adapted = await adaptToMind(shipped, mind.memory, { mindName: mind.name, embed, pause: async () => void pauses++ });
  assert.ok(adapted, 'three debates give enough pairs');
  assert.ok(pauses >= MIN_ADAPT_PAIRS, 'it yields between pairs');
  assert.deepEqual(adapted.features, shipped.features);
  assert.deepEqual(adapted.mean, shipped.mean);
  assert.notDeepEqual(adapted.weights, shipped.weights);
  // Held near the shipped model: no weight moves by more than the largest shipped weight.
  const largest = Math.max(...shipped.weights.map(Math.abs));
  assert.ok(adapted.weights.every((w, i) => Math.abs(w - shipped.weights[i]!) < largest));
  const result = answer({ mindName: mind.name, message: 'What would you do about Medicare?', history: [], memory: mind.memory, persona: mind.persona, otherSpeakers: mind.otherSpeakers }, { embed, model: adapted });
  assert.ok(result.evidence.length >= 1 && result.evidence.length <= 2);
  for (const e of result.evidence) assert.ok(result.text.includes(e.quote.replace(/\n/g, ' ')), 'the answer is made of its evidence');
});

test('a mind with one conversation has no pair to ask against another: it keeps the shipped model', async () => {
  const mind = await obama2012();
  const one = mind.memory.filter((t) => t.snapshotId === mind.memory[0]!.snapshotId);
  assert.equal(await adaptToMind(shippedModel(), one, { mindName: mind.name, embed: await rerankEmbedder() }), null);
});
