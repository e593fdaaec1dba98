/**
 * The database failing under the service (issue 10): the embedded database's WASM runtime failing
 * for good, and a PostgreSQL database that stops accepting connections and comes back. Requests
 * meanwhile answer 503 UNAVAILABLE with Retry-After (never 500), change nothing, and once the
 * database is back the same requests succeed without a restart.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { injectWasmTrap } from '../support/pglite-crash.ts';
import { ownPostgres, postgresBin } from '../support/pg.ts';
import { onPostgres, startTestServer, type TestServer } from '../support/server.ts';

function assertUnavailable(res: { status: number; body: any; headers: Headers }, what: string): void {
  assert.equal(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, 'UNAVAILABLE', what);
  assert.equal(res.body.error, 'Service Unavailable', what);
  assert.equal(res.headers.get('retry-after'), '5', what);
}

describe('embedded database failure', { skip: onPostgres() ? 'the embedded database only' : false }, () => {
  let s: TestServer;
  const failures: Error[] = [];
  before(async () => {
    s = await startTestServer({}, { serveOptions: { onDatabaseFailure: (err) => void failures.push(err) } });
  });
  after(() => s.close());

  test('a WASM runtime error marks the database failed: /healthz fails, requests answer 503 at once, the server is told once', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Before The Crash' })).body.mind;
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    // The injected failure: PGlite's next call into its WASM module traps (test/support/pglite-crash.ts says why injected).
    injectWasmTrap(s.ctx.database);
    await assert.rejects(s.ctx.database.execute('select $1::jsonb as j', ['{"a":1}']), /embedded database failed.*memory access out of bounds/);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.message, /memory access out of bounds/);
    const health = await fetch(`${s.url}/healthz`);
    assert.equal(health.status, 503);
    const body = await health.json();
    assert.equal(body.status, 'failed');
    assert.match(body.reason, /embedded database failed/);
    // Every request that needs the database: 503 UNAVAILABLE (the key lookup is cached for 2 s; a new key is not).
    assertUnavailable(await s.api('POST', '/minds', { name: 'After The Crash' }), 'POST /minds');
    assertUnavailable(await s.api('GET', `/minds/${mind.id}/snapshots`), 'GET snapshots');
    assertUnavailable(await s.api('GET', '/minds', undefined, 'mp_' + 'x'.repeat(40)), 'an uncached key');
    // Later queries fail fast without touching PGlite again, and the listener is not told twice.
    await assert.rejects(s.ctx.database.execute('select 1'), /embedded database failed/);
    assert.equal(failures.length, 1);
  });
});

describe('embedded database failure, default reaction', { skip: onPostgres() ? 'the embedded database only' : false }, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mp-pglite-failure-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('the process says so in its log and exits with status 1', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'pglite-failure-child.ts'), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.match(stdout, /^ready http:/m, stderr);
    assert.match(stdout, /query failed: The embedded database failed/);
    assert.equal(code, 1, `${stdout}\n${stderr}`);
    assert.match(stdout + stderr, /"level":60.*embedded database failed and cannot run queries any more/);
  });
});

describe('PostgreSQL outage', { skip: onPostgres() ? false : 'set TEST_DATABASE_URL' }, () => {
  let s: TestServer;
  let admin: pg.Client;
  let name: string;
  before(async () => {
    s = await startTestServer();
    name = new URL(s.config.databaseUrl!).pathname.slice(1);
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  after(async () => {
    await admin.query(`alter database ${name} allow_connections true`).catch(() => {});
    await admin.end();
    await s.close();
  });

  test('while the database refuses connections: 503 UNAVAILABLE with Retry-After, nothing changed; after: the same requests succeed, no restart', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Survivor' })).body.mind;
    // The outage: no new connections, and every open one (the pool's, LISTEN, pg-boss) terminated.
    await admin.query(`alter database ${name} allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    for (let i = 0; i < 5; i++) {
      assertUnavailable(await s.api('POST', '/minds', { name: `During ${i}` }), `POST /minds #${i}`);
      assertUnavailable(await s.api('GET', `/minds/${mind.id}/snapshots`), `GET snapshots #${i}`);
      assertUnavailable(await s.api('GET', '/minds', undefined, 'mp_' + 'y'.repeat(40)), `an uncached key #${i}`);
    }
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200, 'a PostgreSQL outage passes: the process stays alive');
    assert.equal((await fetch(`${s.url}/readyz`)).status, 503);
    await admin.query(`alter database ${name} allow_connections true`);
    const created = await s.api('POST', '/minds', { name: 'After' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const names = ((await s.api('GET', '/minds')).body.minds as { name: string }[]).map((m) => m.name).sort();
    assert.deepEqual(names, ['After', 'Survivor']);
    assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots`)).status, 200);
    assert.equal((await fetch(`${s.url}/readyz`)).status, 200);
  });
});

const pgBin = postgresBin();

/**
 * Issue 10: during a PostgreSQL restart only 200s and 503s, none after, no answered write lost.
 * Fixed for it: a connection dropped mid-transaction no longer raises an uncaught 'error', and a
 * failed `begin` no longer leaks its connection (src/platform/db/client.ts; the leak made shutdown wait
 * for ever), and a created or updated mind is read back inside its transaction (a connection
 * lost right after the commit answered 503 for a stored mind: 2 runs in 8 before).
 */
const restartSkip = !onPostgres()
  ? 'set TEST_DATABASE_URL (the PostgreSQL leg runs it)'
  : !pgBin
    ? 'no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql'
    : false;

describe('PostgreSQL restart under load', { skip: restartSkip }, () => {
  let server: Awaited<ReturnType<typeof ownPostgres>>;
  let s: TestServer;
  const sharedUrl = process.env.TEST_DATABASE_URL;
  before(async () => {
    server = await ownPostgres(pgBin!);
    process.env.TEST_DATABASE_URL = server.url;
    s = await startTestServer();
  });
  after(async () => {
    process.env.TEST_DATABASE_URL = sharedUrl;
    await s?.close().catch(() => {});
    await server?.destroy();
  });

  test('while it restarts: only 200 or 503 UNAVAILABLE with Retry-After, some 503s; once it is back: only 200s, and no answered write lost', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Steady' })).body.mind;
    type Answer = { sentAt: number; doneAt: number; status: number; body: any; retryAfter: string | null; name?: string };
    const answers: Answer[] = [];
    let stop = false;
    let seq = 0;
    // Four clients in a loop: a write, a list, a read of a child collection.
    const client = async () => {
      while (!stop) {
        const n = seq++;
        const sentAt = performance.now();
        const name = `Load ${n}`;
        const res = n % 3 === 0 ? await s.api('POST', '/minds', { name }) : n % 3 === 1 ? await s.api('GET', '/minds') : await s.api('GET', `/minds/${mind.id}/snapshots`);
        answers.push({ sentAt, doneAt: performance.now(), status: res.status, body: res.body, retryAfter: res.headers.get('retry-after'), name: n % 3 === 0 ? name : undefined });
      }
    };
    const clients = [client(), client(), client(), client()];
    await new Promise((r) => setTimeout(r, 500));
    const down = performance.now();
    await server.stop();
    // The outage: requests meanwhile find no database at all.
    await new Promise((r) => setTimeout(r, 1500));
    await server.start();
    const back = performance.now();
    await new Promise((r) => setTimeout(r, 1500));
    stop = true;
    await Promise.all(clients);

    for (const a of answers) {
      if (a.status === 200) continue;
      assert.equal(a.status, 503, JSON.stringify(a.body));
      assert.equal(a.body.code, 'UNAVAILABLE');
      assert.equal(a.retryAfter, '5');
    }
    const during = answers.filter((a) => a.sentAt > down && a.sentAt < back);
    assert.ok(during.filter((a) => a.status === 503).length > 0, `503s while it was down: ${during.length} requests`);
    const afterwards = answers.filter((a) => a.sentAt > back);
    assert.ok(afterwards.length > 10, `${afterwards.length} requests after the restart`);
    assert.deepEqual(afterwards.filter((a) => a.status !== 200).map((a) => `${a.status} ${JSON.stringify(a.body)}`), [], 'once the database is back, every request succeeds');
    assert.deepEqual(answers.filter((a) => a.doneAt < down && a.status !== 200), [], 'before the restart, every request succeeded');
    // Every write that was answered 200 is stored; none answered 503 is.
    const stored = new Set(((await s.api('GET', '/minds')).body.minds as { name: string }[]).map((m) => m.name));
    for (const a of answers.filter((x) => x.name)) assert.equal(stored.has(a.name!), a.status === 200, `${a.name} answered ${a.status}`);
    assert.equal((await fetch(`${s.url}/readyz`)).status, 200);
  });
});
