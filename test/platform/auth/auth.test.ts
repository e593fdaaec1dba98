import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../support/server.ts';

describe('authentication and tenancy', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ MINDPRINT_BOOTSTRAP_KEY: 'mp_bootstrap-secret-for-tests-0001' });
  });
  after(() => s.close());

  test('the bootstrap key works and belongs to organization "default", user admin@localhost', async () => {
    const res = await s.api('GET', '/api-keys');
    assert.equal(res.status, 200);
    assert.equal(res.body.apiKeys.length, 1);
    assert.equal(res.body.apiKeys[0].name, 'bootstrap');
    const { sql } = await import('drizzle-orm');
    const { rowsOf } = await import('../../../src/platform/db/client.ts');
    const [owner] = rowsOf<{ org: string; email: string }>(
      await s.ctx.db.execute(sql`select o.name as org, u.email from api_keys k join users u on u.id = k.user_id join organizations o on o.id = k.organization_id where k.id = ${res.body.apiKeys[0].id}`),
    );
    assert.deepEqual(owner, { org: 'default', email: 'admin@localhost' });
    assert.equal(res.body.apiKeys[0].organizationId, (await s.api('POST', '/minds', { name: 'Owned' })).body.mind.organizationId);
    assert.equal(JSON.stringify(res.body).includes('mp_bootstrap-secret'), false, 'secrets are never listed');
  });

  test('missing, malformed, unknown keys are 401 with a JSON body', async () => {
    for (const [key, headers] of [
      [null, {}],
      [null, { authorization: 'Basic abc' }],
      [null, { authorization: 'Bearer' }],
      ['mp_unknown-key-000000000000000000000', {}],
      ['short', {}],
    ] as const) {
      const res = await s.api('GET', '/minds', undefined, key, headers as Record<string, string>);
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'AUTH_FAILED');
      assert.equal(typeof res.body.error, 'string');
      // RFC 6750: the challenge says how to authenticate, and whether the key sent was the problem.
      assert.match(res.headers.get('www-authenticate') ?? '', key ? /^Bearer realm="mindprint", error="invalid_token"$/ : /^Bearer realm="mindprint"$/);
    }
    // Unknown routes under the base path need a key too.
    const unknown = await s.api('GET', '/nothing-here', undefined, null);
    assert.equal(unknown.status, 401);
    assert.match(unknown.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await s.api('GET', '/nothing-here')).status, 404);
  });

  test('another organization’s mind answers 404, exactly like a missing one', async () => {
    const other = await s.newKey('acme', 'eve@acme.test');
    const mine = (await s.api('POST', '/minds', { name: 'Private Person', tags: 'secret' })).body.mind;
    for (const [method, path, body] of [
      ['GET', `/minds/${mine.id}`],
      ['PUT', `/minds/${mine.id}`, { name: 'stolen' }],
      ['DELETE', `/minds/${mine.id}`],
      ['PUT', `/minds/${mine.id}/tags`, { tagNames: ['x'] }],
    ] as const) {
      const res = await s.api(method, path, body, other.key);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.message, 'Mind not found');
    }
    assert.deepEqual((await s.api('GET', '/minds', undefined, other.key)).body.minds, []);
    assert.deepEqual((await s.api('GET', '/minds/search?query=private', undefined, other.key)).body.minds, []);
    assert.deepEqual((await s.api('GET', '/tags', undefined, other.key)).body.tags, []);
    const secretTag = (await s.api('GET', '/tags')).body.tags.find((t: any) => t.name === 'secret');
    assert.equal((await s.api('PUT', `/tags/${secretTag.id}`, { name: 'x' }, other.key)).status, 404);
    assert.equal((await s.api('DELETE', `/tags/${secretTag.id}`, undefined, other.key)).status, 404);
    // Same tag name in two organizations is fine.
    assert.equal((await s.api('POST', '/minds', { name: 'Theirs', tags: 'secret' }, other.key)).status, 200);
    assert.equal((await s.api('GET', `/minds/${mine.id}`)).body.mind.name, 'Private Person');
  });

  test('every key of an organization sees its minds', async () => {
    const a = await s.newKey('shared-org', 'a@shared.test');
    const b = await s.newKey('shared-org', 'b@shared.test');
    const mind = (await s.api('POST', '/minds', { name: 'Team Mind' }, a.key)).body.mind;
    assert.equal((await s.api('GET', `/minds/${mind.id}`, undefined, b.key)).status, 200);
  });

  test('keys created over HTTP work at once; revoked keys are 401 at once', async () => {
    const created = await s.api('POST', '/api-keys', { name: 'ci', expiresInDays: 30 });
    assert.equal(created.status, 200);
    assert.match(created.body.key, /^mp_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.body.apiKey.name, 'ci');
    assert.ok(created.body.apiKey.expiresAt);
    const k = created.body.key;
    assert.equal((await s.api('GET', '/minds', undefined, k)).status, 200);
    const revoked = await s.api('DELETE', `/api-keys/${created.body.apiKey.id}`);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.apiKey.revokedAt);
    const after = await s.api('GET', '/minds', undefined, k);
    assert.equal(after.status, 401);
    assert.match(after.body.message, /revoked/);
    assert.equal((await s.api('DELETE', '/api-keys/00000000-0000-4000-8000-000000000000')).status, 404);
    // Another user's key cannot be revoked through my key.
    const other = await s.newKey('default', 'someone@localhost');
    assert.equal((await s.api('DELETE', `/api-keys/${other.keyId}`)).status, 404);
    assert.equal((await s.api('GET', '/minds', undefined, other.key)).status, 200);
  });

  test('an expired key is 401', async () => {
    const { createKeyFor } = await import('../../../src/platform/auth/keys.ts');
    const issued = await createKeyFor(s.ctx.db, { org: 'default', user: 'old@localhost', expiresInDays: 1 });
    const { sql } = await import('drizzle-orm');
    await s.ctx.db.execute(sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${issued.keyId}`);
    const res = await s.api('GET', '/minds', undefined, issued.key);
    assert.equal(res.status, 401);
    assert.match(res.body.message, /expired/);
  });

  test('POST /api-keys needs no body: both fields are optional', async () => {
    const res = await fetch(`${s.base}/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${s.key}` } });
    assert.equal(res.status, 200, await res.clone().text());
    const created = await res.json();
    assert.match(created.key, /^mp_/);
    assert.equal(created.apiKey.name, null);
    assert.equal(created.apiKey.expiresAt, null);
    // An empty body sent as JSON is no body too.
    const empty = await s.api('POST', '/api-keys', '');
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    // A body that must have fields still says which one is missing.
    const mind = await s.api('POST', '/minds', '');
    assert.equal(mind.status, 400);
    assert.equal(mind.body.code, 'VALIDATION_FAILED');
    for (const k of [created.apiKey.id, empty.body.apiKey.id]) assert.equal((await s.api('DELETE', `/api-keys/${k}`)).status, 200);
  });

  test('bad POST /api-keys bodies are 400', async () => {
    assert.equal((await s.api('POST', '/api-keys', { expiresInDays: 0 })).status, 400);
    assert.equal((await s.api('POST', '/api-keys', { expiresInDays: '5' })).status, 400);
    assert.equal((await s.api('POST', '/api-keys', { name: '' })).status, 400);
  });

  test('keys are stored only as SHA-256 hashes', async () => {
    const { sql } = await import('drizzle-orm');
    const rows = (await s.ctx.db.execute(sql`select key_hash, prefix, name from api_keys`)) as any;
    for (const r of rows.rows) {
      assert.match(r.key_hash, /^[0-9a-f]{64}$/);
      // A generated key shows mp_ and 4 of its 43 random characters; the chosen 34-character
      // bootstrap secret no more than a sixth of itself.
      assert.equal(r.prefix.length, r.name === 'bootstrap' ? 5 : 7, r.name);
    }
  });
});

describe('first start without a bootstrap key', () => {
  test('creates a random key for the default organization', async () => {
    const s = await startTestServer();
    try {
      assert.ok(s.bootstrap);
      assert.match(s.bootstrap.key, /^mp_/);
      assert.equal((await s.api('GET', '/minds')).status, 200);
    } finally {
      await s.close();
    }
  });
});

describe('CORS (MINDPRINT_CORS_ORIGINS)', () => {
  const APP = 'https://app.example.org';
  const preflight = (origin: string, method = 'GET') => ({ origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' });

  test('off by default: no CORS header on any answer', async () => {
    const s = await startTestServer();
    try {
      const res = await s.api('GET', '/minds', undefined, undefined, { origin: APP });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
      const options = await s.api('OPTIONS', '/minds', undefined, null, preflight(APP));
      assert.equal(options.headers.get('access-control-allow-origin'), null);
      assert.equal(typeof options.body?.code, 'string', 'whatever the status, the JSON error contract');
    } finally {
      await s.close();
    }
  });

  test('listed origins: preflights answered before authentication (and never counted), answers readable by the page, /mcp admits them', async () => {
    const s = await startTestServer({ MINDPRINT_CORS_ORIGINS: `${APP}, http://localhost:5173`, MINDPRINT_AUTH_FAILURES_PER_MINUTE: '3' });
    try {
      // Far more preflights than the failed-key limit: each one 204 with the CORS answer, no key needed.
      for (let i = 0; i < 10; i++) {
        const res = await s.api('OPTIONS', '/minds', undefined, null, preflight(APP, 'POST'));
        assert.equal(res.status, 204);
        assert.equal(res.headers.get('access-control-allow-origin'), APP);
        assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
        assert.match(res.headers.get('access-control-allow-headers') ?? '', /authorization/);
        assert.equal(res.headers.get('access-control-allow-credentials'), null, 'keys are headers, not cookies');
      }
      const read = await s.api('GET', '/minds', undefined, undefined, { origin: 'http://localhost:5173' });
      assert.equal(read.status, 200, 'the valid key is not blocked by the preflights');
      assert.equal(read.headers.get('access-control-allow-origin'), 'http://localhost:5173');
      assert.match(read.headers.get('access-control-expose-headers') ?? '', /ratelimit-remaining/);
      // A 401 is readable by the page too (it must know to ask for a key).
      const keyless = await s.api('GET', '/minds', undefined, null, { origin: APP });
      assert.equal(keyless.status, 401);
      assert.equal(keyless.headers.get('access-control-allow-origin'), APP);

      // An origin not listed gets no CORS answer, so the browser keeps the response from it.
      const foreign = await s.api('OPTIONS', '/minds', undefined, null, preflight('https://evil.example'));
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);

      // /mcp: its preflight is answered too, a listed origin may call it, another is refused.
      const mcpPreflight = await fetch(`${s.url}/mcp`, { method: 'OPTIONS', headers: preflight(APP, 'POST') });
      assert.equal(mcpPreflight.status, 204);
      assert.equal(mcpPreflight.headers.get('access-control-allow-origin'), APP);
      const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '0' } } });
      const mcp = (origin: string) =>
        fetch(`${s.url}/mcp`, { method: 'POST', headers: { origin, authorization: `Bearer ${s.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: initialize });
      const admitted = await mcp(APP);
      assert.equal(admitted.status, 200, await admitted.clone().text());
      assert.equal(admitted.headers.get('access-control-allow-origin'), APP);
      const refused = await mcp('https://evil.example');
      assert.equal(refused.status, 403);
      assert.equal((await refused.json()).code, 'FORBIDDEN');
    } finally {
      await s.close();
    }
  });
});
