/**
 * Two attempts of one snapshot job alive at once (pg-boss hands a job whose lease expired to a
 * second worker while the first is still running) store the snapshot exactly once, and a late
 * failure of one attempt does not undo the other's completed result. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { UnreadableTranscriptError } from '../../../src/lib/ingest/index.ts';
import type { JobContext } from '../../../src/platform/jobs/queue.ts';
import { jobLogger } from '../../../src/platform/jobs/log.ts';
import { processSnapshot } from '../../../src/features/snapshots/pipeline.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { rows, upload } from './support.ts';

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Host>What matters to you?\n\n00:00:04.000 --> 00:00:09.000\n<v Ada Lovelace>I care about careful work and I think machines can do more than arithmetic, and I am glad we tried it.\n';

const attempt = (n: number): JobContext => ({ id: `job-attempt-${n}`, retryCount: n - 1, retryLimit: 3, isLastAttempt: false });

/** Resolves for everyone once `n` callers have arrived. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === n) open();
    return opened;
  };
}

type Call = (...args: any[]) => Promise<any>;

/**
 * Runs `fn` while calls of `obj[method]` go through `wrap`, with the call's number (from 1) and
 * the real call to proceed with.
 */
async function intercepting<T>(obj: object, method: string, wrap: (call: number, proceed: () => Promise<unknown>) => Promise<unknown>, fn: () => Promise<T>): Promise<T> {
  const target = obj as Record<string, Call>;
  const own = Object.getOwnPropertyDescriptor(target, method);
  const original = target[method]!.bind(obj);
  let calls = 0;
  target[method] = (...args) => wrap(++calls, () => original(...args));
  try {
    return await fn();
  } finally {
    if (own) Object.defineProperty(target, method, own);
    else delete target[method]; // the prototype's method again
  }
}

/** Runs `fn` with every read of an uploaded file (the job's first step after its status check) going through `wrap`. */
const interceptingReads = <T>(s: TestServer, wrap: Parameters<typeof intercepting>[2], fn: () => Promise<T>) => intercepting(s.ctx.store, 'withLocalFile', wrap, fn);

/** Holds each call until `n` have arrived. */
const heldUntil = (n: number) => {
  const arrived = barrier(n);
  return async (_call: number, proceed: () => Promise<unknown>) => {
    await arrived();
    return proceed();
  };
};

describe('exactly-once snapshot storage', () => {
  let s: TestServer;
  let mind: any;
  const logLines: any[] = [];
  const log = jobLogger({ logLevel: 'info' }, (line) => logLines.push(JSON.parse(line)));
  const logsOf = (snapshotId: string) => logLines.filter((l) => l.snapshotId === snapshotId);

  before(async () => {
    // No worker in this process: the tests run the job handler themselves, as two workers would.
    s = await startTestServer({ MINDPRINT_IN_PROCESS_WORKER: 'false' });
    mind = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
  });
  after(() => s.close());

  async function pendingSnapshot(name: string): Promise<string> {
    const res = await upload(s, mind.id, { file: { bytes: VTT, name } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.mindAssessmentId;
  }

  /** What is stored for a snapshot: its row and how many rows each table holds for it. */
  async function stored(id: string) {
    const [snapshot] = await rows(s, sql`select status, error, attempts, psychometric_count, key_topic_count, finding_count from snapshots where id = ${id}`);
    const [turns] = await rows(s, sql`select count(*)::int as n, count(distinct seq)::int as seqs from turns where snapshot_id = ${id}`);
    const n = async (table: string) => (await rows(s, sql`select count(*)::int as n from ${sql.identifier(table)} where snapshot_id = ${id}`))[0].n as number;
    return { snapshot, turns: turns.n as number, seqs: turns.seqs as number, psychometrics: await n('psychometrics'), keyTopics: await n('key_topics'), findings: await n('findings') };
  }

  test('two attempts running at once store one set of turns and analysis; the second writes nothing', async () => {
    const reference = await pendingSnapshot('once.vtt');
    await processSnapshot(s.ctx, { snapshotId: reference }, attempt(1), log);
    const once = await stored(reference);
    assert.equal(once.snapshot.status, 'completed');
    assert.ok(once.turns >= 2 && once.psychometrics > 0, JSON.stringify(once));

    const id = await pendingSnapshot('twice.vtt');
    // Both attempts pass the status check (the snapshot is pending) before either reads the file,
    // and both open their storing transaction at once: on PostgreSQL they really run concurrently.
    const bothAttempts = () => Promise.all([1, 2].map((n) => processSnapshot(s.ctx, { snapshotId: id }, attempt(n), log)));
    await interceptingReads(s, heldUntil(2), () => intercepting(s.ctx.db, 'transaction', heldUntil(2), bothAttempts));

    const twice = await stored(id);
    assert.equal(twice.snapshot.status, 'completed');
    assert.equal(twice.snapshot.error, null);
    assert.equal(twice.snapshot.attempts, 2, 'both attempts ran');
    assert.equal(twice.turns, once.turns, 'one set of turns');
    assert.equal(twice.seqs, twice.turns);
    assert.deepEqual([twice.psychometrics, twice.keyTopics, twice.findings], [once.psychometrics, once.keyTopics, once.findings]);
    assert.deepEqual([twice.snapshot.psychometric_count, twice.snapshot.key_topic_count, twice.snapshot.finding_count], [twice.psychometrics, twice.keyTopics, twice.findings], 'the counts match the rows');
    const messages = logsOf(id).map((l) => l.msg).sort();
    assert.deepEqual(messages, ['snapshot no longer open (another attempt of its job finished it, or it was deleted); nothing stored', 'snapshot processed'], 'one stored it, the other knew to leave it');
  });

  test('an attempt failing after another completed the snapshot leaves it completed', async () => {
    const id = await pendingSnapshot('late-failure.vtt');
    const bothPastStatusCheck = barrier(2);
    let attempts!: Promise<void>[];
    // Whichever attempt reads first completes the snapshot; the other fails once it has (the first
    // attempt to settle is the one that went on, since the other is held here until then).
    const firstCompletesSecondFails = async (call: number, proceed: () => Promise<unknown>) => {
      await bothPastStatusCheck();
      if (call === 1) return proceed();
      await Promise.race(attempts);
      throw new UnreadableTranscriptError('The WebVTT file is damaged');
    };
    await interceptingReads(s, firstCompletesSecondFails, () => {
      attempts = [1, 2].map((n) => processSnapshot(s.ctx, { snapshotId: id }, attempt(n), log));
      return Promise.all(attempts);
    });

    const result = await stored(id);
    assert.equal(result.snapshot.status, 'completed');
    assert.equal(result.snapshot.error, null, 'the late failure is not recorded');
    assert.ok(result.turns > 0);
    const status = await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`);
    assert.equal(status.body.status, 'completed');
  });
});
