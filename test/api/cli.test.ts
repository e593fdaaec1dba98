import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/server.ts';
import { onPostgres, startTestServer } from '../support/server.ts';

const BIN = fileURLToPath(new URL('../../bin/mindprint.js', import.meta.url));
const run = promisify(execFile);

async function cli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

describe('mindprint CLI', () => {
  test('--help on every command', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['migrate', '--help'], ['keys', '--help'], ['keys', 'create', '--help'], ['keys', 'list', '--help'], ['keys', 'revoke', '--help']]) {
      const r = await cli(args, {});
      assert.equal(r.code, 0, args.join(' '));
      assert.match(r.stdout, /Usage: mindprint/);
    }
  });

  test('a bad setting stops start-up with a message naming the variable', async () => {
    const r = await cli(['migrate'], { PORT: 'eighty' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /PORT/);
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

  test('on the embedded database, key commands refuse while a server runs and work when it is stopped', { skip: onPostgres() && 'embedded-database variant' }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-cli-'));
    const env = { MINDPRINT_DATA_DIR: dataDir };
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
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
