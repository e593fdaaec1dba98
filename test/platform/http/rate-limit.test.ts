/**
 * Rate limits (issues 10, 21): per API key, and per client address for failed keys (on the API
 * and /mcp alike; requests without a key never count); 429 RATE_LIMITED with Retry-After and
 * RateLimit-* headers; nothing changes for a refused request; counters shared by replicas on
 * PostgreSQL.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { onPostgres, startTestServer, type TestServer } from '../../support/server.ts';

type Res = { status: number; body: any; headers: Headers };

function assertLimited(res: Res, what: string, limit: number): void {
  assert.equal(res.status, 429, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, 'RATE_LIMITED', what);
  assert.equal(res.body.error, 'Too Many Requests', what);
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `${what}: Retry-After ${res.headers.get('retry-after')}`);
  assert.equal(res.headers.get('ratelimit-limit'), String(limit), what);
  assert.equal(res.headers.get('ratelimit-remaining'), '0', what);
  assert.ok(Number(res.headers.get('ratelimit-reset')) >= 1, what);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/, what);
}

/**
 * Counters on PostgreSQL count fixed minutes (aligned to the clock, as every replica must): a
 * sequence that must fall in one window starts in a fresh one when the current one is nearly over.
 */
async function freshWindow(s: TestServer, key: string): Promise<number> {
  const res = await s.api('GET', '/usage', undefined, key);
  const reset = Number(res.headers.get('ratelimit-reset'));
  if (reset >= 20) return 1;
  await sleep(reset * 1000 + 200);
  return 0;
}

/** On PostgreSQL, waits for the next minute when this one has less than 15 s left (see freshWindow): a sequence of failures must fall in one window. */
async function roomInMinute(): Promise<void> {
  if (!onPostgres()) return;
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await sleep(left + 200);
}

describe('rate limits', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ MINDPRINT_RATE_LIMIT_PER_MINUTE: '5', MINDPRINT_AUTH_FAILURES_PER_MINUTE: '3', MINDPRINT_TRUST_PROXY: 'true' });
  });
  after(() => s.close());

  test('per API key: the requests over the limit are 429 with Retry-After and RateLimit-* headers, change nothing, and other keys go on', async () => {
    const a = await s.newKey('limited-org', 'a@example.com');
    const b = await s.newKey('limited-org', 'b@example.com');
    // The requests of the key already counted in this window.
    const used = onPostgres() ? await freshWindow(s, a.key) : 0;
    for (let i = used; i < 5; i++) {
      const res = await s.api('GET', '/minds', undefined, a.key);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get('ratelimit-limit'), '5');
      assert.equal(res.headers.get('ratelimit-remaining'), String(4 - i));
    }
    assertLimited(await s.api('GET', '/minds', undefined, a.key), 'the 6th GET', 5);
    const refused = await s.api('POST', '/minds', { name: 'Over The Limit' }, a.key);
    assertLimited(refused, 'a POST over the limit', 5);
    assert.match(refused.body.message, /this API key may make 5 requests per minute/);
    // The feature modules' routes (snapshots, simulations) are limited too.
    assertLimited(await s.api('GET', '/minds/6f1c2a8e-8d4b-4c1e-9a53-2f0a4f1e7c11/snapshots', undefined, a.key), 'a snapshots route', 5);
    assertLimited(await s.api('GET', '/simulations', undefined, a.key), 'a simulations route', 5);
    // Another key of the same organization has its own count; the refused POST created nothing.
    const other = await s.api('GET', '/minds', undefined, b.key);
    assert.equal(other.status, 200);
    assert.deepEqual(other.body.minds, []);
  });

  test('per client address, failed keys: over the limit every request from the address with a key is 429, other addresses go on', async () => {
    const good = await s.newKey('failing-org', 'c@example.com');
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const attacker = '203.0.113.7';
    await roomInMinute();
    const wrong = 'mp_' + 'w'.repeat(40);
    assert.equal((await s.api('GET', '/minds', undefined, wrong, from(attacker))).status, 401);
    assert.equal((await s.api('GET', '/minds', undefined, 'not a key', from(attacker))).status, 401, 'a malformed key counts as a failure');
    assert.equal((await s.api('GET', '/minds', undefined, 'short', from(attacker))).status, 401);
    const fourth = await s.api('GET', '/minds', undefined, wrong, from(attacker));
    assertLimited(fourth, 'the 4th failure', 3);
    assert.match(fourth.body.message, /Too many failed authentications from this address/);
    // From now on the address is refused before any key is looked up, a valid one included…
    assertLimited(await s.api('GET', '/minds', undefined, good.key, from(attacker)), 'a valid key from the blocked address', 3);
    assertLimited(await s.api('GET', '/no-such-route', undefined, wrong, from(attacker)), 'an unknown route from the blocked address', 3);
    // …(a request without a key is told to send one: it cannot guess anything)…
    const keyless = await s.api('GET', '/minds', undefined, null, from(attacker));
    assert.equal(keyless.status, 401);
    assert.equal(keyless.body.code, 'AUTH_FAILED');
    // …while another address, and the same key from it, are served.
    const elsewhere = await s.api('GET', '/minds', undefined, good.key, from('203.0.113.8'));
    assert.equal(elsewhere.status, 200);
    assert.equal((await s.api('GET', '/minds', undefined, wrong, from('203.0.113.8'))).status, 401);
  });

  test('requests without a key never lock an address out: keyless calls and CORS preflights behind a shared NAT leave valid keys alone', async () => {
    const good = await s.newKey('nat-org', 'nat@example.com');
    const nat = { 'x-forwarded-for': '198.51.100.20' };
    await roomInMinute();
    const preflight = { ...nat, origin: 'https://app.example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' };
    // Twenty times the limit: keyless requests, malformed headers that carry no key, and preflights (CORS is off here).
    for (let i = 0; i < 20; i++) {
      assert.equal((await s.api('GET', '/minds', undefined, null, nat)).status, 401);
      assert.equal((await s.api('GET', '/minds', undefined, null, { ...nat, authorization: i % 2 ? 'Basic dXNlcjpwdw==' : 'Bearer' })).status, 401);
      const options = await s.api('OPTIONS', '/minds', undefined, null, preflight);
      assert.notEqual(options.status, 429, JSON.stringify(options.body));
    }
    const res = await s.api('GET', '/minds', undefined, good.key, nat);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // A wrong key from the same address still counts.
    for (let i = 0; i < 3; i++) assert.equal((await s.api('GET', '/minds', undefined, 'mp_' + 'n'.repeat(40), nat)).status, 401);
    assertLimited(await s.api('GET', '/minds', undefined, 'mp_' + 'n'.repeat(40), nat), 'the 4th wrong key', 3);
  });

  test('/mcp shares the limit: wrong keys there count, and a blocked address is refused there and on the API', async () => {
    const good = await s.newKey('mcp-limited-org', 'mcp@example.com');
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } });
    const mcp = async (ip: string, key: string | null) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': ip };
      if (key) headers.authorization = `Bearer ${key}`;
      const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers, body: initialize });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    };
    const wrong = 'mp_' + 'm'.repeat(40);
    const guesser = '203.0.113.30';
    await roomInMinute();
    for (let i = 0; i < 3; i++) assert.equal((await mcp(guesser, wrong)).status, 401);
    assertLimited(await mcp(guesser, wrong), 'the 4th wrong key at /mcp', 3);
    assertLimited(await mcp(guesser, good.key), 'a valid key at /mcp from the blocked address', 3);
    assertLimited(await s.api('GET', '/minds', undefined, good.key, { 'x-forwarded-for': guesser }), 'the API from an address blocked through /mcp', 3);

    // Failures on the API block /mcp too; keyless requests to /mcp count for nothing.
    const other = '203.0.113.31';
    await roomInMinute();
    for (let i = 0; i < 10; i++) assert.equal((await mcp(other, null)).status, 401);
    assert.equal((await mcp(other, good.key)).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await s.api('GET', '/minds', undefined, wrong, { 'x-forwarded-for': other })).status, 401);
    assertLimited(await s.api('GET', '/minds', undefined, wrong, { 'x-forwarded-for': other }), 'the 4th wrong key on the API', 3);
    assertLimited(await mcp(other, good.key), '/mcp from an address blocked on the API', 3);
  });
});

describe('rate limits shared by replicas', { skip: onPostgres() ? false : 'set TEST_DATABASE_URL' }, () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const env = { MINDPRINT_RATE_LIMIT_PER_MINUTE: '10' };
    a = await startTestServer(env);
    b = await startTestServer(env, { replicaOf: a });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('requests to one replica count on the other', async () => {
    const k = await a.newKey('shared-org', 'shared@example.com');
    const used = await freshWindow(a, k.key);
    for (let i = used; i < 6; i++) assert.equal((await a.api('GET', '/minds', undefined, k.key)).status, 200);
    // Replica a adds its counts to the shared table within a flush interval: wait until it has.
    const shared = async () => {
      const { rows } = await a.ctx.database.execute("select coalesce(sum(count), 0)::int as n from rate_limit_counters where key like $1", [`key:${k.keyId}@%`]);
      return Number(rows[0]!.n);
    };
    while ((await shared()) < 6) await sleep(100);
    // Replica b starts from the shared count: 6 used, 4 left.
    for (let i = 6; i < 10; i++) {
      const res = await b.api('GET', '/minds', undefined, k.key);
      assert.equal(res.status, 200, `request ${i + 1}`);
      assert.equal(res.headers.get('ratelimit-remaining'), String(9 - i));
    }
    assertLimited(await b.api('GET', '/minds', undefined, k.key), 'the 11th request, on the other replica', 10);
  });
});
