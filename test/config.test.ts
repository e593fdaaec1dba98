/**
 * Settings are validated once at start: every bad value stops start-up with a message naming the
 * variable (the CLI prints it and exits 1; test/clients/cli/serve.test.ts checks that path end to end).
 */
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';

// Never created (loadConfig only reads settings), but unique per run all the same, like every path of the tests.
const BASE = { MINDPRINT_DATA_DIR: path.join(os.tmpdir(), `mp-config-test-${process.pid}-${Date.now().toString(36)}`) };

function refused(env: Record<string, string>, variable: string): void {
  assert.throws(
    () => loadConfig({ ...BASE, ...env }),
    (err: unknown) => err instanceof ConfigError && err.message.includes(variable),
    `${JSON.stringify(env)} names ${variable}`,
  );
}

test('defaults: port 3000 on 127.0.0.1, embedded database, /api/svc, info logs', () => {
  const c = loadConfig(BASE);
  assert.equal(c.port, 3000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.databaseUrl, null);
  assert.equal(c.basePath, '/api/svc');
  assert.equal(c.logLevel, 'info');
  assert.equal(c.bootstrapKey, null);
});

test('a bad value of each setting names its variable', () => {
  refused({ PORT: '70000' }, 'PORT');
  refused({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
  refused({ MINDPRINT_BASE_PATH: 'api/svc' }, 'MINDPRINT_BASE_PATH');
  refused({ MINDPRINT_BASE_PATH: '/api/svc/' }, 'MINDPRINT_BASE_PATH');
  refused({ DATABASE_URL: 'mysql://root@localhost/db' }, 'DATABASE_URL');
  refused({ MINDPRINT_STORAGE_URL: 'https://bucket.example.com' }, 'MINDPRINT_STORAGE_URL');
  refused({ MINDPRINT_MAX_UPLOAD_MB: '0' }, 'MINDPRINT_MAX_UPLOAD_MB');
});

test('a bootstrap key the authenticator would refuse stops start-up instead of locking everyone out', () => {
  refused({ MINDPRINT_BOOTSTRAP_KEY: 'short-secret' }, 'MINDPRINT_BOOTSTRAP_KEY');
  refused({ MINDPRINT_BOOTSTRAP_KEY: 'correct horse battery staple' }, 'MINDPRINT_BOOTSTRAP_KEY');
  refused({ MINDPRINT_BOOTSTRAP_KEY: 'clé-secrète-du-démarrage-0001' }, 'MINDPRINT_BOOTSTRAP_KEY');
  refused({ MINDPRINT_BOOTSTRAP_KEY: 'k'.repeat(257) }, 'MINDPRINT_BOOTSTRAP_KEY');
  assert.equal(loadConfig({ ...BASE, MINDPRINT_BOOTSTRAP_KEY: 'mp_0123456789abcdef' }).bootstrapKey, 'mp_0123456789abcdef');
});

test('postgresql:// URLs and a base path for clients of the hosted API are accepted', () => {
  const c = loadConfig({ ...BASE, DATABASE_URL: 'postgresql://u@db:5432/mindprint', MINDPRINT_BASE_PATH: '/api/public/v1' });
  assert.equal(c.databaseUrl, 'postgresql://u@db:5432/mindprint');
  assert.equal(c.basePath, '/api/public/v1');
});

test('CORS origins (MINDPRINT_CORS_ORIGINS): off by default, exact origins normalised as browsers send them, no * or paths', () => {
  assert.deepEqual(loadConfig(BASE).corsOrigins, []);
  assert.deepEqual(loadConfig({ ...BASE, MINDPRINT_CORS_ORIGINS: 'https://App.Example.org/, http://localhost:5173,https://x.example:443' }).corsOrigins, [
    'https://app.example.org',
    'http://localhost:5173',
    'https://x.example',
  ]);
  for (const bad of ['*', 'app.example.org', 'https://app.example.org/path', 'ftp://files.example', 'https://u:p@app.example.org', 'https://app.example.org?x=1']) {
    refused({ MINDPRINT_CORS_ORIGINS: bad }, 'MINDPRINT_CORS_ORIGINS');
  }
});
