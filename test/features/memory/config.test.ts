/** The embedder and vector-search settings, read by loadConfig with the rest. */
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { GloveSifEmbedder, OpenAiCompatibleEmbedder, createEmbedder } from '../../../src/lib/embeddings/index.ts';

// Never created (loadConfig only reads settings), but unique per run all the same, like every path of the tests.
const BASE = { MINDPRINT_DATA_DIR: path.join(os.tmpdir(), `mp-config-test-${process.pid}-${Date.now().toString(36)}`) };

test('offline embedder and automatic vector search by default', () => {
  const c = loadConfig(BASE);
  assert.equal(c.embeddings, null);
  assert.equal(c.vectorSearch, 'auto');
  assert.ok(createEmbedder(c.embeddings) instanceof GloveSifEmbedder);
});

test('MINDPRINT_EMBEDDINGS_BASE_URL/MODEL/API_KEY select an OpenAI-compatible provider', () => {
  const c = loadConfig({ ...BASE, MINDPRINT_EMBEDDINGS_BASE_URL: 'http://localhost:11434/v1/', MINDPRINT_EMBEDDINGS_MODEL: 'nomic-embed-text', MINDPRINT_EMBEDDINGS_API_KEY: 'sk-x', MINDPRINT_VECTOR_SEARCH: 'process' });
  assert.equal(c.embeddings?.baseUrl, 'http://localhost:11434/v1');
  assert.equal(c.embeddings?.model, 'nomic-embed-text');
  assert.equal(c.embeddings?.apiKey, 'sk-x');
  assert.equal(c.vectorSearch, 'process');
  const e = createEmbedder(c.embeddings);
  assert.ok(e instanceof OpenAiCompatibleEmbedder);
  assert.equal(e.id, 'openai-compatible:nomic-embed-text');
});

test('half a provider configuration, or a bad search mode, stops start-up naming the variable (never the key)', () => {
  const refused = (env: Record<string, string>, name: RegExp) =>
    assert.throws(() => loadConfig({ ...BASE, ...env }), (err: unknown) => err instanceof ConfigError && name.test(err.message) && !/sk-secret/.test(err.message));
  refused({ MINDPRINT_EMBEDDINGS_BASE_URL: 'http://localhost:11434/v1' }, /MINDPRINT_EMBEDDINGS_MODEL/);
  refused({ MINDPRINT_EMBEDDINGS_MODEL: 'm' }, /MINDPRINT_EMBEDDINGS_BASE_URL/);
  refused({ MINDPRINT_EMBEDDINGS_MODEL: 'm', MINDPRINT_EMBEDDINGS_BASE_URL: 'ftp://x' }, /MINDPRINT_EMBEDDINGS_BASE_URL/);
  refused({ MINDPRINT_EMBEDDINGS_MODEL: 'm', MINDPRINT_EMBEDDINGS_BASE_URL: 'http://x/v1', MINDPRINT_EMBEDDINGS_API_KEY: 'sk-secret with space' }, /MINDPRINT_EMBEDDINGS_API_KEY/);
  refused({ MINDPRINT_VECTOR_SEARCH: 'gpu' }, /MINDPRINT_VECTOR_SEARCH/);
  assert.equal(loadConfig({ ...BASE, MINDPRINT_VECTOR_SEARCH: 'pgvector' }).vectorSearch, 'pgvector');
  refused({ MINDPRINT_LEXICAL_SEARCH: 'elastic' }, /MINDPRINT_LEXICAL_SEARCH/);
  assert.equal(loadConfig(BASE).lexicalSearch, 'auto');
  assert.equal(loadConfig({ ...BASE, MINDPRINT_LEXICAL_SEARCH: 'Database' }).lexicalSearch, 'database');
});
