/**
 * The sweeper settles snapshots that no handler will ever finish, on both databases, without
 * touching ones whose job can still run. (workers.test.ts kills real workers on PostgreSQL.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { attemptsBudgetSeconds } from '../../src/jobs/sweeper.ts';
import { LOST_REASON } from '../../src/snapshots/sweeper.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { upload } from './support.ts';

const VTT = 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v Grace Hopper>It is easier to ask forgiveness than it is to get permission.\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the attempts budget covers every attempt, its detection and the backoff between attempts', () => {
  // 4 × (300 s expiry + 30 s maintenance) + retry waits of at most 4, 8 and 16 s.
  assert.equal(attemptsBudgetSeconds({ name: 'q', retryLimit: 3, retryDelaySeconds: 2, expireInSeconds: 300 }, 30), 4 * 330 + 28);
  assert.equal(attemptsBudgetSeconds({ name: 'q', retryLimit: 0, retryDelaySeconds: 2, expireInSeconds: 60 }, 10), 70);
});

describe('snapshot sweeper', () => {
  let s: TestServer;
  let mind: any;
  // No worker here: jobs stay queued unless a test changes them.
  before(async () => {
    s = await startTestServer({ MINDPRINT_IN_PROCESS_WORKER: 'false', MINDPRINT_JOB_MAINTENANCE_SECONDS: '1' });
    mind = (await s.api('POST', '/minds', { name: 'Grace Hopper' })).body.mind;
  });
  after(() => s.close());

  const status = async (id: string) => (await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body;
  async function until(id: string, want: string, ms = 10_000) {
    const deadline = Date.now() + ms;
    while ((await status(id)).status !== want && Date.now() < deadline) await sleep(100);
    return status(id);
  }

  test('a queued snapshot is left alone; one whose job failed without a handler is failed with a reason', async () => {
    const queued = (await upload(s, mind.id, { file: { bytes: VTT, name: 'q.vtt' } })).body.mindAssessmentId;
    const lost = (await upload(s, mind.id, { file: { bytes: VTT, name: 'l.vtt' } })).body.mindAssessmentId;
    // What pg-boss does when the last attempt's worker is lost: the job ends failed by timeout.
    await s.ctx.db.execute(sql`update pgboss.job set state = 'failed', completed_on = now() where name = 'snapshot-process' and data->>'snapshotId' = ${lost}`);
    const st = await until(lost, 'failed');
    assert.equal(st.status, 'failed');
    assert.equal(st.error, LOST_REASON);
    assert.ok(st.completedAt);
    await sleep(2_500); // a few more sweeps
    assert.equal((await status(queued)).status, 'pending', 'its job can still run');
  });

  test('a snapshot processing for longer than all attempts can take is failed even if its job looks alive', async () => {
    const stuck = (await upload(s, mind.id, { file: { bytes: VTT, name: 's.vtt' } })).body.mindAssessmentId;
    await s.ctx.db.execute(sql`update snapshots set status = 'processing', started_at = now() - interval '1 day' where id = ${stuck}`);
    const recent = (await upload(s, mind.id, { file: { bytes: VTT, name: 'r.vtt' } })).body.mindAssessmentId;
    await s.ctx.db.execute(sql`update snapshots set status = 'processing', started_at = now() - interval '1 minute' where id = ${recent}`);
    assert.equal((await until(stuck, 'failed')).error, LOST_REASON);
    await sleep(2_000);
    assert.equal((await status(recent)).status, 'processing');
  });

  test('finished snapshots are never touched', async () => {
    const done = (await upload(s, mind.id, { file: { bytes: VTT, name: 'd.vtt' } })).body.mindAssessmentId;
    await s.ctx.db.execute(sql`update snapshots set status = 'completed', completed_at = now() where id = ${done}`);
    await s.ctx.db.execute(sql`update pgboss.job set state = 'failed' where data->>'snapshotId' = ${done}`);
    await sleep(2_500);
    assert.deepEqual([(await status(done)).status, (await status(done)).error], ['completed', null]);
  });
});
