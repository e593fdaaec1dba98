/**
 * The mind page's trust line in a real browser (Debian chromium through playwright-core): a mind
 * of two real debates (test/fixtures) gets its fidelity check in the background, and the page says
 * in one plain sentence how far to trust it, with the numbers behind it and two example questions
 * with the real and the simulated answer; accessible (axe-core), at a desktop's and a phone's width.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ensureDashboard } from '../../../src/clients/dashboard/build.ts';
import { fixtureFile, upload, waitForSnapshot } from '../../features/snapshots/support.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = '/tmp/web-shots';
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no chromium at ${CHROMIUM}` : false;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server: TestServer;
let context: BrowserContext;
let profileDir: string;
let page: Page;

before(async () => {
  if (noBrowser) return;
  await Promise.all([ensureDashboard({ quiet: true }), mkdir(SHOTS, { recursive: true })]);
  server = await startTestServer();
  profileDir = await mkdtemp(path.join(os.tmpdir(), 'mp-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(30_000);
  page = context.pages()[0] ?? (await context.newPage());
});

after(async () => {
  await context?.close();
  await server?.close();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
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
