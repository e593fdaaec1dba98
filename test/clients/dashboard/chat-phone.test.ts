/**
 * The dashboard's chat and a phone, in a real browser (Debian chromium through playwright-core)
 * against the real service: after an answer the question and the start of the answer are in view
 * (not the end of the list); on a 390×844 phone the "As of" selector is clear of the sticky top bar
 * and an empty conversation's composer is on the first screen; an answer quoting auto-captions
 * says so and does not call its quotes "their own words"; a snapshot's words are the same number
 * in its row and in its speaker picker. Screenshots (10-*) go to the run's SHOTS directory (browser.ts).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureDashboard } from '../../../src/clients/dashboard/build.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { fixturePath } from '../../support/shared-data.ts';
import { upload, waitForSnapshot } from '../../features/snapshots/support.ts';
import { SHOTS, noBrowser, openBrowser, DESKTOP, PHONE, type Browser } from './browser.ts';

const DEBATE = 'transcripts/us-presidential-debates/2012-10-03';

let server: TestServer;
let browser: Browser;
/** A mind from the debate's auto-captions only, and one from its labelled transcript. */
let captions: { mindId: string; snapshotId: string };
let labelled: { mindId: string; snapshotId: string };
const pageErrors: string[] = [];

const app = (p = '/') => `${server.url}/app${p}`;

async function mindWith(name: string, file: string, fileName: string, type: string, speaker?: string) {
  const mindId = (await server.api('POST', '/minds', { name })).body.mind.id as string;
  const created = await upload(server, mindId, { file: { bytes: await readFile(fixturePath(file)), name: fileName, type }, mindsetDate: '2012-10-03', ...(speaker ? { speaker } : {}) });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.equal((await waitForSnapshot(server, mindId, created.body.mindAssessmentId, 120_000)).status, 'completed');
  return { mindId, snapshotId: created.body.mindAssessmentId as string };
}

async function openPage(viewport: { width: number; height: number }): Promise<Page> {
  const p = await browser.context.newPage();
  await p.setViewportSize(viewport);
  await p.goto(app('/'));
  await p.getByLabel('API key').fill(server.key);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.locator('main h1').first().waitFor();
  return p;
}

async function ask(p: Page, message: string, n: number) {
  await p.getByLabel('Message').fill(message);
  await p.getByLabel('Message').press('Enter');
  await p.locator('.turn.assistant[data-status="done"]').nth(n).waitFor({ timeout: 60_000 });
}

/** Where an element is inside the message list's visible area (px from the list's top; the list's height). */
async function placeInList(p: Page, selector: string) {
  return p.evaluate((sel) => {
    const list = document.querySelector('.messages')!.getBoundingClientRect();
    const box = document.querySelectorAll(sel);
    const el = box[box.length - 1]!.getBoundingClientRect();
    return { top: el.top - list.top, bottom: el.bottom - list.top, height: list.height };
  }, selector);
}

/** What covers the middle of an element: true when it is the element itself (or inside it). */
async function onTop(p: Page, selector: string): Promise<boolean> {
  return p.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });
}

before(async () => {
  if (noBrowser) return;
  await ensureDashboard({ quiet: true });
  server = await startTestServer();
  captions = await mindWith('W Mitt Romney', `${DEBATE}.vtt`, 'captions.vtt', 'text/vtt');
  labelled = await mindWith('Barack H Obama', `${DEBATE}.said.txt`, 'debate.txt', 'text/plain');
  browser = await openBrowser();
  browser.context.on('weberror', (e) => pageErrors.push(e.error().stack ?? e.error().message));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('an answer quoting auto-captions carries the warning, and its quotes are not called their own words', { skip: noBrowser }, async () => {
  const p = await openPage(DESKTOP);
  await p.goto(app(`/minds/${captions.mindId}/simulate`));
  await ask(p, 'What would you do about trade with China?', 0);
  const answer = p.locator('.turn.assistant').first();
  const sims = (await server.api('GET', `/simulations?mindId=${captions.mindId}`)).body.simulations;
  const stored = (await server.api('GET', `/simulations/${sims[0].id}`)).body.messages[1];
  assert.equal(stored.content.warnings.length, 1);
  assert.equal(await answer.locator('.answer-warning').innerText(), stored.content.warnings[0].message);
  assert.equal(await answer.locator('.answer-warning').getAttribute('data-code'), 'unlabelled_speakers');
  assert.doesNotMatch(await answer.locator('.evidence h3').innerText(), /own words/i);
  assert.equal(await answer.locator('.evidence li .badge.warn').count(), await answer.locator('.evidence li').count());
  await answer.screenshot({ path: path.join(SHOTS, '10-answer-warning.png') });
  // Reopened, the stored warning is shown again.
  await p.getByRole('button', { name: 'New conversation' }).click();
  await p.getByRole('list', { name: 'Past simulations' }).getByRole('button').first().click();
  await p.locator('.turn.assistant .answer-warning').waitFor();

  // A mind whose transcript names its speakers: their own words, no warning.
  await p.goto(app(`/minds/${labelled.mindId}/simulate`));
  await ask(p, 'What would you do about taxes for the middle class?', 0);
  assert.equal(await p.locator('.answer-warning').count(), 0);
  assert.equal(await p.locator('.evidence h3').first().innerText(), 'IN THEIR OWN WORDS');
  await p.close();
});

test('after an answer, the question and the start of the answer are in view, not the end of the list', { skip: noBrowser }, async () => {
  const p = await openPage(PHONE);
  await p.goto(app(`/minds/${labelled.mindId}/simulate`));
  const questions = ['What would you do about taxes for the middle class?', 'And what about health care?', 'What do you think about energy and oil?'];
  for (const [i, q] of questions.entries()) {
    await ask(p, q, i);
    await p.locator('.chat').evaluate((el) => el.scrollIntoView());
    const question = await placeInList(p, '.turn.user');
    const answerStart = await placeInList(p, '.turn.assistant .answer');
    const list = await p.locator('.messages').evaluate((el) => ({ scrollTop: el.scrollTop, max: el.scrollHeight - el.clientHeight }));
    // The question at the top of the list (or as high as the list can scroll), the answer's start under it.
    assert.ok(question.top >= -1 && (question.top < 20 || list.scrollTop >= list.max - 1), `question ${i + 1} at the top of the list: ${JSON.stringify({ question, list })}`);
    assert.ok(answerStart.top > question.top && answerStart.top + 20 < answerStart.height, `the answer starts in view: ${JSON.stringify(answerStart)}`);
    if (i === 2) assert.ok(list.max > 0 && list.scrollTop < list.max - 20, `not scrolled to the end: ${JSON.stringify(list)}`);
  }
  await p.screenshot({ path: path.join(SHOTS, '10-phone-after-answer.png') });
  await p.close();
});

test('on a phone the “As of” selector is clear of the top bar and an empty conversation’s composer is on the first screen', { skip: noBrowser }, async () => {
  const p = await openPage(PHONE);
  await p.goto(app(`/minds/${captions.mindId}/simulate`));
  await p.locator('.composer').waitFor();
  await p.screenshot({ path: path.join(SHOTS, '10-phone-simulate-empty.png') });
  const view = p.viewportSize()!;
  const composer = (await p.locator('.composer').boundingBox())!;
  assert.ok(composer.y >= 0 && composer.y + composer.height <= view.height, `the composer is on the first screen: ${JSON.stringify(composer)}`);
  const send = (await p.getByLabel('Message').boundingBox())!;
  assert.ok(send.y + send.height <= view.height, `the message box is on the first screen: ${JSON.stringify(send)}`);
  // Nothing covers the selector: at the top of the page, and with the page scrolled as far as it goes.
  assert.equal(await onTop(p, 'select[name="snapshotId"]'), true, 'the As of selector is not under the top bar');
  await p.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await p.screenshot({ path: path.join(SHOTS, '10-phone-simulate-scrolled.png') });
  const bar = (await p.locator('.topbar').boundingBox())!;
  const select = (await p.locator('select[name="snapshotId"]').boundingBox())!;
  assert.ok(select.y >= bar.y + bar.height - 0.5, `the selector (${JSON.stringify(select)}) is below the top bar (${JSON.stringify(bar)})`);
  assert.equal(await onTop(p, 'select[name="snapshotId"]'), true, 'scrolled: the As of selector is not under the top bar');
  const scrolledComposer = (await p.locator('.composer').boundingBox())!;
  assert.ok(scrolledComposer.y + scrolledComposer.height <= view.height, 'scrolled: the composer stays on the screen');
  await p.close();
});

test('a snapshot’s words: the same number in its row and in its speaker picker', { skip: noBrowser }, async () => {
  const p = await openPage(DESKTOP);
  await p.goto(app(`/minds/${labelled.mindId}`));
  const row = p.locator(`tr[data-snapshot="${labelled.snapshotId}"]`);
  await row.and(p.locator('[data-status="completed"]')).waitFor();
  const rowWords = await row.locator('td[data-label="Words"]').innerText();
  await row.getByRole('button', { name: 'debate.txt' }).click();
  const mind = p.locator('.speaker-picker li.mind');
  await mind.waitFor();
  const { speakers } = (await server.api('GET', `/minds/${labelled.mindId}/snapshots/${labelled.snapshotId}/speakers`)).body;
  const snap = (await server.api('GET', `/minds/${labelled.mindId}/snapshots/${labelled.snapshotId}`)).body;
  assert.equal(speakers.find((s: any) => s.isMind).words, snap.mindWords, 'one definition of a word in the API');
  assert.match(await mind.locator('label').innerText(), new RegExp(`, ${rowWords} words$`), `the picker says ${rowWords} words too`);
  await p.close();
});

test('no uncaught error happened in the dashboard', { skip: noBrowser }, () => {
  assert.deepEqual(pageErrors, []);
});
