/** `mindprint webhooks add|list|test|remove` against a running server and a loopback receiver. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cli } from '../../support/cli.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { startReceiver, type Receiver } from './receiver.ts';

describe('mindprint webhooks', () => {
  let s: TestServer;
  let rx: Receiver;
  let env: Record<string, string>;
  before(async () => {
    s = await startTestServer({ MINDPRINT_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    rx = await startReceiver();
    env = { MINDPRINT_URL: s.url, MINDPRINT_API_KEY: s.key };
  });
  after(async () => {
    await s?.close();
    await rx?.close();
  });

  test('--help on every subcommand', async () => {
    for (const args of [['webhooks', '--help'], ['webhooks', 'add', '--help'], ['webhooks', 'list', '--help'], ['webhooks', 'remove', '--help'], ['webhooks', 'test', '--help']]) {
      const r = await cli(args, {});
      assert.equal(r.code, 0, args.join(' '));
      assert.match(r.stdout, /Usage: mindprint webhooks/);
    }
  });

  test('add prints the secret once; list shows it; test sends a verifiable message; remove deletes it', async () => {
    const added = await cli(['webhooks', 'add', rx.url, '--events', 'snapshot.completed,mind.deleted', '--description', 'crm'], env);
    assert.equal(added.code, 0, added.stderr);
    const secret = added.stdout.trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const id = /Webhook ([0-9a-f-]{36}) created/.exec(added.stderr)![1]!;

    const listed = await cli(['webhooks', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${id}  active +${rx.url.replace(/[.?]/g, '\\$&')}  \\[snapshot\\.completed, mind\\.deleted\\]  crm`));
    assert.ok(!listed.stdout.includes(secret));

    const tested = await cli(['webhooks', 'test', id], env);
    assert.equal(tested.code, 0, tested.stderr);
    assert.match(tested.stdout, /^succeeded \(HTTP 200, \d+ ms\)/);
    assert.equal(rx.verify(rx.received.at(-1)!, secret).type, 'webhook.test');

    rx.answer = () => ({ status: 410 });
    const failing = await cli(['webhooks', 'test', id, '--json'], env);
    assert.equal(failing.code, 1);
    assert.equal(JSON.parse(failing.stdout).delivery.statusCode, 410);

    const bad = await cli(['webhooks', 'add', rx.url, '--events', 'snapshot.exploded'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^mindprint: unknown event snapshot\.exploded/);

    assert.equal((await cli(['webhooks', 'remove', id], env)).code, 0);
    const gone = await cli(['webhooks', 'remove', id], env);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /404 NOT_FOUND/);
    assert.doesNotMatch(gone.stderr, /\n\s+at /);
  });
});
