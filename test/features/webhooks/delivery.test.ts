/**
 * Delivery end to end, with the server's own worker, to a real HTTP receiver on loopback (the only
 * place tests connect to: MINDPRINT_WEBHOOKS_ALLOW_PRIVATE=true). Each message is verified with
 * the published `standardwebhooks` library. Events: snapshot.completed from a real upload, and
 * every other type emitted synthetically through ctx.events.emit in a transaction, as a state
 * change does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { AfterCommit, EVENT_TYPES, type DomainEvents, type EventType } from '../../../src/platform/events/index.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { startReceiver, type Receiver } from './receiver.ts';

async function emit<K extends EventType>(s: TestServer, type: K, data: DomainEvents[K]): Promise<void> {
  const later = new AfterCommit();
  await s.ctx.db.transaction((tx) => s.ctx.events.emit(tx, type, data, later));
  later.run();
}

async function waitForDelivery(s: TestServer, webhookId: string, done: (d: any) => boolean, timeoutMs = 30_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await s.api('GET', `/webhooks/${webhookId}/deliveries?limit=100`)).body.deliveries;
    if (list.length && list.every(done)) return list;
    if (Date.now() > deadline) throw new Error(`deliveries not finished: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhook delivery', () => {
  let s: TestServer;
  let rx: Receiver;
  let orgId: string;
  before(async () => {
    s = await startTestServer({ MINDPRINT_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    rx = await startReceiver();
    const [row] = ((await s.ctx.db.execute(sql`select id from organizations where name = 'default'`)) as any).rows;
    orgId = row.id;
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  test('POST /webhooks/{id}/test delivers a signed webhook.test message now and answers with its outcome', async () => {
    const { webhook, secret } = (await s.api('POST', '/webhooks', { url: rx.url, events: ['mind.deleted'] })).body;
    rx.answer = () => ({ status: 204 });
    const ok = await s.api('POST', `/webhooks/${webhook.id}/test`);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.delivery.status, 'succeeded');
    assert.equal(ok.body.delivery.statusCode, 204);
    assert.equal(ok.body.delivery.event, 'webhook.test');
    assert.equal(ok.body.delivery.test, true);
    assert.equal(typeof ok.body.delivery.durationMs, 'number');
    const r = rx.received.at(-1)!;
    const payload = rx.verify(r, secret);
    assert.equal(payload.type, 'webhook.test');
    assert.equal(payload.data.webhookId, webhook.id);
    assert.equal(r.headers['webhook-id'], ok.body.delivery.messageId);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.throws(() => rx.verify(r, `whsec_${Buffer.alloc(32, 1).toString('base64')}`), /signature/i, 'another secret does not verify');

    // A failing test message: failed at once, no retry, and it says nothing of the endpoint's health.
    rx.answer = () => ({ status: 500, body: `broken\u0000${'x'.repeat(5000)}` });
    const bad = await s.api('POST', `/webhooks/${webhook.id}/test`);
    assert.equal(bad.body.delivery.status, 'failed');
    assert.equal(bad.body.delivery.statusCode, 500);
    assert.equal(bad.body.delivery.error, 'answered 500');
    assert.equal(bad.body.delivery.nextAttemptAt, null);
    assert.ok(bad.body.delivery.responseExcerpt.startsWith('broken x'));
    assert.ok(bad.body.delivery.responseExcerpt.length <= 501);
    assert.equal((await s.api('GET', `/webhooks/${webhook.id}`)).body.webhook.failingSince, null);

    // A redirect is not followed.
    rx.answer = () => ({ status: 302, headers: { location: 'http://169.254.169.254/' } });
    const before = rx.received.length;
    const redirected = await s.api('POST', `/webhooks/${webhook.id}/test`);
    assert.equal(redirected.body.delivery.status, 'failed');
    assert.match(redirected.body.delivery.error, /redirects are not followed/);
    assert.equal(rx.received.length, before + 1);

    const list = await s.api('GET', `/webhooks/${webhook.id}/deliveries?limit=2`);
    assert.equal(list.body.count, 3);
    assert.deepEqual(list.body.deliveries.map((d: any) => d.statusCode), [302, 500]);
    assert.deepEqual((await s.api('GET', `/webhooks/${webhook.id}/deliveries?limit=2&offset=2`)).body.deliveries.map((d: any) => d.statusCode), [204]);
    await s.api('DELETE', `/webhooks/${webhook.id}`);
  });

  test('a completed snapshot is delivered to the endpoints subscribed to snapshot.completed, signed and verifiable', async () => {
    rx.answer = () => ({ status: 200 });
    const start = rx.received.length;
    const subscribed = (await s.api('POST', '/webhooks', { url: `${rx.url}?a`, events: ['snapshot.completed'] })).body;
    const other = (await s.api('POST', '/webhooks', { url: `${rx.url}?b`, events: ['simulation.failed'] })).body;
    const mind = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
    const text = 'Interviewer: What do you make of the engine?\nAda Lovelace: It weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves. I find it beautiful.\nInterviewer: And poetry?\nAda Lovelace: Poetical science is what I want: imagination disciplined by mathematics.\n';
    const fd = new FormData();
    fd.append('file', new Blob([text], { type: 'text/plain' }), 'ada.txt');
    const up = await s.api('POST', `/minds/${mind.id}/snapshots`, fd);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const [d] = await waitForDelivery(s, subscribed.webhook.id, (x) => x.status !== 'pending', 60_000);
    assert.equal(d.status, 'succeeded', JSON.stringify(d));
    assert.equal(d.event, 'snapshot.completed');
    assert.equal(d.statusCode, 200);
    const got = rx.received.slice(start).filter((r) => r.url === '/hook?a');
    assert.equal(got.length, 1);
    const payload = rx.verify(got[0]!, subscribed.secret);
    assert.equal(payload.type, 'snapshot.completed');
    assert.deepEqual(payload.data, { organizationId: orgId, mindId: mind.id, snapshotId: up.body.mindAssessmentId });
    assert.ok(Math.abs(Date.parse(payload.timestamp) - Date.now()) < 120_000);
    assert.equal(rx.received.slice(start).filter((r) => r.url === '/hook?b').length, 0, 'not subscribed: nothing sent');
    assert.deepEqual((await s.api('GET', `/webhooks/${other.webhook.id}/deliveries`)).body.count, 0);
    await s.api('DELETE', `/webhooks/${subscribed.webhook.id}`);
    await s.api('DELETE', `/webhooks/${other.webhook.id}`);
  });

  test('every event type is delivered as soon as it is emitted; one message id per event, shared by its endpoints', async () => {
    rx.answer = () => ({ status: 200 });
    const start = rx.received.length;
    const a = (await s.api('POST', '/webhooks', { url: `${rx.url}?all1`, events: [...EVENT_TYPES] })).body;
    const b = (await s.api('POST', '/webhooks', { url: `${rx.url}?all2`, events: [...EVENT_TYPES] })).body;
    const ids = { organizationId: orgId, mindId: '6f1c2a8e-8d4b-4c1e-9a53-2f0a4f1e7c11', snapshotId: '0b0b0b0b-8d4b-4c1e-9a53-2f0a4f1e7c11' };
    const sim = { organizationId: orgId, mindId: ids.mindId, simulationId: '1c1c1c1c-8d4b-4c1e-9a53-2f0a4f1e7c11', messageId: '2d2d2d2d-8d4b-4c1e-9a53-2f0a4f1e7c11' };
    const events: { [K in EventType]: DomainEvents[K] } = {
      'snapshot.completed': ids,
      'snapshot.failed': { ...ids, error: 'unreadable' },
      'snapshot.reprocessing': { ...ids, speaker: 'W Mitt Romney' },
      'snapshot.indexed': { ...ids, embedder: 'glove-6b-100d-sif@1' },
      'simulation.completed': sim,
      'simulation.failed': { ...sim, code: 'upstream', error: 'provider down' },
      'mind.deleted': { organizationId: orgId, mindId: ids.mindId },
    };
    // Another organization's event reaches none of this one's endpoints.
    const stranger = await s.newKey('webhooks-stranger', 'x@example.org');
    await emit(s, 'mind.deleted', { organizationId: stranger.organizationId, mindId: ids.mindId });
    for (const type of EVENT_TYPES) await emit(s, type, events[type] as never);
    await rx.waitFor(start + 2 * EVENT_TYPES.length);
    await waitForDelivery(s, a.webhook.id, (d) => d.status === 'succeeded');
    const got = rx.received.slice(start);
    assert.equal(got.length, 2 * EVENT_TYPES.length);
    for (const type of EVENT_TYPES) {
      const one = got.find((r) => r.url === '/hook?all1' && JSON.parse(r.body).type === type)!;
      const two = got.find((r) => r.url === '/hook?all2' && JSON.parse(r.body).type === type)!;
      assert.deepEqual(rx.verify(one, a.secret).data, events[type], type);
      assert.deepEqual(rx.verify(two, b.secret).data, events[type], type);
      assert.equal(one.headers['webhook-id'], two.headers['webhook-id'], `${type}: one message id for both endpoints`);
      assert.equal(one.body, two.body);
    }
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, EVENT_TYPES.length);
    await s.api('DELETE', `/webhooks/${a.webhook.id}`);
    await s.api('DELETE', `/webhooks/${b.webhook.id}`);
  });

  test('a failed attempt is retried by the worker after its backoff, with the same webhook-id and body', async () => {
    const start = rx.received.length;
    const { webhook, secret } = (await s.api('POST', '/webhooks', { url: `${rx.url}?retry`, events: ['snapshot.failed'] })).body;
    rx.answer = (n) => (n === start ? { status: 503, body: 'busy' } : { status: 200 });
    await emit(s, 'snapshot.failed', { organizationId: orgId, mindId: '6f1c2a8e-8d4b-4c1e-9a53-2f0a4f1e7c11', snapshotId: '3e3e3e3e-8d4b-4c1e-9a53-2f0a4f1e7c11', error: 'x' });
    await rx.waitFor(start + 1);
    const [pending] = await waitForDelivery(s, webhook.id, (d) => d.attempts === 1);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.statusCode, 503);
    assert.equal(pending.responseExcerpt, 'busy');
    const due = Date.parse(pending.nextAttemptAt) - Date.parse(pending.lastAttemptAt);
    assert.ok(due >= 4_500 && due <= 5_500, `next attempt in ${due} ms (5 s ± 10 %)`);
    assert.ok((await s.api('GET', `/webhooks/${webhook.id}`)).body.webhook.failingSince, 'the endpoint is failing');
    await rx.waitFor(start + 2, 30_000);
    const [done] = await waitForDelivery(s, webhook.id, (d) => d.status === 'succeeded');
    assert.equal(done.attempts, 2);
    const [first, second] = rx.received.slice(start);
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id']);
    assert.equal(first!.body, second!.body);
    assert.equal(rx.verify(second!, secret).type, 'snapshot.failed');
    assert.equal((await s.api('GET', `/webhooks/${webhook.id}`)).body.webhook.failingSince, null, 'a success clears the failure');
    await s.api('DELETE', `/webhooks/${webhook.id}`);
  });
});
