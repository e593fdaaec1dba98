/**
 * How the API process serves the dashboard build (src/clients/dashboard/routes.ts), on a bare Fastify with a
 * hand-made web/dist: redirects, the base path written into index.html, cache headers, CSP,
 * 404s for missing files, and the page shown when there is no build.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DIST_DIR, webRoutes } from '../../../src/clients/dashboard/routes.ts';

const INDEX = `<!doctype html><html><head><meta name="mindprint-base-path" content="/api/svc" /><script type="module" src="/app/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>`;

let dir: string;
let app: FastifyInstance;
let bare: FastifyInstance;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-web-'));
  await mkdir(path.join(dir, 'dist', 'assets'), { recursive: true });
  await writeFile(path.join(dir, 'dist', 'index.html'), INDEX);
  await writeFile(path.join(dir, 'dist', 'assets', 'index-abc123.js'), 'console.log("dashboard")');
  await writeFile(path.join(dir, 'dist', 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(dir, 'secret.txt'), 'outside the build');
  app = Fastify();
  await app.register((scope) => webRoutes(scope, { basePath: '/api/public/v1', distDir: path.join(dir, 'dist') }));
  bare = Fastify();
  await bare.register((scope) => webRoutes(scope, { basePath: '/api/svc', distDir: path.join(dir, 'nothing-built') }));
});

after(async () => {
  await app?.close();
  await bare?.close();
  await rm(dir, { recursive: true, force: true });
});

test('/ and /app redirect to /app/', async () => {
  for (const url of ['/', '/app']) {
    const res = await app.inject({ url });
    assert.equal(res.statusCode, 302, url);
    assert.equal(res.headers.location, '/app/');
  }
});

test('index.html carries the server base path, is never cached and has a CSP', async () => {
  for (const url of ['/app/', '/app/index.html', '/app/minds/6f1c2a8e-8d4b-4c1e-9a53-2f0a4f1e7c11/profile', '/app/usage']) {
    const res = await app.inject({ url });
    assert.equal(res.statusCode, 200, url);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(res.body, /<meta name="mindprint-base-path" content="\/api\/public\/v1" \/>/);
    const csp = res.headers['content-security-policy'] as string;
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  }
});

test('hashed assets are immutable; other files revalidate', async () => {
  const js = await app.inject({ url: '/app/assets/index-abc123.js' });
  assert.equal(js.statusCode, 200);
  assert.equal(js.body, 'console.log("dashboard")');
  assert.match(js.headers['content-type'] as string, /javascript/);
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  const icon = await app.inject({ url: '/app/favicon.svg' });
  assert.equal(icon.statusCode, 200);
  assert.match(icon.headers['content-type'] as string, /^image\/svg\+xml/);
  assert.equal(icon.headers['cache-control'], 'no-cache');
  // A conditional request gets a 304.
  const again = await app.inject({ url: '/app/assets/index-abc123.js', headers: { 'if-none-match': js.headers.etag as string } });
  assert.equal(again.statusCode, 304);
});

test('a file written after start is served (a rebuild needs no restart)', async () => {
  await writeFile(path.join(dir, 'dist', 'assets', 'index-def456.js'), 'console.log("rebuilt")');
  const res = await app.inject({ url: '/app/assets/index-def456.js' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, 'console.log("rebuilt")');
});

test('missing files answer 404, not the app; nothing outside the build is reachable', async () => {
  for (const url of ['/app/assets/index-old999.js', '/app/logo.png', '/app/assets/', '/app/../secret.txt', '/app/%2e%2e/secret.txt', '/app/..%2fsecret.txt', '/app/assets/..%2f..%2fsecret.txt']) {
    const res = await app.inject({ url });
    assert.notEqual(res.statusCode, 200, url);
    assert.doesNotMatch(res.body, /outside the build|<div id="root">/, url);
  }
  const res = await app.inject({ url: '/app/assets/index-old999.js' });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().code, 'NOT_FOUND');
});

test('without a build, /app/ says how to make one', async () => {
  for (const url of ['/app/', '/app/minds/x']) {
    const res = await bare.inject({ url });
    assert.equal(res.statusCode, 503, url);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /has not been built/);
    assert.match(res.body, /npm run build:web/);
  }
});

test("by default the dashboard is served from the checkout's web/dist (where npm run build:web writes it)", () => {
  assert.equal(DEFAULT_DIST_DIR, fileURLToPath(new URL('../../../web/dist/', import.meta.url)));
});
