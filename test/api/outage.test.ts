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
import { onPostgres, startTestServer, type TestServer } from '../support/server.ts';

const deepJsonb = '{"a":'.repeat(3000) + '1' + '}'.repeat(3000);

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
    // The injected failure: a query that really crashes PGlite's WASM (its jsonb parser recurses out of bounds).
    await assert.rejects(s.ctx.database.execute('select $1::jsonb as j', [deepJsonb]), /embedded database failed.*memory access out of bounds/);
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
