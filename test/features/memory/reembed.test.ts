/**
 * The embedder is a choice of configuration: MINDPRINT_EMBEDDINGS_BASE_URL/MODEL/API_KEY select an
 * OpenAI-compatible endpoint (here the protocol-faithful fake of test/fakes), and a service started
 * with another embedder than the one the memory was embedded with re-embeds it in the background.
 * A provider that refuses (401) fails the snapshot's index, visibly, and simulations still answer
 * from full text.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { embedSnapshot, loadMindScope, recall } from '../../../src/features/memory/index.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../fakes/openai-compatible-server.ts';
import { readDebate, seedSnapshot } from '../simulations/seed.ts';
import { rows } from '../snapshots/support.ts';
import { onPostgres, startTestServer, type TestServer } from '../../support/server.ts';
import { understand } from '../../../src/lib/language/understand.ts';

const MIND = 'Barack H Obama';
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
const job = { id: 'test', retryCount: 0, retryLimit: 0, isLastAttempt: true };

let fake: FakeOpenAiServer;
let refuse = false;
let first: TestServer; // default (offline) embedder, no workers: it only seeds and embeds by hand
let second: TestServer; // the provider configured
let dataDir: string;
let mindId: string;
let organizationId: string;

async function waitForIndex(s: TestServer, until: (b: any) => boolean, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api('GET', `/minds/${mindId}/semantic-index`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (until(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`semantic index: ${JSON.stringify(res.body)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  fake = await startFakeOpenAiServer({ embeddingModels: ['fake-embedding'], embeddingDimensions: 32, embeddingError: () => (refuse ? { status: 401, message: 'bad key sk-secret' } : undefined) });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-reembed-'));
  const common = { MINDPRINT_JOB_MAINTENANCE_SECONDS: '1', MINDPRINT_BOOTSTRAP_KEY: 'mp_reembed_test_key_0123456789abcdefghijklmnop', ...(onPostgres() ? {} : { MINDPRINT_DATA_DIR: dataDir }) };
  first = await startTestServer({ ...common, MINDPRINT_IN_PROCESS_WORKER: 'false' }, { persistent: !onPostgres() });
  const mind = (await first.api('POST', '/minds', { name: MIND })).body.mind;
  mindId = mind.id;
  organizationId = mind.organizationId;
  const { snapshotId } = await seedSnapshot(first.ctx.db, { organizationId, mindId, mind: MIND, turns: readDebate('2012-10-03'), mindsetDate: new Date('2012-10-03'), analyse: false });
  await embedSnapshot(first.ctx.memory, { snapshotId }, job, silent);
  const state = await waitForIndex(first, (b) => b.status !== 'indexing');
  assert.equal(state.status, 'ready');
  assert.equal(state.embedder.id, 'glove-6b-100d-sif@1');
  const env = { ...common, MINDPRINT_EMBEDDINGS_BASE_URL: fake.baseUrl, MINDPRINT_EMBEDDINGS_MODEL: 'fake-embedding', MINDPRINT_EMBEDDINGS_API_KEY: fake.apiKey ?? '' };
  if (onPostgres()) {
    second = await startTestServer(env, { replicaOf: first });
  } else {
    await first.close();
    second = await startTestServer(env, { persistent: true });
  }
});
after(async () => {
  await second?.close();
  if (onPostgres()) await first?.close();
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('a service with another embedder re-embeds the memory in the background, through the provider', async () => {
  const state = await waitForIndex(second, (b) => b.status === 'ready' && b.embedder.id === 'openai-compatible:fake-embedding');
  assert.equal(state.embedder.offline, false);
  assert.equal(state.turns.embedded, state.turns.total);
  assert.ok(fake.embeddingRequests().length > 0);
  const [r] = await rows(second, sql`select count(*)::int as n, count(*) filter (where embedder = 'openai-compatible:fake-embedding' and dimensions = 32)::int as fresh
    from turn_embeddings where mind_id = ${mindId}`);
  assert.equal(r.n, state.turns.total);
  assert.equal(r.fresh, r.n, 'every vector is of the new space');
  // Retrieval now searches the provider's space.
  const memory = second.ctx.memory;
  const { scope } = (await loadMindScope(second.ctx.db, organizationId, mindId, null, memory.embedder.id))!;
  const got = await recall(memory, scope, 'How would you create jobs?', [], understand('How would you create jobs?', []));
  assert.equal(got.semanticSkipped, null);
  assert.equal(got.messageEmbedding?.length, 32);
  assert.ok(got.memory.some((t) => t.retrieval?.semanticRank === 1 && typeof t.retrieval.semantic === 'number'));
});

test('a provider that refuses fails the index visibly; simulations answer from full text meanwhile', async () => {
  refuse = true;
  try {
    await seedSnapshot(second.ctx.db, { organizationId, mindId, mind: MIND, turns: readDebate('2012-10-16'), mindsetDate: new Date('2012-10-16'), analyse: false });
    const state = await waitForIndex(second, (b) => b.status === 'failed');
    assert.equal(state.snapshots.failed, 1);
    assert.equal(state.snapshots.embedded, 1);
    assert.equal(state.errors.length, 1);
    assert.match(state.errors[0].message, /401.*MINDPRINT_EMBEDDINGS_API_KEY/);
    assert.doesNotMatch(JSON.stringify(state), /sk-secret/, 'the provider’s message (which may echo the key) is not shown');
    // Each snapshot says where its own index stands, on the list and on its status.
    const listed = (await second.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots as { id: string; semanticIndex: { status: string; embedder: string | null; error: string | null } }[];
    const failed = listed.find((x) => x.id === state.errors[0].snapshotId)!;
    assert.equal(failed.semanticIndex.status, 'failed');
    assert.match(failed.semanticIndex.error!, /401/);
    assert.equal(failed.semanticIndex.embedder, null);
    const status = (await second.api('GET', `/minds/${mindId}/snapshots/${failed.id}/status`)).body;
    assert.deepEqual(status.semanticIndex, failed.semanticIndex);
    const ready = listed.filter((x) => x.id !== failed.id);
    assert.ok(ready.length > 0 && ready.every((x) => x.semanticIndex.status === 'ready' && x.semanticIndex.embedder === 'openai-compatible:fake-embedding'));
    const res = await second.api('POST', '/simulate', { mindId, scenario: { message: 'How would you create jobs?' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  } finally {
    refuse = false;
  }
});
