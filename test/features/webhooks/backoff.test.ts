/**
 * The schedule of attempts, the disabling of an endpoint failing for days, duplicate jobs and the
 * check at delivery time (DNS rebinding), with a clock of the test's own: the server runs no
 * worker here, the test runs each attempt (attemptDelivery, what the job runs) and reads the jobs
 * queued in pg-boss. The receiver is on loopback; the refused targets are never connected to.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { checkTarget, parseTargetUrl, refusedRange, TargetError } from '../../../src/features/webhooks/target.ts';
import { attemptDelivery, sweepDeliveries } from '../../../src/features/webhooks/jobs.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, nextAttemptAt } from '../../../src/features/webhooks/schedule.ts';
import { AfterCommit } from '../../../src/platform/events/index.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const rows = async (s: TestServer, q: ReturnType<typeof sql>) => ((await s.ctx.db.execute(q)) as any).rows as any[];
const MIND = '6f1c2a8e-8d4b-4c1e-9a53-2f0a4f1e7c11';

describe('webhook attempts, backoff and disabling', () => {
  let s: TestServer;
  let rx: Receiver;
  let orgId: string;
  before(async () => {
    s = await startTestServer({ MINDPRINT_WEBHOOKS_ALLOW_PRIVATE: 'true', MINDPRINT_IN_PROCESS_WORKER: 'false' });
    rx = await startReceiver();
    orgId = (await rows(s, sql`select id from organizations where name = 'default'`))[0].id;
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  async function emitDeleted(): Promise<void> {
    const later = new AfterCommit();
    await s.ctx.db.transaction((tx) => s.ctx.events.emit(tx, 'mind.deleted', { organizationId: orgId, mindId: MIND }, later));
    later.run();
  }
  const deliveryOf = async (webhookId: string) => (await rows(s, sql`select * from webhook_deliveries where webhook_id = ${webhookId} order by created_at desc`))[0];
  const jobsOf = async (deliveryId: string) =>
    rows(s, sql`select data, start_after from pgboss.job where name = 'webhook-deliver' and data->>'deliveryId' = ${deliveryId} order by (data->>'attempt')::int`);

  test('the subscriber writes the delivery and its job in the event transaction; a rolled-back change leaves neither', async () => {
    const { webhook } = (await s.api('POST', '/webhooks', { url: rx.url, events: ['mind.deleted'] })).body;
    await assert.rejects(
      s.ctx.db.transaction(async (tx) => {
        await s.ctx.events.emit(tx, 'mind.deleted', { organizationId: orgId, mindId: MIND }, new AfterCommit());
        throw new Error('the state change failed');
      }),
      /the state change failed/,
    );
    assert.equal(await deliveryOf(webhook.id), undefined);
    await emitDeleted();
    const d = await deliveryOf(webhook.id);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempts, 0);
    assert.match(d.message_id, /^msg_[0-9a-f]{32}$/);
    assert.deepEqual((await jobsOf(d.id)).map((j) => j.data.attempt), [0]);
    await s.api('DELETE', `/webhooks/${webhook.id}`);
  });

  test('failed attempts follow the schedule (about 27 h), reuse the webhook-id, and end failed; a duplicate job sends nothing', async () => {
    const { webhook, secret } = (await s.api('POST', '/webhooks', { url: rx.url, events: ['mind.deleted'] })).body;
    await emitDeleted();
    const d = await deliveryOf(webhook.id);
    rx.answer = () => ({ status: 500 });
    const start = rx.received.length;
    let now = Date.parse('2030-01-01T00:00:00Z');
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const row = await attemptDelivery(s.ctx, { deliveryId: d.id, attempt }, { now: () => new Date(now), random: () => 0.5 });
      assert.ok(row, `attempt ${attempt + 1} recorded`);
      assert.equal(row.attempts, attempt + 1);
      assert.equal(row.statusCode, 500);
      // A second run of the same job (taken for lost) does nothing.
      assert.equal(await attemptDelivery(s.ctx, { deliveryId: d.id, attempt }, { now: () => new Date(now) }), null);
      if (attempt < MAX_ATTEMPTS - 1) {
        const delay = RETRY_DELAYS_SECONDS[attempt]! * 1000;
        assert.equal(row.status, 'pending');
        assert.equal(row.nextAttemptAt!.getTime(), now + delay);
        const jobs = await jobsOf(d.id);
        assert.equal(jobs.length, attempt + 2, 'one job per attempt');
        assert.equal(new Date(jobs.at(-1).start_after).getTime(), now + delay, 'queued for its time');
        now += delay;
      } else {
        assert.equal(row.status, 'failed');
        assert.equal(row.nextAttemptAt, null);
      }
    }
    assert.ok(now - Date.parse('2030-01-01T00:00:00Z') > 24 * 3600_000, 'the schedule covers about a day');
    const got = rx.received.slice(start);
    assert.equal(got.length, MAX_ATTEMPTS);
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 1, 'every attempt has the same webhook-id');
    assert.equal(new Set(got.map((r) => r.body)).size, 1, 'and the same body');
    for (const r of got) assert.equal(rx.verify(r, secret).type, 'mind.deleted');
    // Failing for ~27 h is not yet long enough to disable.
    const hook = (await s.api('GET', `/webhooks/${webhook.id}`)).body.webhook;
    assert.equal(hook.status, 'active');
    assert.equal(hook.failingSince, '2030-01-01T00:00:00.000Z');
    await s.api('DELETE', `/webhooks/${webhook.id}`);
  });

  test('the delays are jittered ±10 %, and there is no attempt after the last', () => {
    const t = new Date('2030-01-01T00:00:00Z');
    assert.equal(nextAttemptAt(1, t, () => 0)!.getTime() - t.getTime(), 4_500);
    assert.equal(nextAttemptAt(1, t, () => 1)!.getTime() - t.getTime(), 5_500);
    assert.equal(nextAttemptAt(MAX_ATTEMPTS, t), null);
  });

  test('an endpoint failing for 5 days is disabled and says why; it gets no more messages until enabled again', async () => {
    const { webhook } = (await s.api('POST', '/webhooks', { url: rx.url, events: ['mind.deleted'] })).body;
    rx.answer = () => ({ status: 502 });
    const t0 = Date.parse('2030-02-01T00:00:00Z');
    await emitDeleted();
    const first = await deliveryOf(webhook.id);
    await attemptDelivery(s.ctx, { deliveryId: first.id, attempt: 0 }, { now: () => new Date(t0) });
    await emitDeleted();
    const late = await deliveryOf(webhook.id);
    await attemptDelivery(s.ctx, { deliveryId: late.id, attempt: 0 }, { now: () => new Date(t0 + 5 * 86_400_000 + 60_000) });
    const hook = (await s.api('GET', `/webhooks/${webhook.id}`)).body.webhook;
    assert.equal(hook.status, 'disabled');
    assert.match(hook.disabledReason, /^Every delivery failed for 5 days \(last: answered 502\)/);
    assert.equal(hook.disabledAt, new Date(t0 + 5 * 86_400_000 + 60_000).toISOString());

    // Its pending retries are dropped when due, and new events queue nothing for it.
    const sent = rx.received.length;
    assert.equal(await attemptDelivery(s.ctx, { deliveryId: first.id, attempt: 1 }), null);
    assert.equal((await deliveryOf(webhook.id)).status, 'pending', 'the late one waits for its own retry');
    const abandoned = (await rows(s, sql`select status, error from webhook_deliveries where id = ${first.id}`))[0];
    assert.deepEqual(abandoned, { status: 'failed', error: 'not delivered: the webhook is disabled' });
    const before = (await rows(s, sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${webhook.id}`))[0].n;
    await emitDeleted();
    assert.equal((await rows(s, sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${webhook.id}`))[0].n, before);
    assert.equal(rx.received.length, sent, 'nothing sent');

    // Enabled again: healthy, and messages flow.
    const enabled = (await s.api('PATCH', `/webhooks/${webhook.id}`, { status: 'active' })).body.webhook;
    assert.deepEqual([enabled.status, enabled.disabledReason, enabled.failingSince], ['active', null, null]);
    await emitDeleted();
    rx.answer = () => ({ status: 200 });
    const fresh = await deliveryOf(webhook.id);
    const ok = await attemptDelivery(s.ctx, { deliveryId: fresh.id, attempt: 0 });
    assert.equal(ok!.status, 'succeeded');
    await s.api('DELETE', `/webhooks/${webhook.id}`);
  });

  test('at delivery the host is resolved again and checked (DNS rebinding); the checked address is the one connected to', async () => {
    // Stored directly: registration would resolve the name with the system resolver.
    const [hook] = await rows(s, sql`insert into webhooks (organization_id, url, events, secret)
      values (${orgId}, ${`http://rebind.example:${rx.port}/hook`}, ${'{mind.deleted}'}, ${`whsec_${Buffer.alloc(32, 7).toString('base64')}`}) returning id`);
    await emitDeleted();
    const d = await deliveryOf(hook.id);
    const strict = { ...s.ctx, config: { ...s.ctx.config, webhooksAllowPrivate: false } };
    const sent = rx.received.length;
    let asked = 0;
    const refused = await attemptDelivery(strict, { deliveryId: d.id, attempt: 0 }, {
      resolve: async () => {
        asked++;
        return [{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.7', family: 4 }];
      },
    });
    assert.equal(asked, 1);
    assert.equal(refused!.status, 'pending');
    assert.match(refused!.error!, /^refused: url's host rebind\.example resolves to 10\.0\.0\.7, a private address/);
    assert.equal(refused!.statusCode, null);
    assert.equal(rx.received.length, sent, 'nothing was connected to');
    // Allowed private targets: the socket goes to the address the check saw, not to a new lookup.
    const allowed = await attemptDelivery(s.ctx, { deliveryId: d.id, attempt: 1 }, { resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    assert.equal(allowed!.status, 'succeeded', JSON.stringify(allowed));
    assert.equal(rx.received.at(-1)!.headers.host, `rebind.example:${rx.port}`);
    await s.api('DELETE', `/webhooks/${hook.id}`);
  });

  test('a receiver that does not answer in time fails the attempt (timeout), without holding the worker', async () => {
    rx.answer = () => ({ status: 200 });
    const { webhook } = (await s.api('POST', '/webhooks', { url: rx.url, events: ['mind.deleted'] })).body;
    // A listener that accepts and never answers.
    const net = await import('node:net');
    const silent = net.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    await s.api('PATCH', `/webhooks/${webhook.id}`, { url: `http://127.0.0.1:${port}/slow` });
    await emitDeleted();
    const d = await deliveryOf(webhook.id);
    const t = Date.now();
    const row = await attemptDelivery(s.ctx, { deliveryId: d.id, attempt: 0 }, { timeoutMs: 300 });
    assert.ok(Date.now() - t < 5_000);
    assert.equal(row!.error, 'timed out after 0.3 s');
    silent.close();
    await s.api('DELETE', `/webhooks/${webhook.id}`);
  });

  test('finished deliveries older than 30 days are swept', async () => {
    const { webhook } = (await s.api('POST', '/webhooks', { url: rx.url, events: ['mind.deleted'] })).body;
    await emitDeleted();
    const d = await deliveryOf(webhook.id);
    await attemptDelivery(s.ctx, { deliveryId: d.id, attempt: 0 });
    assert.equal(await sweepDeliveries(s.ctx, new Date(Date.now() + 29 * 86_400_000)), 0);
    assert.ok((await sweepDeliveries(s.ctx, new Date(Date.now() + 31 * 86_400_000))) >= 1);
    assert.equal(await deliveryOf(webhook.id), undefined);
    await s.api('DELETE', `/webhooks/${webhook.id}`);
  });
});

describe('webhook targets (no connection)', () => {
  test('MINDPRINT_WEBHOOKS_ALLOW_PRIVATE: off by default, true/false, anything else names the variable', () => {
    const base = { MINDPRINT_DATA_DIR: '/tmp/mp-config-test' };
    assert.equal(loadConfig(base).webhooksAllowPrivate, false);
    assert.equal(loadConfig({ ...base, MINDPRINT_WEBHOOKS_ALLOW_PRIVATE: 'true' }).webhooksAllowPrivate, true);
    assert.throws(() => loadConfig({ ...base, MINDPRINT_WEBHOOKS_ALLOW_PRIVATE: 'maybe' }), (e: unknown) => e instanceof ConfigError && e.message.includes('MINDPRINT_WEBHOOKS_ALLOW_PRIVATE'));
  });

  test('address classification by ipaddr.js: public unicast only', () => {
    for (const a of ['8.8.8.8', '93.184.215.14', '2606:4700::1111']) assert.equal(refusedRange(a), null, a);
    for (const [a, r] of [
      ['127.0.0.1', 'loopback'], ['10.0.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.0.1', 'private'],
      ['169.254.169.254', 'link-local (cloud metadata)'], ['100.64.0.1', 'carrier-grade NAT'], ['224.0.0.251', 'multicast'],
      ['255.255.255.255', 'broadcast'], ['0.0.0.0', 'unspecified'], ['192.0.2.1', 'reserved'], ['::1', 'loopback'], ['::', 'unspecified'],
      ['fe80::1%eth0', 'link-local (cloud metadata)'], ['fc00::1', 'unique-local (private)'], ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:169.254.169.254', 'link-local (cloud metadata)'],
      ['64:ff9b::7f00:1', 'NAT64'], ['2002:7f00:1::', '6to4'], ['2001:db8::1', 'reserved'], ['not-an-ip', 'invalid'],
    ] as const) assert.equal(refusedRange(a), r, a);
  });

  test('a name is refused if any address it resolves to is refused; an unresolvable name is refused', async () => {
    const url = parseTargetUrl('https://hooks.example.org/x');
    const ok = await checkTarget(url, { allowPrivate: false, resolve: async () => [{ address: '93.184.215.14', family: 4 }] });
    assert.deepEqual(ok.addresses, [{ address: '93.184.215.14', family: 4 }]);
    await assert.rejects(checkTarget(url, { allowPrivate: false, resolve: async () => [{ address: '93.184.215.14', family: 4 }, { address: '::ffff:127.0.0.1', family: 6 }] }), TargetError);
    await assert.rejects(checkTarget(url, { allowPrivate: false, resolve: async () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' })) }), /does not resolve \(ENOTFOUND\)/);
    const allowed = await checkTarget(parseTargetUrl('http://[::1]:9/'), { allowPrivate: true });
    assert.deepEqual(allowed.addresses, [{ address: '::1', family: 6 }]);
  });
});
