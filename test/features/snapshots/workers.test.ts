/**
 * Durability of the processing pipeline with separate worker processes on PostgreSQL: a worker
 * killed with SIGKILL mid-job loses its lease when the job expires, and the job runs again;
 * several workers process each snapshot exactly once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { generateFixtures } from '../../../bench/fixtures.ts';
import { LOST_REASON } from '../../../src/features/snapshots/sweeper.ts';
import { onPostgres, startTestServer, type TestServer } from '../../support/server.ts';
import { fixturePath } from '../../support/shared-data.ts';
import { debateExcerpts, fixtureFile, upload, waitForSnapshot } from './support.ts';

const BIN = fileURLToPath(new URL('../../../bin/mindprint.js', import.meta.url));
const JOB_ENV = { MINDPRINT_IN_PROCESS_WORKER: 'false', MINDPRINT_JOB_EXPIRE_SECONDS: '4', MINDPRINT_JOB_MAINTENANCE_SECONDS: '1' };

interface Worker {
  child: ChildProcess;
  /** The JSON log lines it wrote on stdout so far. */
  logs(): any[];
  /** What it wrote on stderr (for failure messages). */
  stderr(): string;
}

function startWorker(databaseUrl: string, dataDir: string, env: Record<string, string> = {}): Promise<Worker> {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    // Local artifact storage: workers share the server's data dir (in production, S3).
    env: { ...process.env, ...JOB_ENV, DATABASE_URL: databaseUrl, MINDPRINT_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const logs = () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      if (err.includes('worker: started')) resolve({ child, logs, stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${err}`)));
  });
}

const stopWorker = ({ child }: Worker) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

const kill = async ({ child }: Worker) => {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
};

describe('separate worker processes on PostgreSQL', { skip: !onPostgres() && 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  let s: TestServer;
  let fixtures: { vtt: string; pdf: string; docx: string };
  let fixtureDir: string;
  before(async () => {
    s = await startTestServer(JOB_ENV);
    fixtureDir = await mkdtemp(path.join(os.tmpdir(), 'mp-fixtures-'));
    fixtures = await generateFixtures(fixtureDir, ['2012-10-03', '2012-10-16', '2012-10-22'].map((d) => fixturePath(`transcripts/us-presidential-debates/${d}.said.txt`)));
  });
  after(async () => {
    await s.close();
    await rm(fixtureDir, { recursive: true, force: true });
  });

  test('a worker killed with SIGKILL mid-job: the job runs again after it expires and the snapshot completes', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Survivor' })).body.mind;
    // Each process sets the queue's expiry when it starts; a job keeps the one it was sent with.
    // Long enough for a loaded machine to finish the retry, short enough to wait for.
    const worker = await startWorker(s.config.databaseUrl!, s.config.dataDir, { MINDPRINT_JOB_EXPIRE_SECONDS: '10' });
    const res = await upload(s, mind.id, { file: { bytes: await readFile(fixtures.pdf), name: 'long.pdf' } });
    assert.equal(res.status, 200);
    const id = res.body.mindAssessmentId;
    // Kill the worker the moment it has taken the job.
    for (let i = 0; i < 2000; i++) {
      const st = (await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body.status;
      if (st === 'processing') break;
      assert.equal(st, 'pending');
      await new Promise((r) => setTimeout(r, 5));
    }
    await kill(worker);
    assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body.status, 'processing', 'killed mid-job');

    const second = await startWorker(s.config.databaseUrl!, s.config.dataDir);
    try {
      const st = await waitForSnapshot(s, mind.id, id, 90_000);
      assert.equal(st.status, 'completed', st.error);
      const row = ((await s.ctx.db.execute(sql`select attempts from snapshots where id = ${id}`)) as any).rows[0];
      assert.equal(row.attempts, 2, 'processed once more after the crash');
      const turns = ((await s.ctx.db.execute(sql`select count(*)::int as n, count(distinct seq)::int as d from turns where snapshot_id = ${id}`)) as any).rows[0];
      assert.equal(turns.n, turns.d, 'no duplicated turns from the interrupted attempt');
    } finally {
      await stopWorker(second);
    }
  });

  test('SIGTERM: the worker stops taking jobs but finishes the one in flight', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Graceful' })).body.mind;
    // A long expiry: on a loaded machine pg-boss would otherwise give up on the handler first.
    const worker = await startWorker(s.config.databaseUrl!, s.config.dataDir, { MINDPRINT_JOB_EXPIRE_SECONDS: '120' });
    const res = await upload(s, mind.id, { file: { bytes: await readFile(fixtures.pdf), name: 'long.pdf' } });
    const id = res.body.mindAssessmentId;
    for (let i = 0; i < 2000; i++) {
      if ((await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
    worker.child.kill('SIGTERM');
    assert.equal(await exited, 0, worker.stderr());
    const st = (await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body;
    assert.equal(st.status, 'completed', 'finished before the worker exited');
  });

  test('SIGTERM past MINDPRINT_JOB_SHUTDOWN_SECONDS: the job in flight is released, and another worker completes it', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Released' })).body.mind;
    const worker = await startWorker(s.config.databaseUrl!, s.config.dataDir, { MINDPRINT_JOB_SHUTDOWN_SECONDS: '1', MINDPRINT_JOB_EXPIRE_SECONDS: '120' });
    // Several seconds of analysis: far more than the one-second grace period.
    const long = await debateExcerpts(); // ~190 KB of the 2012 debates, ten times over
    const res = await upload(s, mind.id, { file: { bytes: Array(10).fill(long).join('\n'), name: 'long.txt' } });
    const id = res.body.mindAssessmentId;
    for (let i = 0; i < 2000 && (await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body.status === 'pending'; i++) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
    worker.child.kill('SIGTERM');
    assert.equal(await exited, 0, worker.stderr());
    assert.ok(Date.now() - started < 10_000, `exited ${Date.now() - started} ms after SIGTERM`);
    assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body.status, 'processing', 'not finished in the grace period');
    const [job] = ((await s.ctx.db.execute(sql`select state, output from pgboss.job where data->>'snapshotId' = ${id}`)) as any).rows;
    assert.equal(job.state, 'retry', 'released for another attempt');

    const second = await startWorker(s.config.databaseUrl!, s.config.dataDir);
    try {
      const st = await waitForSnapshot(s, mind.id, id, 90_000);
      assert.equal(st.status, 'completed', st.error);
      const [row] = ((await s.ctx.db.execute(sql`select attempts from snapshots where id = ${id}`)) as any).rows;
      assert.equal(row.attempts, 2);
    } finally {
      await stopWorker(second);
    }
  });

  test('a worker killed on every attempt: the job fails for good and the sweeper fails the snapshot with a reason', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Unlucky' })).body.mind;
    let worker = await startWorker(s.config.databaseUrl!, s.config.dataDir); // queue expiry: 4 s
    const res = await upload(s, mind.id, { file: { bytes: await readFile(fixtures.pdf), name: 'long.pdf' } });
    const id = res.body.mindAssessmentId;
    const attempts = async () => ((await s.ctx.db.execute(sql`select attempts from snapshots where id = ${id}`)) as any).rows[0].attempts as number;
    for (let attempt = 1; attempt <= 4; attempt++) {
      // Kill the worker as soon as it has started this attempt (retries wait 2–16 s of backoff).
      for (let i = 0; i < 6000 && (await attempts()) < attempt; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(await attempts(), attempt);
      await kill(worker);
      assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body.status, 'processing');
      if (attempt < 4) worker = await startWorker(s.config.databaseUrl!, s.config.dataDir);
    }
    // No worker runs now: the API server's sweeper settles it once pg-boss fails the expired job.
    const st = await waitForSnapshot(s, mind.id, id, 30_000);
    assert.equal(st.status, 'failed');
    assert.equal(st.error, LOST_REASON);
    const [job] = ((await s.ctx.db.execute(sql`select state, retry_count from pgboss.job where data->>'snapshotId' = ${id}`)) as any).rows;
    assert.deepEqual({ ...job }, { state: 'failed', retry_count: 3 });
    assert.equal(await attempts(), 4);
  });

  test('several workers: both take jobs, and every snapshot is processed exactly once', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Busy Person' })).body.mind;
    // Both workers poll (every second) before the work arrives, and each job takes a good part of
    // a second, so neither can drain the queue alone. A long expiry keeps a loaded machine from
    // turning a slow job into a retry.
    const workers = await Promise.all([0, 1].map(() => startWorker(s.config.databaseUrl!, s.config.dataDir, { LOG_LEVEL: 'info', MINDPRINT_JOB_EXPIRE_SECONDS: '120' })));
    // Six debate-sized files: each the first two thirds of two 2012 debates (test/fixtures).
    const halves = ['2012-10-03', '2012-10-16', '2012-10-22'];
    const debates = [0, 1, 2, 3, 4, 5].map((i) => [halves[i % 3]!, halves[(i + 1 + Math.floor(i / 3)) % 3]!]);
    const ids: string[] = [];
    for (const [a, b] of debates) {
      const bytes = Buffer.concat([await fixtureFile(`transcripts/us-presidential-debates/${a}.said.txt`), Buffer.from('\n'), await fixtureFile(`transcripts/us-presidential-debates/${b}.said.txt`)]);
      const res = await upload(s, mind.id, { file: { bytes, name: `${a}-${b}.txt` } });
      ids.push(res.body.mindAssessmentId);
    }
    try {
      for (const id of ids) assert.equal((await waitForSnapshot(s, mind.id, id, 90_000)).status, 'completed');
      const rows = ((await s.ctx.db.execute(sql`select attempts from snapshots where mind_id = ${mind.id}`)) as any).rows;
      assert.deepEqual(rows.map((r: any) => r.attempts), [1, 1, 1, 1, 1, 1]);
      // A worker logs "snapshot processed" after the commit the test saw: its line may still be on its way through the pipe.
      const processedBy = () => workers.map((w) => w.logs().filter((l) => l.msg === 'snapshot processed').map((l) => l.snapshotId as string));
      for (const deadline = Date.now() + 10_000; processedBy().flat().length < ids.length && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
      const processed = processedBy();
      for (const [i, p] of processed.entries()) assert.ok(p.length >= 1, `worker ${i} processed ${p.length} snapshots`);
      assert.deepEqual(processed.flat().sort(), [...ids].sort(), 'each snapshot processed by exactly one worker, once');
    } finally {
      await Promise.all(workers.map(stopWorker));
    }
  });
});
