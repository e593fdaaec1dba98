/**
 * The sweeper settles snapshots that no handler will ever finish, on both databases, without
 * touching ones whose job can still run, however long they wait; and a job that runs after all
 * wins over the sweeper's "lost" (issue 21). (workers.test.ts kills real workers on PostgreSQL.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { JOB_STATE_MAY_RUN } from '../../../src/platform/jobs/sweeper.ts';
import { processSnapshot } from '../../../src/features/snapshots/pipeline.ts';
import { LOST_REASON } from '../../../src/features/snapshots/sweeper.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { upload } from './support.ts';

const VTT = 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v Grace Hopper>It is easier to ask forgiveness than it is to get permission.\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('which job states may still run: only these keep a snapshot open', () => {
  assert.deepEqual(Object.entries(JOB_STATE_MAY_RUN).filter(([, live]) => live).map(([st]) => st), ['created', 'retry', 'active']);
  assert.deepEqual(Object.entries(JOB_STATE_MAY_RUN).filter(([, live]) => !live).map(([st]) => st), ['completed', 'cancelled', 'failed']);
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

  const setJob = (id: string, state: string) => s.ctx.db.execute(sql`update pgboss.job set state = ${state}::pgboss.job_state where name = 'snapshot-process' and data->>'snapshotId' = ${id}`);

  test('however long a snapshot has been processing, it is left alone while its job may still run (created, retry, active)', async () => {
    // Workers down for a day: before issue 21 a wall-clock budget failed these, and then the job ran and completed.
    const ids: Record<string, string> = {};
    for (const state of ['created', 'retry', 'active']) {
      ids[state] = (await upload(s, mind.id, { file: { bytes: VTT, name: `${state}.vtt` } })).body.mindAssessmentId;
      await s.ctx.db.execute(sql`update snapshots set status = 'processing', attempts = 1, started_at = now() - interval '1 day' where id = ${ids[state]}`);
      await setJob(ids[state]!, state);
    }
    await sleep(2_500); // a few sweeps
    for (const [state, id] of Object.entries(ids)) assert.equal((await status(id)).status, 'processing', `job ${state}`);
  });

  test('a snapshot whose job is cancelled, completed without finishing it, or gone is failed with a reason', async () => {
    const ids: Record<string, string> = {};
    for (const state of ['cancelled', 'completed', 'gone']) {
      ids[state] = (await upload(s, mind.id, { file: { bytes: VTT, name: `${state}.vtt` } })).body.mindAssessmentId;
      if (state === 'gone') await s.ctx.db.execute(sql`delete from pgboss.job where data->>'snapshotId' = ${ids[state]}`);
      else await setJob(ids[state]!, state);
    }
    for (const [state, id] of Object.entries(ids)) assert.deepEqual([(await until(id, 'failed')).status, (await status(id)).error], ['failed', LOST_REASON], `job ${state}`);
  });

  test('a job that runs after all takes back the snapshot the sweeper failed as lost, and completes it; a failure of its own stands', async () => {
    const lost = (await upload(s, mind.id, { file: { bytes: VTT, name: 'late.vtt' } })).body.mindAssessmentId;
    await setJob(lost, 'failed');
    assert.equal((await until(lost, 'failed')).error, LOST_REASON);
    // The handler pg-boss gave up on (or a job retried by hand) runs now.
    const job = { id: 'late', retryCount: 3, retryLimit: 3, isLastAttempt: true };
    await processSnapshot(s.ctx, { snapshotId: lost }, job);
    const st = await status(lost);
    assert.deepEqual([st.status, st.error], ['completed', null]);

    const decided = (await upload(s, mind.id, { file: { bytes: VTT, name: 'decided.vtt' } })).body.mindAssessmentId;
    await s.ctx.db.execute(sql`update snapshots set status = 'failed', error = 'The file has no speech' where id = ${decided}`);
    await processSnapshot(s.ctx, { snapshotId: decided }, job);
    assert.deepEqual([(await status(decided)).status, (await status(decided)).error], ['failed', 'The file has no speech']);
  });

  test('finished snapshots are never touched', async () => {
    const done = (await upload(s, mind.id, { file: { bytes: VTT, name: 'd.vtt' } })).body.mindAssessmentId;
    await s.ctx.db.execute(sql`update snapshots set status = 'completed', completed_at = now() where id = ${done}`);
    await s.ctx.db.execute(sql`update pgboss.job set state = 'failed' where data->>'snapshotId' = ${done}`);
    await sleep(2_500);
    assert.deepEqual([(await status(done)).status, (await status(done)).error], ['completed', null]);
  });
});
