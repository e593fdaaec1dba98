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
import { generateFixtures } from '../../bench/fixtures.ts';
import { onPostgres, startTestServer, type TestServer } from '../support/server.ts';
import { upload, waitForSnapshot } from './support.ts';

const BIN = fileURLToPath(new URL('../../bin/mindprint.js', import.meta.url));
const JOB_ENV = { MINDPRINT_IN_PROCESS_WORKER: 'false', MINDPRINT_JOB_EXPIRE_SECONDS: '4', MINDPRINT_JOB_MAINTENANCE_SECONDS: '1' };

function startWorker(databaseUrl: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    // Local artifact storage: workers share the server's data dir (in production, S3).
    env: { ...process.env, ...JOB_ENV, DATABASE_URL: databaseUrl, MINDPRINT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      if (err.includes('worker: started')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${err}`)));
  });
}

const stopWorker = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

describe('separate worker processes on PostgreSQL', { skip: !onPostgres() && 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  let s: TestServer;
  let fixtures: { vtt: string; pdf: string; docx: string };
  let fixtureDir: string;
  before(async () => {
    s = await startTestServer(JOB_ENV);
    fixtureDir = await mkdtemp(path.join(os.tmpdir(), 'mp-fixtures-'));
    fixtures = await generateFixtures(fixtureDir);
  });
  after(async () => {
    await s.close();
    await rm(fixtureDir, { recursive: true, force: true });
  });

  test('a worker killed with SIGKILL mid-job: the job runs again after it expires and the snapshot completes', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Survivor' })).body.mind;
    const worker = await startWorker(s.config.databaseUrl!, s.config.dataDir);
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
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
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
    const worker = await startWorker(s.config.databaseUrl!, s.config.dataDir);
    const res = await upload(s, mind.id, { file: { bytes: await readFile(fixtures.pdf), name: 'long.pdf' } });
    const id = res.body.mindAssessmentId;
    for (let i = 0; i < 2000; i++) {
      if ((await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    worker.kill('SIGTERM');
    assert.equal(await exited, 0);
    const st = (await s.api('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body;
    assert.equal(st.status, 'completed', 'finished before the worker exited');
  });

  test('several workers: every snapshot is processed exactly once', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Busy Person' })).body.mind;
    const workers = await Promise.all([startWorker(s.config.databaseUrl!, s.config.dataDir), startWorker(s.config.databaseUrl!, s.config.dataDir)]);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const vtt = `WEBVTT\n\n00:00:01.000 --> 00:00:05.000\n<v Host>Question ${i}?\n\n00:00:05.000 --> 00:00:09.000\n<v Busy Person>Answer number ${i}, and I mean it.\n`;
        ids.push((await upload(s, mind.id, { file: { bytes: vtt, name: `${i}.vtt` } })).body.mindAssessmentId);
      }
      for (const id of ids) assert.equal((await waitForSnapshot(s, mind.id, id, 60_000)).status, 'completed');
      const rows = ((await s.ctx.db.execute(sql`select attempts from snapshots where mind_id = ${mind.id}`)) as any).rows;
      assert.deepEqual(rows.map((r: any) => r.attempts), [1, 1, 1, 1, 1, 1]);
    } finally {
      await Promise.all(workers.map(stopWorker));
    }
  });
});
