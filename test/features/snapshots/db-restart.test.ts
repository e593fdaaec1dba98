/**
 * Issue 21: PostgreSQL restarting (or down for a while) with snapshot jobs in flight. Before the
 * fix, pg-boss settled each finished job with a query it did not await; the server shutting down
 * failed it (57P01), the rejection was unhandled and Node exited: `serve` died in 6 of 7 restarts,
 * `mindprint worker` in 6 of 8. Here both kinds of process run on a throwaway server of our own
 * (never the shared one), which is restarted with uploads in flight, then held down for a while:
 * every process stays up, the API answers 503 + Retry-After meanwhile and 200 after, and every
 * upload completes exactly once (no duplicated turns).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { BIN, spawnServe, type ServeProcess } from '../../support/cli.ts';
import { ownPostgres, postgresBin } from '../../support/pg.ts';
import { onPostgres } from '../../support/server.ts';
import { debateExcerpts } from './support.ts';

const pgBin = postgresBin();
const skip = !onPostgres() ? 'set TEST_DATABASE_URL (the PostgreSQL leg runs it)' : !pgBin ? 'no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql' : false;
const SERVING = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"Mindprint is serving"/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PostgreSQL restarts with snapshot jobs in flight', { skip }, () => {
  let server: Awaited<ReturnType<typeof ownPostgres>>;
  let dataDir: string;
  let serve: ServeProcess;
  let worker: ChildProcess;
  let workerErr = '';
  const key = `mp_${randomBytes(32).toString('base64url')}`;
  let base: string;

  before(async () => {
    server = await ownPostgres(pgBin!);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-db-restart-'));
    const env = {
      DATABASE_URL: server.url,
      MINDPRINT_DATA_DIR: dataDir, // local artifact storage, shared by both processes
      MINDPRINT_BOOTSTRAP_KEY: key,
      LOG_LEVEL: 'info',
      // A job is taken for lost only after 60 s: the restarts must not need that to recover.
      MINDPRINT_JOB_EXPIRE_SECONDS: '60',
      MINDPRINT_JOB_MAINTENANCE_SECONDS: '1',
    };
    serve = spawnServe(env); // in-process worker (the default)
    [, base] = (await serve.waitFor(SERVING, 60_000)) as unknown as [string, string];
    worker = spawn(process.execPath, [BIN, 'worker'], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
    worker.stderr!.on('data', (d) => (workerErr += d));
    for (let i = 0; i < 600 && !workerErr.includes('worker: started'); i++) await sleep(100);
    assert.match(workerErr, /worker: started/);
  });
  after(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    await serve?.stop();
    await server?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, p: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined && !(body instanceof FormData)) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${p}`, { method, headers, body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, retryAfter: res.headers.get('retry-after') };
  };
  const alive = (what: string) => {
    assert.equal(serve.proc.exitCode, null, `${what}: serve exited\n${serve.stderr()}\n${serve.stdout().slice(-4000)}`);
    assert.equal(worker.exitCode, null, `${what}: the worker exited\n${workerErr}`);
  };

  test('restarted twice and down for a minute with uploads in flight: every process stays up, 503 meanwhile, every upload completes once', { timeout: 600_000 }, async () => {
    const started = Date.now();
    const mind = (await call('POST', '/minds', { name: 'Barack H Obama' })).body.mind;
    // ~1 MB of real debate per upload: a few seconds of analysis, so some are in flight at each restart.
    const text = Array(5).fill(await debateExcerpts()).join('\n');
    const ids: string[] = [];
    const outages = [
      { down: 0, what: 'restart (pg_ctl stop -m fast; start)' },
      { down: 0, what: 'second restart' },
      { down: 60_000, what: 'down for a minute' },
    ];
    for (const [round, { down, what }] of outages.entries()) {
      for (let i = 0; i < 3; i++) {
        const fd = new FormData();
        fd.append('file', new Blob([text], { type: 'text/plain' }), `round-${round}-${i}.txt`);
        const res = await call('POST', `/minds/${mind.id}/snapshots`, fd);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        ids.push(res.body.mindAssessmentId);
      }
      await sleep(2_000);
      await server.stop();
      const during = await call('GET', `/minds/${mind.id}/snapshots/${ids.at(-1)}/status`);
      assert.deepEqual([during.status, during.body.code, during.retryAfter], [503, 'UNAVAILABLE', '5'], `${what}: ${JSON.stringify(during.body)}`);
      await sleep(down);
      alive(`${what}, while down`);
      await server.start();
      // The API answers again without a restart (the pool reconnects on the next request).
      let back = await call('GET', `/minds/${mind.id}/snapshots/${ids.at(-1)}/status`);
      for (let i = 0; i < 50 && back.status !== 200; i++, await sleep(200)) back = await call('GET', `/minds/${mind.id}/snapshots/${ids.at(-1)}/status`);
      assert.equal(back.status, 200, `${what}: ${JSON.stringify(back.body)}`);
      await sleep(1_000);
      alive(`${what}, after`);
    }

    // Every upload completes: the attempts the outages cut short are retried once the database is back.
    const deadline = Date.now() + 240_000;
    const statuses = new Map<string, any>();
    while (Date.now() < deadline && statuses.size < ids.length) {
      for (const id of ids.filter((x) => !statuses.has(x))) {
        const st = (await call('GET', `/minds/${mind.id}/snapshots/${id}/status`)).body;
        if (st.status === 'completed' || st.status === 'failed') statuses.set(id, st);
      }
      await sleep(500);
    }
    alive('at the end');
    assert.deepEqual(ids.map((id) => statuses.get(id)?.status ?? 'unfinished'), ids.map(() => 'completed'), JSON.stringify([...statuses.values()].filter((s) => s.status !== 'completed')));

    const db = new pg.Client({ connectionString: server.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string; attempts: number; n: number; distinct: number }>(
        `select s.id, s.attempts, count(t.id)::int as n, count(distinct t.seq)::int as distinct from snapshots s left join turns t on t.snapshot_id = s.id where s.id = any($1::uuid[]) group by s.id, s.attempts`,
        [ids],
      );
      for (const r of rows) {
        assert.ok(r.n > 1000, `snapshot ${r.id}: ${r.n} turns`);
        assert.equal(r.n, r.distinct, `snapshot ${r.id}: duplicated turns`);
      }
      const jobs = await db.query<{ state: string; n: number }>(`select state, count(*)::int as n from pgboss.job where name = 'snapshot-process' group by state`);
      assert.deepEqual(jobs.rows.map((j) => j.state), ['completed'], 'every job settled as completed');
      // What the outages cost, and how often a job's outcome had to wait for the database (the path that used to kill the process).
      const held = (out: string) => (out.match(/job queue: cannot record (complete|fail) of/g) ?? []).length;
      const given = (out: string) => (out.match(/job queue: could not record/g) ?? []).length;
      console.log(`attempts: ${rows.map((r) => r.attempts).join(' ')}; outcomes held until the database was back: serve ${held(serve.stderr())}, worker ${held(workerErr)}; given up: ${given(serve.stderr() + workerErr)}; ${Math.round((Date.now() - started) / 1000)} s`);
    } finally {
      await db.end();
    }
  });
});
