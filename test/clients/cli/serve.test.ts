import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { readLock } from '../../../src/platform/db/lock.ts';
import { serve } from '../../../src/boot/server.ts';
import { cli, FIRST_START_KEY, spawnServe } from '../../support/cli.ts';
import { createThrowawayDatabase } from '../../support/pg.ts';
import { onPostgres, startTestServer } from '../../support/server.ts';

const NO_STACK = /\n\s+at /;

/** A fresh data dir (and, with TEST_DATABASE_URL, a fresh PostgreSQL database) for a spawned server. */
async function freshStore() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-cli-'));
  const pgDb = onPostgres() ? await createThrowawayDatabase(process.env.TEST_DATABASE_URL!) : null;
  return {
    dataDir,
    env: { MINDPRINT_DATA_DIR: dataDir, ...(pgDb ? { DATABASE_URL: pgDb.url } : {}) } as Record<string, string>,
    async remove() {
      await pgDb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe('mindprint CLI', () => {
  test('--help on every command', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['migrate', '--help'], ['keys', '--help'], ['keys', 'create', '--help'], ['keys', 'list', '--help'], ['keys', 'revoke', '--help']]) {
      const r = await cli(args, {});
      assert.equal(r.code, 0, args.join(' '));
      assert.match(r.stdout, /Usage: mindprint/);
    }
  });

  test('migrate on a fresh store applies every migration, and again is a no-op; keys can then be created in it', async () => {
    const store = await freshStore();
    try {
      const first = await cli(['migrate'], store.env);
      assert.equal(first.code, 0, first.stderr);
      const again = await cli(['migrate'], store.env);
      assert.equal(again.code, 0, again.stderr);
      // The store is usable as migrated: a key can be created in it.
      const created = await cli(['keys', 'create', '--org', 'migrated', '--user', 'm@example.com', '--json'], store.env);
      assert.equal(created.code, 0, created.stderr);
      assert.match(JSON.parse(created.stdout).key, /^mp_/);
    } finally {
      await store.remove();
    }
  });

  test('a bad setting stops start-up with a message naming the variable', async () => {
    const r = await cli(['migrate'], { PORT: 'eighty' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /PORT/);
  });

  test('serve with a bad HOST names HOST and exits 1 without a stack trace', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'mp-cli-host-'));
    for (const host of ['not a host!', 'no-such-host.invalid']) {
      const r = await cli(['serve'], { HOST: host, PORT: '0', MINDPRINT_DATA_DIR: path.join(parent, 'data') });
      assert.equal(r.code, 1, `${host}: ${r.stderr}`);
      assert.match(r.stderr, /HOST/, host);
      assert.doesNotMatch(r.stderr, NO_STACK, host);
      assert.equal(r.stdout, '', 'no key is printed');
      assert.deepEqual(await readdir(parent), [], 'HOST is checked before the data directory is made');
    }
    await rm(parent, { recursive: true, force: true });
  });

  test('a port in use names PORT and exits 1; no key is created, so the next start prints one that works', async () => {
    const store = await freshStore();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const failed = await cli(['serve'], { ...store.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' });
      assert.equal(failed.code, 1, failed.stderr);
      assert.match(failed.stderr, /PORT/);
      assert.match(failed.stderr, new RegExp(`${port}.*already in use`));
      assert.doesNotMatch(failed.stderr, NO_STACK);
      assert.doesNotMatch(failed.stdout, /mp_/, 'the failed start printed no key');

      const server = spawnServe(store.env);
      try {
        const [, key, base] = await server.waitFor(FIRST_START_KEY);
        const res = await fetch(`${base}/minds`, { headers: { authorization: `Bearer ${key}` } });
        assert.equal(res.status, 200);
        const keys = (await (await fetch(`${base}/api-keys`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
        assert.equal(keys.apiKeys.length, 1, 'exactly one key: the printed one');
        assert.doesNotMatch(server.stderr(), /mp_[A-Za-z0-9_-]{43}/, 'the key is not logged');
      } finally {
        assert.equal(await server.stop(), 0);
      }
      // A second start finds the key and prints nothing.
      const again = spawnServe({ ...store.env, LOG_LEVEL: 'info' });
      try {
        await again.waitFor(/Mindprint is serving/);
        assert.doesNotMatch(again.stdout(), /mp_[A-Za-z0-9_-]{43}/);
      } finally {
        await again.stop();
      }
    } finally {
      blocker.close();
      await store.remove();
    }
  });

  test('an unreachable or missing PostgreSQL database: a message naming DATABASE_URL and the cause, never the password', async () => {
    const cases: [string[], string, RegExp][] = [
      [['migrate'], 'postgres://mindprint:s3cret-pw@127.0.0.1:1/mindprint', /127\.0\.0\.1:1\/mindprint.*ECONNREFUSED/],
      [['serve'], 'postgres://mindprint:s3cret-pw@127.0.0.1:1/mindprint', /ECONNREFUSED/],
      [['worker'], 'postgresql://mindprint:s3cret-pw@127.0.0.1:1/mindprint?sslmode=disable', /ECONNREFUSED/],
      [['keys', 'list'], 'postgres://mindprint:s3cret-pw@127.0.0.1:1/mindprint', /ECONNREFUSED/],
    ];
    if (onPostgres()) {
      const missing = new URL(process.env.TEST_DATABASE_URL!);
      missing.pathname = '/mp_no_such_database';
      missing.password = 's3cret-pw';
      cases.push([['migrate'], missing.toString(), /mp_no_such_database.*does not exist/]);
    }
    for (const [args, url, cause] of cases) {
      const r = await cli(args, { DATABASE_URL: url, PORT: '0' });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /DATABASE_URL/);
      assert.match(r.stderr, cause);
      assert.doesNotMatch(r.stderr + r.stdout, /s3cret-pw/);
      assert.doesNotMatch(r.stderr, NO_STACK);
    }
  });

  test('keys create/list/revoke work and are honoured by the server', { skip: !onPostgres() && 'PostgreSQL variant runs with TEST_DATABASE_URL' }, async () => {
    const s = await startTestServer();
    try {
      const env = { DATABASE_URL: s.config.databaseUrl! };
      const created = await cli(['keys', 'create', '--org', 'cli-org', '--user', 'cli@example.com', '--name', 'laptop', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const issued = JSON.parse(created.stdout);
      assert.deepEqual(Object.keys(issued).sort(), ['key', 'keyId', 'organizationId', 'userId']);
      assert.equal((await s.api('GET', '/minds', undefined, issued.key)).status, 200);
      const listed = await cli(['keys', 'list', '--org', 'cli-org'], env);
      assert.match(listed.stdout, new RegExp(issued.keyId));
      assert.doesNotMatch(listed.stdout, new RegExp(issued.key));
      assert.equal((await cli(['keys', 'revoke', issued.keyId], env)).code, 0);
      // Other processes see a revocation once their short key cache expires (2 s).
      let status = 200;
      for (let i = 0; i < 50 && status !== 401; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await s.api('GET', '/minds', undefined, issued.key)).status;
      }
      assert.equal(status, 401);
      const missing = await cli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], env);
      assert.equal(missing.code, 1);
    } finally {
      await s.close();
    }
  });

  test('on the embedded database, key commands started together take turns on the data dir', { skip: onPostgres() && 'embedded-database variant' }, async () => {
    const { dataDir, env, remove } = await freshStore();
    try {
      const runs = await Promise.all([1, 2, 3].map((i) => cli(['keys', 'create', '--org', 'acme', '--user', `u${i}@acme.test`, '--json'], env)));
      for (const r of runs) assert.equal(r.code, 0, r.stderr);
      const listed = await cli(['keys', 'list', '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(JSON.parse(listed.stdout).map((k: any) => k.id).sort(), runs.map((r) => JSON.parse(r.stdout).keyId).sort());
      assert.equal(await readLock(dataDir), null, 'released when done');
    } finally {
      await remove();
    }
  });

  test('on the embedded database, key commands refuse while a server runs and work when it is stopped', { skip: onPostgres() && 'embedded-database variant' }, async () => {
    const { dataDir, env, remove } = await freshStore();
    try {
      const created = await cli(['keys', 'create', '--org', 'acme', '--user', 'a@acme.test', '--expires-in-days', '7', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const issued = JSON.parse(created.stdout);
      const config = loadConfig({ PORT: '0', MINDPRINT_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
      const server = await serve(config, { printBootstrapKey: false });
      try {
        assert.equal(server.bootstrap, null, 'a key existed, so no bootstrap key');
        const res = await fetch(`${server.url}${config.basePath}/minds`, { headers: { authorization: `Bearer ${issued.key}` } });
        assert.equal(res.status, 200);
        const refused = await cli(['keys', 'list'], env);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /in use by a running Mindprint server/);
        // A second server on the same data dir is refused too.
        await assert.rejects(serve(config, { printBootstrapKey: false }), /in use/);
      } finally {
        await server.stop();
      }
      const listed = await cli(['keys', 'list', '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(JSON.parse(listed.stdout)[0].id, issued.keyId);
      const bad = await cli(['keys', 'create', '--org', 'acme', '--user', 'not-an-email'], env);
      assert.equal(bad.code, 1);
      // list --org and revoke on the embedded database too.
      const other = JSON.parse((await cli(['keys', 'create', '--org', 'globex', '--user', 'g@globex.test', '--json'], env)).stdout);
      const acme = await cli(['keys', 'list', '--org', 'acme'], env);
      assert.match(acme.stdout, new RegExp(`${issued.keyId} .*active .*acme +a@acme\\.test`));
      assert.doesNotMatch(acme.stdout, new RegExp(other.keyId));
      assert.equal((await cli(['keys', 'list', '--org', 'nobody'], env)).stdout, 'No API keys.\n');
      const revoked = await cli(['keys', 'revoke', issued.keyId], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stdout, new RegExp(`Revoked API key ${issued.keyId}`));
      assert.match((await cli(['keys', 'list', '--org', 'acme'], env)).stdout, /revoked/);
      assert.equal((await cli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], env)).code, 1);
      const restarted = await serve(config, { printBootstrapKey: false });
      try {
        const base = `${restarted.url}${config.basePath}`;
        assert.equal((await fetch(`${base}/minds`, { headers: { authorization: `Bearer ${issued.key}` } })).status, 401);
        assert.equal((await fetch(`${base}/minds`, { headers: { authorization: `Bearer ${other.key}` } })).status, 200);
      } finally {
        await restarted.stop();
      }
    } finally {
      await remove();
    }
  });
});
