/**
 * The webhook routes on a server with the default settings (MINDPRINT_WEBHOOKS_ALLOW_PRIVATE off):
 * validation, the refusal of every non-public target, organization scoping, the secret shown once.
 * Nothing here connects anywhere: refused targets are refused before any connection, and the one
 * public address registered is never sent a message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertInvalid, startTestServer, type TestServer } from '../../support/server.ts';

const EVENTS = ['snapshot.completed', 'snapshot.failed', 'snapshot.reprocessing', 'snapshot.indexed', 'simulation.completed', 'simulation.failed', 'mind.deleted'];

describe('webhooks API', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.close());

  test('registration is validated: events known, unique and at least one; no unknown field; http(s) only; no credentials', async () => {
    const url = 'https://93.184.215.14/hook';
    await assertInvalid(s, 'POST', '/webhooks', { url }, /events/);
    await assertInvalid(s, 'POST', '/webhooks', { url, events: [] }, /^body\.events must NOT have fewer than 1 items/);
    await assertInvalid(s, 'POST', '/webhooks', { url, events: ['snapshot.exploded'] }, /body\.events\.0/);
    await assertInvalid(s, 'POST', '/webhooks', { url, events: ['mind.deleted', 'mind.deleted'] }, /body\.events/);
    await assertInvalid(s, 'POST', '/webhooks', { url, events: ['mind.deleted'], secret: 'whsec_x' }, /secret/);
    await assertInvalid(s, 'POST', '/webhooks', { url: 'ftp://93.184.215.14/x', events: ['mind.deleted'] }, /^body\.url must be http:\/\/ or https:\/\//);
    await assertInvalid(s, 'POST', '/webhooks', { url: 'not a url', events: ['mind.deleted'] }, /^body\.url is not a valid absolute URL/);
    await assertInvalid(s, 'POST', '/webhooks', { url: 'https://u:p@93.184.215.14/x', events: ['mind.deleted'] }, /^body\.url must not contain credentials/);
    await assertInvalid(s, 'POST', '/webhooks', { url: 'javascript:alert(1)', events: ['mind.deleted'] }, /^body\.url must be http/);
    assert.deepEqual((await s.api('GET', '/webhooks')).body, { webhooks: [] }, 'nothing was stored');
  });

  test('loopback, private, link-local (metadata), CGNAT, unique-local, multicast and IPv4-mapped targets are refused, IPv4 and IPv6', async () => {
    for (const [url, range] of [
      ['http://localhost:8080/hook', /loopback/],
      ['http://127.0.0.1/hook', /loopback/],
      ['http://0x7f.1/hook', /loopback/],
      ['http://2130706433/hook', /loopback/],
      ['http://10.1.2.3/hook', /private/],
      ['http://172.16.0.1/hook', /private/],
      ['https://192.168.1.10/hook', /private/],
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ['http://100.100.100.200/latest/meta-data/', /carrier-grade NAT/],
      ['http://0.0.0.0/', /unspecified/],
      ['http://224.0.0.1/', /multicast/],
      ['http://[::1]/hook', /loopback/],
      ['http://[::]/hook', /unspecified/],
      ['http://[fe80::1]/hook', /link-local/],
      ['http://[fd00:ec2::254]/latest/meta-data/', /unique-local/],
      ['http://[::ffff:127.0.0.1]/hook', /loopback/],
      ['http://[::ffff:a9fe:a9fe]/hook', /link-local/],
      ['http://[::ffff:10.0.0.1]/hook', /private/],
      ['http://[64:ff9b::a9fe:a9fe]/hook', /NAT64/],
    ] as const) {
      const res = await s.api('POST', '/webhooks', { url, events: ['snapshot.completed'] });
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.match(res.body.message, /^body\.url/, url);
      assert.match(res.body.message, range, url);
      assert.match(res.body.message, /MINDPRINT_WEBHOOKS_ALLOW_PRIVATE/, url);
    }
    assert.deepEqual((await s.api('GET', '/webhooks')).body.webhooks, []);
  });

  test('a webhook is created with a secret shown once, then listed, read, changed and deleted', async () => {
    // A public address: accepted (registering connects to nothing; it is deleted before any event).
    const created = await s.api('POST', '/webhooks', { url: 'https://93.184.215.14/hooks/mindprint', events: ['snapshot.completed', 'mind.deleted'], description: '  CRM  ' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { webhook, secret } = created.body;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const bytes = Buffer.from(secret.slice(6), 'base64').length;
    assert.ok(bytes >= 24 && bytes <= 64, `${bytes} bytes`);
    assert.equal(webhook.url, 'https://93.184.215.14/hooks/mindprint');
    assert.deepEqual(webhook.events, ['snapshot.completed', 'mind.deleted']);
    assert.equal(webhook.description, 'CRM');
    assert.equal(webhook.status, 'active');
    assert.equal(webhook.disabledReason, null);

    const listed = await s.api('GET', '/webhooks');
    assert.deepEqual(listed.body.webhooks, [webhook]);
    const one = await s.api('GET', `/webhooks/${webhook.id}`);
    assert.deepEqual(one.body, { webhook });
    assert.ok(!JSON.stringify(listed.body).includes(secret.slice(6)) && !JSON.stringify(one.body).includes(secret.slice(6)), 'the secret is never shown again');

    const changed = await s.api('PATCH', `/webhooks/${webhook.id}`, { events: EVENTS, description: null });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.webhook.events, EVENTS);
    assert.equal(changed.body.webhook.description, null);
    await assertInvalid(s, 'PATCH', `/webhooks/${webhook.id}`, { url: 'http://[::ffff:169.254.169.254]/' }, /^body\.url.*link-local/);
    await assertInvalid(s, 'PATCH', `/webhooks/${webhook.id}`, {}, /body/);
    await assertInvalid(s, 'PATCH', `/webhooks/${webhook.id}`, { secret: 'x' }, /secret/);

    const disabled = await s.api('PATCH', `/webhooks/${webhook.id}`, { status: 'disabled' });
    assert.equal(disabled.body.webhook.status, 'disabled');
    assert.equal(disabled.body.webhook.disabledReason, 'Disabled by a user');
    assert.ok(disabled.body.webhook.disabledAt);
    const enabled = await s.api('PATCH', `/webhooks/${webhook.id}`, { status: 'active' });
    assert.equal(enabled.body.webhook.status, 'active');
    assert.equal(enabled.body.webhook.disabledReason, null);
    assert.equal(enabled.body.webhook.disabledAt, null);

    const deliveries = await s.api('GET', `/webhooks/${webhook.id}/deliveries?limit=5&offset=0`);
    assert.deepEqual(deliveries.body, { deliveries: [], count: 0 });
    await assertInvalid(s, 'GET', `/webhooks/${webhook.id}/deliveries?limit=0`, undefined, /limit/);

    assert.deepEqual((await s.api('DELETE', `/webhooks/${webhook.id}`)).body, { success: true });
    assert.equal((await s.api('GET', `/webhooks/${webhook.id}`)).status, 404);
    assert.equal((await s.api('DELETE', `/webhooks/${webhook.id}`)).status, 404);
  });

  test("another organization's webhook is a 404 everywhere, and not listed", async () => {
    const other = await s.newKey('webhooks-other-org', 'eve@example.org');
    const created = await s.api('POST', '/webhooks', { url: 'https://93.184.215.14/other', events: ['mind.deleted'] }, other.key);
    assert.equal(created.status, 200);
    const id = created.body.webhook.id;
    for (const [method, path, body] of [
      ['GET', `/webhooks/${id}`, undefined],
      ['PATCH', `/webhooks/${id}`, { description: 'mine now' }],
      ['PATCH', `/webhooks/${id}`, { status: 'disabled' }],
      ['GET', `/webhooks/${id}/deliveries`, undefined],
      ['POST', `/webhooks/${id}/test`, undefined],
      ['DELETE', `/webhooks/${id}`, undefined],
    ] as const) {
      const res = await s.api(method, path, body);
      assert.equal(res.status, 404, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    assert.deepEqual((await s.api('GET', '/webhooks')).body.webhooks, []);
    const mine = await s.api('GET', `/webhooks/${id}`, undefined, other.key);
    assert.equal(mine.body.webhook.status, 'active');
    assert.equal(mine.body.webhook.description, null);
    assert.equal((await s.api('DELETE', `/webhooks/${id}`, undefined, other.key)).status, 200);
  });

  test('every route needs a key; a malformed id is a 400', async () => {
    assert.equal((await s.api('GET', '/webhooks', undefined, null)).status, 401);
    assert.equal((await s.api('POST', '/webhooks', { url: 'https://93.184.215.14/', events: ['mind.deleted'] }, null)).status, 401);
    assert.equal((await s.api('GET', '/webhooks/not-a-uuid')).status, 400);
  });
});
