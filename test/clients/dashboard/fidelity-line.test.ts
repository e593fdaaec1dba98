/**
 * The mind page's trust line in a real browser (Debian chromium through playwright-core): a mind
 * of two real debates (test/fixtures) gets its fidelity check in the background, and the page says
 * in one plain sentence how far to trust it, with the numbers behind it and two example questions
 * with the real and the simulated answer; accessible (axe-core), at a desktop's and a phone's width.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureDashboard } from '../../../src/clients/dashboard/build.ts';
import { fixtureFile, upload, waitForSnapshot } from '../../features/snapshots/support.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { AXE, SHOTS, noBrowser, openBrowser, type Browser } from './browser.ts';

let server: TestServer;
let browser: Browser;
let page: Page;

before(async () => {
  if (noBrowser) return;
  await ensureDashboard({ quiet: true });
  server = await startTestServer();
  browser = await openBrowser({ timeoutMs: 30_000 });
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the mind page shows the trust line, the numbers behind it and two example triples', { skip: noBrowser }, async () => {
  const mind = (await server.api('POST', '/minds', { name: 'Barack Obama' })).body.mind;
  for (const d of ['2012-10-03', '2012-10-16']) {
    const res = await upload(server, mind.id, { file: { bytes: await fixtureFile(`transcripts/us-presidential-debates/${d}.said.txt`), name: `${d}.txt` }, mindsetDate: `${d}T00:00:00Z` });
    assert.equal((await waitForSnapshot(server, mind.id, res.body.mindAssessmentId)).status, 'completed');
  }
  // The check runs in the background (again once the semantic index is complete): waited for here.
  let api: any;
  for (const deadline = Date.now() + 120_000; ; ) {
    api = (await server.api('GET', `/minds/${mind.id}/fidelity`)).body;
    if (api.status === 'ready' && api.current) break;
    assert.ok(Date.now() < deadline, JSON.stringify(api));
    await new Promise((r) => setTimeout(r, 200));
  }
  await page.goto(`${server.url}/app/`);
  await page.getByLabel('API key').fill(server.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.goto(`${server.url}/app/minds/${mind.id}`);
  const line = page.getByRole('region', { name: 'Fidelity' });
  await line.getByText(/fidelity: asked \d+ questions? from its own 2 conversations/).waitFor();
  assert.equal(await line.getByTestId('fidelity-summary').innerText(), api.summary);
  await line.getByText('The numbers behind it').click();
  const numbers = await line.locator('.fidelity-numbers').innerText();
  assert.match(numbers, new RegExp(`Specificity AUC\\s+${api.specificity.toFixed(3)}`));
  assert.match(numbers, new RegExp(`Questions\\s+${api.questions}`));
  const examples = line.locator('figure.fidelity-example');
  assert.equal(await examples.count(), 2);
  const first = await examples.first().innerText();
  assert.ok(first.includes(api.examples[0].question.slice(0, 40)), first);
  assert.match(first, /They said: [\s\S]+The mind said: /);
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, 'mind-fidelity.png'), fullPage: true });
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => (await (window as any).axe.run(document, { resultTypes: ['violations'] })).violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`));
  assert.deepEqual(violations, []);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, 'mind-fidelity-phone.png'), fullPage: true });
  const box = (await line.boundingBox())!;
  assert.ok(box.x >= 0 && box.x + box.width <= 390.5, `the trust line fits a phone: ${JSON.stringify(box)}`);
});
