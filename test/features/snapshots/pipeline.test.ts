/**
 * The processing pipeline's promises, on the embedded database and on PostgreSQL: a snapshot and
 * its job are written together or not at all; passing trouble is retried with backoff; a bug and
 * unreadable input fail at once, after exactly one attempt.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { count, rows, storedFiles, upload, waitForSnapshot } from './support.ts';

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Host>What matters to you?\n\n00:00:04.000 --> 00:00:09.000\n<v Ada Lovelace>I care about careful work and I think machines can do more than arithmetic.\n';

type WithLocalFile = TestServer['ctx']['store']['withLocalFile'];

/** Replaces the store's withLocalFile (what the job reads the file with) until restore() is called. */
function interceptReads(s: TestServer, wrap: (original: WithLocalFile, call: number) => WithLocalFile): { calls: number[]; restore(): void } {
  const store = s.ctx.store;
  const original = store.withLocalFile.bind(store) as WithLocalFile;
  const calls: number[] = [];
  store.withLocalFile = ((key: string, fn: (p: string) => Promise<unknown>) => {
    calls.push(Date.now());
    return wrap(original, calls.length)(key, fn);
  }) as WithLocalFile;
  return { calls, restore: () => void delete (store as { withLocalFile?: unknown }).withLocalFile };
}

describe('snapshot pipeline', () => {
  let s: TestServer;
  let mind: any;
  before(async () => {
    s = await startTestServer();
    mind = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
  });
  after(() => s.close());

  test('the snapshot and its job are written in one transaction: a refused job leaves no snapshot, artifact or file', async () => {
    await s.ctx.db.execute(sql.raw(`create function pgboss.refuse_snapshot_jobs() returns trigger language plpgsql as $$ begin raise exception 'test: job insert refused'; end $$`));
    await s.ctx.db.execute(sql.raw(`create trigger refuse_snapshot_jobs before insert on pgboss.job for each row when (new.name = 'snapshot-process') execute function pgboss.refuse_snapshot_jobs()`));
    try {
      const before = { snapshots: await count(s, 'snapshots'), artifacts: await count(s, 'artifacts'), files: (await storedFiles(s)).length };
      const res = await upload(s, mind.id, { file: { bytes: VTT, name: 'a.vtt' } });
      assert.equal(res.status, 500, JSON.stringify(res.body));
      assert.equal(await count(s, 'snapshots'), before.snapshots, 'no snapshot without its job');
      assert.equal(await count(s, 'artifacts'), before.artifacts);
      assert.equal((await storedFiles(s)).length, before.files, 'the stored file was removed again');
    } finally {
      await s.ctx.db.execute(sql.raw('drop trigger refuse_snapshot_jobs on pgboss.job'));
      await s.ctx.db.execute(sql.raw('drop function pgboss.refuse_snapshot_jobs()'));
    }
    // And the other way round: every snapshot has its job.
    const ok = await upload(s, mind.id, { file: { bytes: VTT, name: 'a.vtt' } });
    assert.equal(ok.status, 200);
    const jobs = await rows(s, sql`select state from pgboss.job where name = 'snapshot-process' and data->>'snapshotId' = ${ok.body.mindAssessmentId}`);
    assert.equal(jobs.length, 1);
    assert.equal((await waitForSnapshot(s, mind.id, ok.body.mindAssessmentId)).status, 'completed');
  });

  test('a passing storage failure is retried with backoff, and the snapshot then completes', async () => {
    const reads = interceptReads(s, (original, call) => (call === 1 ? async () => { throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }); } : original));
    try {
      const res = await upload(s, mind.id, { file: { bytes: VTT, name: 'retry.vtt' } });
      const st = await waitForSnapshot(s, mind.id, res.body.mindAssessmentId, 30_000);
      assert.equal(st.status, 'completed', st.error);
      assert.equal(st.error, null);
      assert.equal(reads.calls.length, 2);
      // pg-boss backoff: the first retry waits retryDelay (2 s) × 1–2.
      assert.ok(reads.calls[1]! - reads.calls[0]! >= 1_900, `retried after ${reads.calls[1]! - reads.calls[0]!} ms`);
      const [row] = await rows(s, sql`select attempts from snapshots where id = ${res.body.mindAssessmentId}`);
      assert.equal(row.attempts, 2);
    } finally {
      reads.restore();
    }
  });

  test('a bug fails the snapshot at once, after one attempt, with a message a person can act on', async () => {
    const reads = interceptReads(s, () => async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'lemma')");
    });
    try {
      const res = await upload(s, mind.id, { file: { bytes: VTT, name: 'bug.vtt' } });
      const st = await waitForSnapshot(s, mind.id, res.body.mindAssessmentId, 30_000);
      assert.equal(st.status, 'failed');
      assert.match(st.error, /^Processing failed: an internal error occurred while analysing the transcript \(reference [0-9a-f]{8}\)$/);
      assert.doesNotMatch(st.error, /Cannot read properties/, 'no internals in the message');
      // Give a (wrong) retry time to happen: none does.
      await new Promise((r) => setTimeout(r, 4_500));
      assert.equal(reads.calls.length, 1);
      const [row] = await rows(s, sql`select attempts, status from snapshots where id = ${res.body.mindAssessmentId}`);
      assert.deepEqual({ ...row }, { attempts: 1, status: 'failed' });
    } finally {
      reads.restore();
    }
  });

  test('unreadable input runs exactly once', async () => {
    const res = await upload(s, mind.id, { file: { bytes: 'WEBVTT\n\nNOTE nothing here\n', name: 'empty.vtt' } });
    const st = await waitForSnapshot(s, mind.id, res.body.mindAssessmentId);
    assert.equal(st.status, 'failed');
    assert.match(st.error, /no cues/);
    await new Promise((r) => setTimeout(r, 4_500));
    const [row] = await rows(s, sql`select attempts from snapshots where id = ${res.body.mindAssessmentId}`);
    assert.equal(row.attempts, 1);
  });
});
