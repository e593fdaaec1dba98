/**
 * Rate limits (issue 10): per API key, and per client address for failed authentication; 429
 * RATE_LIMITED with Retry-After and RateLimit-* headers; nothing changes for a refused request;
 * counters shared by replicas on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { onPostgres, startTestServer, type TestServer } from '../support/server.ts';

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

  test('per client address, failed authentications: over the limit every request from the address is 429, other addresses go on', async () => {
    const good = await s.newKey('failing-org', 'c@example.com');
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const attacker = '203.0.113.7';
    const wrong = 'mp_' + 'w'.repeat(40);
    assert.equal((await s.api('GET', '/minds', undefined, wrong, from(attacker))).status, 401);
    assert.equal((await s.api('GET', '/minds', undefined, null, from(attacker))).status, 401, 'a missing key counts as a failure');
    assert.equal((await s.api('GET', '/minds', undefined, 'not a key', from(attacker))).status, 401);
    const fourth = await s.api('GET', '/minds', undefined, wrong, from(attacker));
    assertLimited(fourth, 'the 4th failure', 3);
    assert.match(fourth.body.message, /Too many failed authentications from this address/);
    // From now on the address is refused before any key is looked up, a valid one included…
    assertLimited(await s.api('GET', '/minds', undefined, good.key, from(attacker)), 'a valid key from the blocked address', 3);
    assertLimited(await s.api('GET', '/no-such-route', undefined, wrong, from(attacker)), 'an unknown route from the blocked address', 3);
    // …while another address, and the same key from it, are served.
    const elsewhere = await s.api('GET', '/minds', undefined, good.key, from('203.0.113.8'));
    assert.equal(elsewhere.status, 200);
    assert.equal((await s.api('GET', '/minds', undefined, wrong, from('203.0.113.8'))).status, 401);
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
