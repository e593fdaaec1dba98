/**
 * The dashboard's export and import of a mind in a real browser: the mind page's Export button
 * downloads the bundle, the minds list's Import control turns that file into a new mind (which
 * opens) and says why a file is refused; both pages stay accessible (axe-core).
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureDashboard } from '../../../src/clients/dashboard/build.ts';
import { upload, waitForSnapshot } from '../../features/snapshots/support.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { AXE, SHOTS, noBrowser, openBrowser, type Browser } from './browser.ts';

const TRANSCRIPT = [
  'Interviewer: What do you enjoy most about your work?',
  'Ada: I love explaining the engine to a crowd, and the letters afterwards, when someone has understood it.',
  'Interviewer: Where do your ideas come from?',
  'Ada: Poetical science: imagination and mathematics together, the engine weaving algebraic patterns the way a loom weaves flowers.',
].join('\n');

let server: TestServer;
let browser: Browser;
let page: Page;
let mindId: string;

async function assertAccessible(p: Page, what: string) {
  if (!(await p.evaluate(() => 'axe' in window))) await p.evaluate(AXE);
  const violations = await p.evaluate(async () => (await (window as any).axe.run(document, { resultTypes: ['violations'] })).violations.map((v: any) => `${v.id}: ${v.help}`));
  assert.deepEqual(violations, [], what);
}

before(async () => {
  if (noBrowser) return;
  await ensureDashboard({ quiet: true });
  server = await startTestServer();
  mindId = (await server.api('POST', '/minds', { name: 'Ada Lovelace', tags: 'engines' })).body.mind.id;
  const res = await upload(server, mindId, { file: { bytes: TRANSCRIPT, name: 'interview.txt', type: 'text/plain' } });
  assert.equal((await waitForSnapshot(server, mindId, res.body.mindAssessmentId)).status, 'completed');
  browser = await openBrowser();
  page = browser.page;
  await page.goto(`${server.url}/app/`);
  await page.getByLabel('API key').fill(server.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Minds' }).waitFor();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('Export on the mind page downloads the bundle; Import on the minds list makes a new mind of it and opens it', { skip: noBrowser }, async () => {
  await page.goto(`${server.url}/app/minds/${mindId}`);
  await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
  await assertAccessible(page, 'mind page with the Export button');
  await page.getByLabel('with original files').check();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
  assert.equal(download.suggestedFilename(), 'ada-lovelace.mindprint.json');
  const file = path.join(browser.dir, download.suggestedFilename());
  await download.saveAs(file);
  const bundle = JSON.parse(await readFile(file, 'utf8'));
  assert.equal(bundle.format, 'mindprint.mind.v1');
  assert.equal(bundle.snapshots.length, 1);
  assert.equal(bundle.artifacts.length, 1);
  await page.screenshot({ path: path.join(SHOTS, 'export-mind.png') });

  await page.getByRole('link', { name: 'Minds', exact: true }).first().click();
  await page.locator('table.minds tbody tr').first().waitFor();
  await assertAccessible(page, 'minds list with the Import control');
  await page.getByLabel('Import a mind from a file').setInputFiles(file);
  await page.waitForURL((url) => /\/app\/minds\/[0-9a-f-]{36}$/.test(url.pathname) && !url.pathname.endsWith(mindId));
  await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
  const newId = /\/minds\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname)![1]!;
  const { body } = await server.api('GET', `/minds/${newId}`);
  assert.equal(body.mind.snapshotCount, 1);
  assert.deepEqual(body.mind.tags.map((t: { name: string }) => t.name), ['engines']);

  // A file that is not a bundle: the list says why, and nothing is created.
  await page.getByRole('link', { name: 'Minds', exact: true }).first().click();
  await page.locator('table.minds tbody tr').nth(1).waitFor();
  const bad = path.join(browser.dir, 'cut.json');
  await writeFile(bad, JSON.stringify(bundle).slice(0, 300));
  await page.getByLabel('Import a mind from a file').setInputFiles(bad);
  await page.getByRole('alert').filter({ hasText: 'The import failed: The body is not a valid JSON mind bundle' }).waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'import-refused.png') });
  assert.equal((await server.api('GET', '/minds')).body.minds.length, 2);
  await page.screenshot({ path: path.join(SHOTS, 'import-refused.png') });
  await assertAccessible(page, 'minds list with a refused import');
});
