/**
 * The dashboard's Webhooks page in a real browser (Debian chromium through playwright-core)
 * against the real service and a receiver on loopback: add an endpoint (the secret shown once),
 * send a test message that the receiver verifies, read the deliveries, disable and delete; the
 * page passes axe-core. Screenshots go to the run's SHOTS directory (browser.ts).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureDashboard } from '../../../src/clients/dashboard/build.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { startReceiver, type Receiver } from '../../features/webhooks/receiver.ts';
import { AXE, SHOTS, noBrowser, openBrowser, type Browser } from './browser.ts';

let server: TestServer;
let rx: Receiver;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

async function assertAccessible(p: Page, what: string) {
  if (!(await p.evaluate(() => 'axe' in window))) await p.evaluate(AXE);
  const violations = await p.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 4).map((n: any) => n.target.join(' ')) }));
  });
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 1)}`);
}

before(async () => {
  if (noBrowser) return;
  await ensureDashboard({ quiet: true });
  server = await startTestServer({ MINDPRINT_WEBHOOKS_ALLOW_PRIVATE: 'true' });
  rx = await startReceiver();
  browser = await openBrowser();
  browser.context.on('weberror', (e) => pageErrors.push(e.error().stack ?? e.error().message));
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await server?.close();
  await rx?.close();
});

test('the Webhooks page: add an endpoint, copy its secret once, test it, read its deliveries, disable and delete it', { skip: noBrowser }, async () => {
  await page.goto(`${server.url}/app/`);
  await page.getByLabel('API key').fill(server.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
  await page.getByText('No webhooks yet').waitFor();
  await assertAccessible(page, 'Webhooks, empty');

  await page.getByLabel('Endpoint URL').fill(rx.url);
  await page.getByLabel(/^Description/).fill('dashboard test');
  await page.getByRole('checkbox', { name: /mind\.deleted/ }).check();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const secret = await page.getByLabel('Webhook signing secret').inputValue();
  assert.match(secret, /^whsec_/);
  await page.screenshot({ path: path.join(SHOTS, 'webhooks-created.png'), fullPage: true });
  await assertAccessible(page, 'Webhooks with a new secret');
  await page.getByRole('button', { name: 'Done' }).click();
  assert.equal(await page.getByLabel('Webhook signing secret').count(), 0);
  const [hook] = (await server.api('GET', '/webhooks')).body.webhooks;
  assert.deepEqual(hook.events, ['snapshot.completed', 'mind.deleted']);

  const row = page.locator('table.webhooks tbody tr', { hasText: rx.url });
  await row.getByRole('button', { name: 'Send test' }).click();
  await row.getByText(/^Test: succeeded \(HTTP 200, \d+ ms\)/).waitFor();
  assert.equal(rx.verify(rx.received.at(-1)!, secret).type, 'webhook.test');
  const deliveries = page.getByRole('region', { name: 'Deliveries' });
  await deliveries.locator('table.deliveries tbody tr', { hasText: 'webhook.test' }).waitFor();
  assert.match(await deliveries.locator('table.deliveries tbody tr').first().innerText(), /succeeded[\s\S]*HTTP 200/);
  await page.screenshot({ path: path.join(SHOTS, 'webhooks-deliveries.png'), fullPage: true });
  await assertAccessible(page, 'Webhooks with deliveries');

  await row.getByRole('button', { name: 'Disable' }).click();
  await row.getByText('Disabled by a user').waitFor();
  assert.equal((await server.api('GET', `/webhooks/${hook.id}`)).body.webhook.status, 'disabled');
  await row.getByRole('button', { name: 'Enable' }).click();
  await row.getByRole('button', { name: 'Disable' }).waitFor();

  await row.getByRole('button', { name: 'Delete' }).click();
  await row.getByRole('button', { name: 'Yes, delete' }).click();
  await page.getByText('No webhooks yet').waitFor();
  assert.deepEqual((await server.api('GET', '/webhooks')).body.webhooks, []);
  assert.deepEqual(pageErrors, []);
});
