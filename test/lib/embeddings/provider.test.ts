import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { embeddingsConfigFromEnv, type EmbeddingsConfig } from '../../../src/lib/embeddings/config.ts';
import { createEmbedder, EmbeddingError, GloveSifEmbedder, OpenAiCompatibleEmbedder } from '../../../src/lib/embeddings/index.ts';
import { dot } from '../../../src/lib/embeddings/vector.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../fakes/openai-compatible-server.ts';

let fake: FakeOpenAiServer;
let failNext: { status: number } | null = null;

before(async () => {
  fake = await startFakeOpenAiServer({
    embeddingModels: ['fake-embedding'],
    embeddingDimensions: 32,
    embeddingError: () => {
      const e = failNext;
      failNext = null;
      return e ?? undefined;
    },
  });
});
after(() => fake.close());

const config = (over: Partial<EmbeddingsConfig> = {}): EmbeddingsConfig => ({
  baseUrl: fake.baseUrl,
  model: 'fake-embedding',
  apiKey: fake.apiKey,
  dimensions: null,
  batchSize: 64,
  timeoutMs: 10_000,
  maxRetries: 0,
  ...over,
});

describe('OpenAI-compatible embedder', () => {
  test('sends batches to /v1/embeddings and returns unit vectors in order', async () => {
    const before = fake.embeddingRequests().length;
    const embedder = new OpenAiCompatibleEmbedder(config({ batchSize: 2 }));
    const texts = ['taxes and the middle class', 'a spider monkey', '', 'taxes for the middle class', 'rockets'];
    const vectors = await embedder.embed(texts);
    const sent = fake.embeddingRequests().slice(before);
    assert.equal(sent.length, 3, 'five texts in batches of two');
    assert.deepEqual(sent.flatMap((r) => r.body.input), ['taxes and the middle class', 'a spider monkey', 'taxes for the middle class', 'rockets'], 'the empty text is not sent');
    assert.equal(sent[0]!.headers.authorization, `Bearer ${fake.apiKey}`);
    assert.equal(vectors.length, 5);
    assert.equal(embedder.dimensions, 32);
    assert.ok(vectors[2]!.every((x) => x === 0), 'the empty text has the zero vector');
    for (const i of [0, 1, 3, 4]) assert.ok(Math.abs(dot(vectors[i]!, vectors[i]!) - 1) < 1e-5);
    assert.ok(dot(vectors[0]!, vectors[3]!) > dot(vectors[0]!, vectors[1]!));
    assert.equal(embedder.id, 'openai-compatible:fake-embedding');
  });

  test('a requested dimension is sent and names another vector space', async () => {
    const embedder = new OpenAiCompatibleEmbedder(config({ dimensions: 16 }));
    const [v] = await embedder.embed(['hello there']);
    assert.equal(v!.length, 16);
    assert.equal(fake.embeddingRequests().at(-1)!.body.dimensions, 16);
    assert.equal(embedder.id, 'openai-compatible:fake-embedding/16');
  });

  test('a wrong key is a permanent error that names the variable, never the key', async () => {
    const embedder = new OpenAiCompatibleEmbedder(config({ apiKey: 'sk-wrong-secret-123' }));
    const err = await embedder.embed(['x']).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof EmbeddingError);
    assert.equal(err.transient, false);
    assert.match(err.message, /401.*MINDPRINT_EMBEDDINGS_API_KEY/);
    assert.doesNotMatch(err.message, /sk-wrong-secret-123/);
  });

  test('a server error or an unreachable endpoint is transient', async () => {
    failNext = { status: 503 };
    const err = await new OpenAiCompatibleEmbedder(config()).embed(['x']).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof EmbeddingError && err.transient, String(err));
    const gone = await new OpenAiCompatibleEmbedder(config({ baseUrl: 'http://127.0.0.1:9/v1' })).embed(['x']).then(() => null, (e: unknown) => e);
    assert.ok(gone instanceof EmbeddingError && gone.transient, String(gone));
  });

  test('an unknown model is a permanent error', async () => {
    const err = await new OpenAiCompatibleEmbedder(config({ model: 'nope' })).embed(['x']).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof EmbeddingError && !err.transient && /404/.test(err.message), String(err));
  });
});

describe('embeddings configuration', () => {
  test('no model means the offline default; a half configuration is refused by name', () => {
    assert.equal(embeddingsConfigFromEnv({}), null);
    assert.ok(createEmbedder(null) instanceof GloveSifEmbedder);
    assert.throws(() => embeddingsConfigFromEnv({ MINDPRINT_EMBEDDINGS_BASE_URL: 'http://x/v1' }), /MINDPRINT_EMBEDDINGS_MODEL must name a model/);
    assert.throws(() => embeddingsConfigFromEnv({ MINDPRINT_EMBEDDINGS_MODEL: 'm' }), /MINDPRINT_EMBEDDINGS_BASE_URL is required/);
    assert.throws(() => embeddingsConfigFromEnv({ MINDPRINT_EMBEDDINGS_MODEL: 'm', MINDPRINT_EMBEDDINGS_BASE_URL: 'ftp://x' }), /http or https/);
    assert.throws(() => embeddingsConfigFromEnv({ MINDPRINT_EMBEDDINGS_MODEL: 'm', MINDPRINT_EMBEDDINGS_BASE_URL: 'http://u:p@x/v1' }), /credentials/);
    assert.throws(() => embeddingsConfigFromEnv({ MINDPRINT_EMBEDDINGS_MODEL: 'm', MINDPRINT_EMBEDDINGS_BASE_URL: 'http://x/v1', MINDPRINT_EMBEDDINGS_DIMENSIONS: '3' }), /DIMENSIONS must be an integer from 8/);
    const c = embeddingsConfigFromEnv({ MINDPRINT_EMBEDDINGS_MODEL: 'nomic-embed-text', MINDPRINT_EMBEDDINGS_BASE_URL: 'http://localhost:11434/v1/', MINDPRINT_EMBEDDINGS_API_KEY: 'k' });
    assert.deepEqual(c, { baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text', apiKey: 'k', dimensions: null, batchSize: 64, timeoutMs: 60_000, maxRetries: 2 });
    assert.ok(createEmbedder(c) instanceof OpenAiCompatibleEmbedder);
  });
});
