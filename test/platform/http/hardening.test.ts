/**
 * Protocol-level answers of the API: every response carries nosniff (and no-store unless the
 * route chose its caching), errors Node's HTTP parser raises before routing get our JSON error.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../support/server.ts';

/** Raw bytes to the server, the whole answer back (the server closes the connection). */
function rawExchange(url: string, request: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('HTTP hardening', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.close());

  test('API answers, errors included, are Cache-Control: no-store and X-Content-Type-Options: nosniff', async () => {
    const answers = {
      ok: await fetch(`${s.base}/minds`, { headers: { authorization: `Bearer ${s.key}` } }),
      created: await fetch(`${s.base}/minds`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: '{"name":"Ada"}' }),
      unauthenticated: await fetch(`${s.base}/minds`),
      invalid: await fetch(`${s.base}/minds/not-a-uuid`, { headers: { authorization: `Bearer ${s.key}` } }),
      noRoute: await fetch(`${s.base}/nowhere`, { headers: { authorization: `Bearer ${s.key}` } }),
      // Raised by the router before any route or hook of the API scope.
      tooLongParam: await fetch(`${s.base}/minds/${'a'.repeat(5000)}`, { headers: { authorization: `Bearer ${s.key}` } }),
      badUrl: await fetch(`${s.base}/minds/%E0%A4%A`, { headers: { authorization: `Bearer ${s.key}` } }),
      openapi: await fetch(`${s.base}/openapi.json`),
      health: await fetch(`${s.url}/healthz`),
      upload: await fetch(`${s.url}/uploads/not-a-token`, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } }),
    };
    for (const [what, res] of Object.entries(answers)) {
      assert.equal(res.headers.get('cache-control'), 'no-store', `${what} ${res.status}`);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', what);
      await res.arrayBuffer();
    }
    assert.deepEqual(Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, r.status])), {
      ok: 200, created: 200, unauthenticated: 401, invalid: 400, noRoute: 404, tooLongParam: 414, badUrl: 400, openapi: 200, health: 200, upload: 403,
    });
  });

  test('static files keep the caching their route chose, and get nosniff', async () => {
    const res = await fetch(`${s.url}/docs/static/swagger-ui.css`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(res.headers.get('cache-control') && res.headers.get('cache-control') !== 'no-store', String(res.headers.get('cache-control')));
    // The dashboard's pages revalidate (no-cache), as src/clients/dashboard/routes.ts says.
    const page = await fetch(`${s.url}/app/`);
    await page.arrayBuffer();
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  });

  test('a URL over Node’s header limit is 431 HEADERS_TOO_LARGE with our JSON error', async () => {
    const res = await fetch(`${s.base}/minds/search?query=${'a'.repeat(20_000)}`, { headers: { authorization: `Bearer ${s.key}` } });
    assert.equal(res.status, 431);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message']);
    assert.equal(body.code, 'HEADERS_TOO_LARGE');
    assert.equal(body.error, 'Request Header Fields Too Large');
    assert.match(body.message, /16 KB/);
    // So do many headers, and the server still answers afterwards.
    const many = await fetch(`${s.base}/minds`, { headers: { authorization: `Bearer ${s.key}`, 'x-padding': 'p'.repeat(20_000) } });
    assert.equal(many.status, 431);
    assert.equal((await many.json()).code, 'HEADERS_TOO_LARGE');
    assert.equal((await fetch(`${s.base}/minds`, { headers: { authorization: `Bearer ${s.key}` } })).status, 200);
  });

  test('bytes that are not HTTP get a 400 VALIDATION_FAILED JSON error, not Fastify’s', async () => {
    const answer = await rawExchange(s.url, 'NOT HTTP AT ALL\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.statusCode, undefined);
  });
});
