/**
 * The dashboard in a real browser (Debian chromium through playwright-core) against the real
 * service: sign in, minds, upload and processing, speakers (the badge of a file that names none,
 * choosing another), profile charts, streamed simulation, usage, API keys, at 1280×800 and at a
 * phone's 390×844. Every page is checked with axe-core (0 violations). The server runs under a
 * non-default MINDPRINT_BASE_PATH, so every step also proves the dashboard takes the API path
 * from the server. Screenshots go to MINDPRINT_SHOTS_DIR, or to a directory of the run (mp-web-shots-… in the OS temp dir).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { ensureDashboard } from '../../../src/clients/dashboard/build.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { fixturePath } from '../../support/shared-data.ts';
import { AXE, SHOTS, noBrowser, openBrowser, PHONE, type Browser } from './browser.ts';

const BASE_PATH = '/api/public/v1';
const DEBATES = fixturePath('transcripts/us-presidential-debates/');
/** Auto-captions (20 minutes of the first 2012 debate): no speaker labels, so every voice is the mind's. */
const TRANSCRIPT = path.join(DEBATES, '2012-10-03.vtt');
/** The first halves of two debates with speaker labels ("Barack H Obama: …"). */
const LABELLED = ['2012-10-03', '2012-10-16'].map((d) => path.join(DEBATES, `${d}.said.txt`));

let server: TestServer;
let browser: Browser;
let page: Page;
let mindId = '';

const app = (p = '/') => `${server.url}/app${p}`;
/** Uncaught exceptions in the dashboard: none may happen. */
const pageErrors: string[] = [];
/** What the browser's console said, and requests that did not complete, in order. */
const consoleLines: string[] = [];
const failedRequests: string[] = [];

/** Runs axe-core on the page as it is now: no accessibility violation (WCAG 2 A/AA and best practices). */
async function assertAccessible(p: Page, what: string) {
  if (!(await p.evaluate(() => 'axe' in window))) await p.evaluate(AXE);
  const violations = await p.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map((n: any) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  });
  assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 1)}`);
}

/** The element lies wholly inside the window (not cut off at an edge, not scrolled away). */
async function assertInViewport(p: Page, selector: string, what: string) {
  const box = await p.locator(selector).first().boundingBox();
  const view = p.viewportSize()!;
  assert.ok(box, `${what}: not displayed`);
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= view.width + 0.5 && box.y + box.height <= view.height + 0.5, `${what}: ${JSON.stringify(box)} is outside the ${view.width}×${view.height} window`);
}
async function shot(name: string, p: Page = page) {
  await p.evaluate(() => scrollTo(0, 0));
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  await p.screenshot({ path: path.join(SHOTS, `${name}-top.png`) });
}

/** A screenshot of one element, cut from a full-page capture so the sticky top bar does not cover it. */
async function shotOf(target: Locator, name: string) {
  const p = target.page();
  // At the top of the page the bar sits above everything else, and page and window coordinates agree.
  await p.evaluate(() => scrollTo(0, 0));
  const box = (await target.boundingBox())!;
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, clip: box });
}

async function signIn(p: Page, key: string) {
  await p.goto(app('/'));
  await p.getByLabel('API key').fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

before(async () => {
  if (noBrowser) return;
  await ensureDashboard({ quiet: true });
  server = await startTestServer({ MINDPRINT_BASE_PATH: BASE_PATH }, { usageFlushMs: 100 });
  browser = await openBrowser();
  browser.context.on('weberror', (e) => pageErrors.push(e.error().stack ?? e.error().message));
  browser.context.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  browser.context.on('requestfailed', (r) => failedRequests.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  if (process.env.DEBUG_WEB) browser.context.on('console', (m) => console.error(`[browser ${m.type()}] ${m.text()}`));
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the root redirects to the dashboard, which refuses a wrong key', { skip: noBrowser }, async () => {
  await page.goto(`${server.url}/`);
  assert.equal(new URL(page.url()).pathname, '/app/');
  const meta = await page.locator('meta[name="mindprint-base-path"]').getAttribute('content');
  assert.equal(meta, BASE_PATH);
  await page.getByLabel('API key').fill('mp_this-is-not-a-key-at-all');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  await shot('01-signin-wrong-key');
  await assertAccessible(page, 'sign-in');
});

test('signing in keeps the key for the tab and shows the minds', { skip: noBrowser }, async () => {
  await signIn(page, server.key);
  await page.getByRole('heading', { name: 'Minds' }).waitFor();
  await page.getByText('No minds yet').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('mindprint.apiKey')), server.key);
});

test('create a mind: it opens, and the list finds it by search and tag', { skip: noBrowser }, async () => {
  await page.getByRole('button', { name: 'New mind' }).click();
  const form = page.getByRole('form', { name: 'New mind' });
  await form.getByLabel('Name').fill('Barack Obama');
  await form.getByLabel('Email').fill('barack@example.org');
  await form.getByLabel('Tags').fill('politics, debates');
  await form.getByRole('button', { name: 'Create mind' }).click();
  await page.getByRole('heading', { name: 'Barack Obama', level: 1 }).waitFor();
  mindId = /\/app\/minds\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
  assert.ok(mindId, `the URL names the new mind: ${page.url()}`);
  const { body } = await server.api('GET', `/minds/${mindId}`);
  assert.deepEqual(body.mind.tags.map((t: { name: string }) => t.name).sort(), ['debates', 'politics']);

  await server.api('POST', '/minds', { name: 'Mitt Romney', tags: 'politics' });
  await server.api('POST', '/minds', { name: 'Jim Lehrer', tags: 'journalism' });
  await page.getByRole('link', { name: 'Minds', exact: true }).first().click();
  const rows = page.locator('table.minds tbody tr');
  await rows.nth(2).waitFor();
  assert.equal(await rows.count(), 3);
  await page.getByLabel('Search minds').fill('obam');
  await page.waitForFunction(() => document.querySelectorAll('table.minds tbody tr').length === 1);
  assert.match(await rows.first().innerText(), /Barack Obama/);
  await page.getByLabel('Search minds').fill('');
  await page.getByRole('group', { name: 'Filter by tag' }).getByRole('button', { name: /journalism/ }).click();
  await page.waitForFunction(() => document.querySelectorAll('table.minds tbody tr').length === 1);
  assert.match(await rows.first().innerText(), /Jim Lehrer/);
  await shot('02-minds-filtered');
  // Delete asks first.
  await rows.first().getByRole('button', { name: 'Delete' }).click();
  await rows.first().getByRole('button', { name: 'Yes, delete' }).click();
  await page.getByText('No mind matches').waitFor();
  assert.equal((await server.api('GET', '/minds/search?query=lehrer')).body.minds.length, 0);
  await page.goto(app('/'));
  await page.locator('table.minds tbody tr').nth(1).waitFor();
  await assertAccessible(page, 'minds');
});

test('upload a real debate transcript: progress, live status, completed, and a badge: it names no speakers', { skip: noBrowser }, async () => {
  await page.goto(app(`/minds/${mindId}`));
  await page.getByLabel(/Mindset date/).fill('2012-10-03');
  await page.getByLabel('Transcript files').setInputFiles(TRANSCRIPT);
  const upload = page.getByRole('list', { name: 'Uploads' }).locator('li').first();
  await upload.getByText('uploaded; processing below').waitFor();
  assert.equal(await upload.locator('progress').evaluate((p: HTMLProgressElement) => p.value === p.max && p.max > 0), true);
  // Auto-captions are known at once, from the upload's answer.
  assert.equal(await upload.locator('.badge.warn').innerText(), 'every voice in this file counts as Barack Obama');
  const row = page.locator('table.snapshots tbody tr[data-snapshot]').first();
  await row.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 90_000 });
  assert.match(await row.innerText(), /2012-10-03/);
  // The row: the file, the speaker taken to be the mind, its words, the status, and the badge.
  const [snap] = (await server.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots;
  assert.equal(await row.getByRole('button', { name: '2012-10-03.vtt' }).count(), 1);
  assert.match(await row.locator('td[data-label="Speaker"]').innerText(), /^Speaker\s+every voice in this file counts as Barack Obama$/);
  assert.equal(await row.locator('td[data-label="Words"]').innerText(), snap.mindWords.toLocaleString('en-US'));
  assert.equal(await row.locator('.badge.warn').getAttribute('title'), snap.speakerWarning);
  // The header's counts follow the finished snapshot.
  await page.waitForFunction(() => Number(document.querySelector('.counts div:nth-child(2) dd')?.textContent) > 0);
  await row.getByRole('button', { name: '2012-10-03.vtt' }).click();
  await page.locator('.snapshot-details').getByText('2012-10-03.vtt').first().waitFor();
  // Captions name no speakers: the details say why the mind holds every voice of the file, and there is no one else to pick.
  assert.match(await page.locator('.snapshot-details .attribution-note.warn').first().innerText(), /names no speakers/);
  await page.locator('.snapshot-details').getByText('There is no other speaker to choose: the file names none.').waitFor();
  await shot('03-snapshot-completed');
  await shotOf(page.locator('table.snapshots'), '03-snapshot-badge');
  await assertAccessible(page, 'mind: snapshots with an auto-caption snapshot open');
  await row.getByRole('button', { name: '2012-10-03.vtt' }).click();

  // The labelled transcripts of two debates, naming the speaker: evidence and a trajectory.
  for (const [i, file] of LABELLED.entries()) {
    await page.getByLabel(/Mindset date/).fill(path.basename(file).slice(0, 10));
    await page.getByLabel(/^Speaker/).fill('Barack H Obama');
    await page.getByLabel('Transcript files').setInputFiles(file);
    await page.locator('table.snapshots tbody tr[data-status="completed"]').nth(i + 1).waitFor({ timeout: 90_000 });
  }
  const snaps = (await server.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots;
  assert.deepEqual(snaps.map((s: any) => [s.mindsetDate.slice(0, 10), s.status]).sort(), [
    ['2012-10-03', 'completed'],
    ['2012-10-03', 'completed'],
    ['2012-10-16', 'completed'],
  ]);
  const labelled = snaps.find((s: any) => s.mindsetDate.startsWith('2012-10-16'));
  const details = (await server.api('GET', `/minds/${mindId}/snapshots/${labelled.id}`)).body;
  assert.equal(details.mindSpeaker, 'Barack H Obama');
  assert.equal(details.attribution, 'requested');
  const labelledRow = page.locator(`tr[data-snapshot="${labelled.id}"]`);
  assert.match(await labelledRow.locator('td[data-label="Speaker"]').innerText(), /^Barack H Obama$/, 'no badge: the file names its speakers');
  await labelledRow.getByRole('button', { name: '2012-10-16.said.txt' }).click();
  await page.locator('.speaker-picker li.mind', { hasText: 'Barack H Obama' }).waitFor();
});

test('the speaker picker: the file’s speakers with their words and lines; choosing one processes the snapshot again', { skip: noBrowser }, async () => {
  const snaps = (await server.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots;
  const labelled = snaps.find((s: any) => s.mindsetDate.startsWith('2012-10-16'));
  const picker = page.getByRole('form', { name: 'Who is Barack Obama in this file?' });
  await picker.waitFor();
  const { speakers } = (await server.api('GET', `/minds/${mindId}/snapshots/${labelled.id}/speakers`)).body;
  // The main voices first (most words); the minor ones are folded under one line until opened.
  const minor = picker.locator('details.minor-speakers');
  assert.equal(await minor.getAttribute('open'), null);
  assert.match(await minor.locator('summary').innerText(), new RegExp(`^${speakers.length - 4} more speakers with fewer words \\(`));
  await shot('03-speaker-picker');
  await minor.locator('summary').click();
  const items = picker.locator('fieldset li:has(> label)');
  assert.equal(await items.count(), speakers.length);
  const count = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
  for (const [i, sp] of [...speakers].sort((a: any, b: any) => b.words - a.words).entries()) {
    const item = items.nth(i);
    assert.match(await item.locator('label').innerText(), new RegExp(`^${sp.label}${sp.isMind ? '\\s*the mind now' : ''}\\s+${count(sp.turns, 'turn')}, ${count(sp.words, 'word')}$`));
    assert.deepEqual(await item.locator('.samples blockquote').allInnerTexts(), sp.samples.map((l: string) => `“${l}”`));
  }
  assert.equal(await picker.getByRole('radio', { name: /Barack H Obama/ }).isChecked(), true);
  await shotOf(picker, '03-speaker-picker-form');
  await assertAccessible(page, 'mind: the speaker picker');

  // Choose Romney: the row goes back through processing and comes back with him as the speaker.
  await picker.getByRole('radio', { name: /W Mitt Romney/ }).check();
  await picker.getByRole('button', { name: 'Use “W Mitt Romney” as Barack Obama' }).click();
  const row = page.locator(`tr[data-snapshot="${labelled.id}"]`);
  await row.and(page.locator('[data-status="completed"]')).locator('td[data-label="Speaker"]', { hasText: 'W Mitt Romney' }).waitFor({ timeout: 90_000 });
  const after = (await server.api('GET', `/minds/${mindId}/snapshots/${labelled.id}`)).body;
  assert.equal(after.mindSpeaker, 'W Mitt Romney');
  assert.equal(after.attribution, 'requested');
  assert.equal(await row.locator('td[data-label="Words"]').innerText(), after.mindWords.toLocaleString('en-US'));
  // And back: the picker follows the reprocessed snapshot.
  await picker.getByRole('radio', { name: /W Mitt Romney/ }).and(page.locator(':checked')).waitFor();
  await picker.getByRole('radio', { name: /Barack H Obama/ }).check();
  await picker.getByRole('button', { name: 'Use “Barack H Obama” as Barack Obama' }).click();
  await row.and(page.locator('[data-status="completed"]')).locator('td[data-label="Speaker"]', { hasText: 'Barack H Obama' }).waitFor({ timeout: 90_000 });
  assert.equal((await server.api('GET', `/minds/${mindId}/snapshots/${labelled.id}`)).body.mindSpeaker, 'Barack H Obama');
  await row.getByRole('button', { name: '2012-10-16.said.txt' }).click();
});

test('a transcript dropped on the page that cannot be processed shows why it failed', { skip: noBrowser }, async () => {
  await page.goto(app(`/minds/${mindId}`));
  await page.locator('table.snapshots tbody tr[data-snapshot]').first().waitFor();
  const before = await page.locator('table.snapshots tbody tr[data-snapshot]').count();
  const dt = await page.evaluateHandle(() => {
    const t = new DataTransfer();
    t.items.add(new File(['WEBVTT\n\n'], 'empty.vtt', { type: 'text/vtt' }));
    return t;
  });
  await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: dt });
  const failed = page.locator('table.snapshots tbody tr[data-status="failed"]');
  await failed.waitFor({ timeout: 30_000 });
  assert.match(await failed.locator('.reason').innerText(), /no cues/i);
  assert.equal(await page.locator('table.snapshots tbody tr[data-snapshot]').count(), before + 1);
  await shot('04-snapshot-failed');
  // A failed snapshot feeds nothing and counts nowhere: no link toggle, and the mind's count leaves it out.
  assert.equal(await failed.getByRole('button', { name: /link/ }).count(), 0);
  assert.equal(await failed.locator('td[data-label="Feeds profile"]').innerText(), 'no: it failed');
  assert.equal((await server.api('GET', `/minds/${mindId}`)).body.mind.snapshotCount, before);
  await page.waitForLoadState('networkidle');
  assert.equal(await page.locator('.counts div:first-child dd').innerText(), String(before));
  // Unlink and link still reach the service for the others; delete this one.
  const other = page.locator('table.snapshots tbody tr[data-status="completed"]').first();
  const otherId = await other.getAttribute('data-snapshot');
  await other.getByRole('button', { name: /unlink/ }).click();
  await other.getByRole('button', { name: /Unlinked · link/ }).waitFor();
  assert.equal((await server.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots.find((s: any) => s.id === otherId).linked, false);
  await other.getByRole('button', { name: /Unlinked · link/ }).click();
  await other.getByRole('button', { name: /Linked · unlink/ }).waitFor();
  await failed.getByRole('button', { name: 'Delete' }).click();
  await failed.getByRole('button', { name: 'Yes, delete' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('table.snapshots tbody tr[data-snapshot]').length === n, before);
});

test('the profile charts draw the real numbers, under a badge for the file that names no speakers', { skip: noBrowser }, async () => {
  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByRole('heading', { name: 'Big Five' }).waitFor();
  const note = page.locator('.every-voice');
  assert.equal(await note.locator('.badge.warn').innerText(), 'every voice in this file counts as Barack Obama');
  assert.match(await note.innerText(), /1 of 3 snapshots of this profile names no speakers \(2012-10-03\.vtt\)/);
  const { profile } = (await server.api('GET', `/minds/${mindId}/profile`)).body;
  const bars = page.locator('svg[role="img"] rect.bar');
  await bars.first().waitFor();
  assert.ok((await bars.count()) > 10, `bars drawn: ${await bars.count()}`);

  const label = (title: string) => page.locator(`svg[role="img"][aria-label^="${title}"]`).getAttribute('aria-label');
  const emotions = (await label('Emotion words per 100 words'))!;
  for (const t of profile.traits.filter((t: any) => t.instrument === 'emotion')) {
    const name = t.name.charAt(0).toUpperCase() + t.name.slice(1);
    assert.ok(emotions.includes(`${name} ${t.score.toFixed(2)}`), `emotion chart states ${name} ${t.score}: ${emotions}`);
  }
  const bigFive = (await label('Big Five traits'))!;
  for (const t of profile.traits.filter((t: any) => t.instrument === 'big_five')) {
    const name = t.name.charAt(0).toUpperCase() + t.name.slice(1);
    assert.ok(bigFive.includes(t.score === null ? `${name} not scored` : `${name} ${t.score.toFixed(2)}`), `Big Five chart states ${name}: ${bigFive}`);
  }
  const style = (await label('Communication style, per 100 words'))!;
  assert.match(style, /Hedging \d+\.\d\d/);
  const topics = (await label('Key topics by share'))!;
  assert.ok(profile.keyTopics.length > 0);
  for (const t of profile.keyTopics) assert.ok(topics.includes(`${t.label} ${(t.share * 100).toFixed(1)}%`), `topic ${t.label}: ${topics}`);
  // Findings, grouped by kind, each with its quote.
  assert.ok(profile.findings.length > 0);
  const findings = page.locator('section.panel', { hasText: 'Findings' });
  assert.ok((await findings.locator('.finding').count()) < profile.findings.length, 'long groups start folded');
  const more = findings.getByRole('button', { name: /^All \d+/ });
  while ((await more.count()) > 0) await more.first().click();
  assert.equal(await findings.locator('.finding').count(), profile.findings.length);
  assert.deepEqual((await page.locator('.finding blockquote').allInnerTexts()).sort(), profile.findings.map((f: any) => `“${f.quote}”`).sort());
  const kinds = new Set(profile.findings.map((f: any) => f.kind));
  assert.equal(await page.locator('.finding-group').count(), kinds.size);

  // Trajectories: one small chart per measure, a dot per snapshot at its mindset date.
  const series = (name: string) =>
    profile.trajectories
      .find((t: any) => t.name === name)
      .points.map((p: any) => `${p.mindsetDate.slice(0, 10)} ${p.score === null ? 'not scored' : p.score.toFixed(2)}`)
      .join('; ');
  assert.equal(await label('Openness over time'), `Openness over time: ${series('openness')}`);
  await page.getByRole('group', { name: 'Measures' }).getByRole('button', { name: 'Emotions' }).click();
  assert.equal(await label('Joy over time'), `Joy over time: ${series('joy')}`);
  assert.equal(await page.locator('.small-multiples svg path.line').count(), 8);
  await shotOf(page.locator('section.panel', { hasText: 'Trajectories' }), '05-profile-trajectories');
  await shotOf(page.locator('section.panel', { hasText: 'Findings' }), '05-profile-findings');
  await shot('05-profile');
  await shotOf(note, '05-profile-badge');
  await assertAccessible(page, 'profile');
});

test('simulate: the answer streams in with its evidence, and the conversation goes on', { skip: noBrowser }, async () => {
  const consoleFrom = consoleLines.length;
  const failedFrom = failedRequests.length;
  await page.getByRole('link', { name: 'Simulate' }).click();
  const asOf = page.getByLabel('As of');
  const options = await asOf.locator('option').allInnerTexts();
  assert.equal(options[0], 'all linked snapshots');
  assert.deepEqual(options.slice(1).map((o) => o.slice(0, 22)).sort(), ['snapshot of 2012-10-03', 'snapshot of 2012-10-03', 'snapshot of 2012-10-16']);
  const streamed = page.waitForResponse((r) => r.url().endsWith(`${BASE_PATH}/simulate`) && r.request().method() === 'POST');
  await page.getByLabel('Message').fill('What would you do about taxes for the middle class?');
  await page.getByLabel('Message').press('Enter');
  const res = await streamed;
  assert.match(res.headers()['content-type'] ?? '', /^text\/event-stream/);
  assert.equal(JSON.parse(res.request().postData()!).stream, true);
  const answer = page.locator('.turn.assistant[data-status="done"]');
  await answer.waitFor();
  const sims = (await server.api('GET', `/simulations?mindId=${mindId}`)).body.simulations;
  assert.equal(sims.length, 1);
  const { messages } = (await server.api('GET', `/simulations/${sims[0].id}`)).body;
  assert.equal(await answer.locator('.answer').innerText(), messages[1].content.text);
  const quotes = answer.locator('.evidence blockquote');
  const evidence = messages[1].content.evidence;
  // Evidence is the passages the answer is made of (one or two); past three, the rest fold behind a button.
  assert.ok(evidence.length >= 1, `evidence: ${evidence.length}`);
  assert.equal(await quotes.count(), Math.min(3, evidence.length));
  if (evidence.length > 3) await answer.getByRole('button', { name: `All ${evidence.length} quotes` }).click();
  assert.equal(await quotes.count(), evidence.length);
  assert.equal(await quotes.first().innerText(), `“${messages[1].content.evidence[0].quote}”`);
  assert.deepEqual(await answer.locator('.analysis dt').allInnerTexts(), ['THINKING', 'FEELING', 'SAYING', 'ACTING']);

  // A second question continues the same conversation.
  await page.getByLabel('Message').fill('And what about health care?');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.turn.assistant[data-status="done"]').nth(1).waitFor();
  const again = (await server.api('GET', `/simulations/${sims[0].id}`)).body.messages;
  assert.equal(again.length, 4);
  assert.equal((await server.api('GET', `/simulations?mindId=${mindId}`)).body.simulations.length, 1);
  // A third answer, all quotes open: the list scrolls inside, the composer stays in the window.
  await page.getByLabel('Message').fill('What do you think about energy?');
  await page.getByLabel('Message').press('Enter');
  await page.locator('.turn.assistant[data-status="done"]').nth(2).waitFor();
  const moreQuotes = page.getByRole('button', { name: /^All \d+ quotes$/ });
  while ((await moreQuotes.count()) > 0) await moreQuotes.first().click();
  const list = await page.locator('.messages').evaluate((el) => ({ scrollHeight: el.scrollHeight, clientHeight: el.clientHeight, scrollTop: el.scrollTop }));
  assert.ok(list.scrollHeight > list.clientHeight, `the messages overflow their list: ${JSON.stringify(list)}`);
  await assertInViewport(page, '.composer', 'the composer after three answers');
  await shot('06-simulate');
  await assertAccessible(page, 'simulate');
  // Completed streams end cleanly: no request cut off, nothing in the console about it.
  await page.waitForTimeout(500);
  assert.deepEqual(
    failedRequests.slice(failedFrom).filter((r) => r.includes(`${BASE_PATH}/simulate`)),
    [],
    'no simulation stream failed (one aborted after its last event shows as net::ERR_ABORTED)',
  );
  assert.deepEqual(consoleLines.slice(consoleFrom).filter((l) => /ERR_ABORTED|^error/i.test(l)), []);

  // A new conversation starts empty; the past one reopens from the list with its messages.
  await page.getByRole('button', { name: 'New conversation' }).click();
  assert.equal(await page.locator('.turn').count(), 0);
  await page.getByRole('list', { name: 'Past simulations' }).getByRole('button').first().click();
  await page.locator('.turn').nth(3).waitFor();
  assert.equal(await page.locator('.turn.user').first().innerText(), 'What would you do about taxes for the middle class?');
  // The scope of a conversation is fixed: the selector is locked while one is open, on the scope it began with.
  assert.equal(await asOf.isDisabled(), true);
  assert.equal(await asOf.inputValue(), '');
  assert.equal(await asOf.locator('option:checked').innerText(), 'all linked snapshots');

  // A new conversation as of one snapshot: its first request carries the snapshot, the next
  // ones only the conversation.
  await page.getByRole('button', { name: 'New conversation' }).click();
  const snapshot = (await server.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots.find((s: any) => s.mindsetDate.startsWith('2012-10-16'));
  await asOf.selectOption(snapshot.id);
  const ask = async (message: string, n: number) => {
    const req = page.waitForRequest((r) => r.url().endsWith(`${BASE_PATH}/simulate`) && r.method() === 'POST');
    await page.getByLabel('Message').fill(message);
    await page.getByLabel('Message').press('Enter');
    const body = JSON.parse((await req).postData()!);
    const turn = page.locator('.turn.assistant').nth(n);
    await page.locator('.turn.assistant:not([data-status="streaming"])').nth(n).waitFor();
    assert.equal(await turn.getAttribute('data-status'), 'done', await turn.evaluate((e) => e.outerHTML));
    return body;
  };
  const first = await ask('What about jobs?', 0);
  assert.equal(first.snapshotId, snapshot.id);
  assert.equal(first.conversationId, undefined);
  const second = await ask('And the deficit?', 1);
  assert.equal(second.snapshotId, undefined);
  assert.ok(second.conversationId);
  assert.equal(await asOf.inputValue(), snapshot.id);
  const stored = (await server.api('GET', `/simulations/${second.conversationId}`)).body;
  assert.equal(stored.simulation.mindAssessmentId, snapshot.id);
  assert.equal(stored.simulation.asOfSnapshotId, snapshot.id);
  assert.equal(stored.messages.length, 4);

  // Reopened, a conversation shows the snapshot scope it was started with (the list says it too).
  await page.getByRole('button', { name: 'New conversation' }).click();
  assert.equal(await asOf.isDisabled(), false);
  const past = page.getByRole('list', { name: 'Past simulations' }).getByRole('button');
  await past.nth(1).waitFor();
  assert.match(await past.nth(0).innerText(), /^What about jobs\?\n.*\nas of snapshot of 2012-10-16$/);
  assert.doesNotMatch(await past.nth(1).innerText(), /as of/);
  await past.nth(1).click();
  await page.locator('.turn.user', { hasText: 'What would you do about taxes' }).waitFor();
  assert.equal(await asOf.inputValue(), '');
  await past.nth(0).click();
  await page.locator('.turn.user', { hasText: 'What about jobs?' }).waitFor();
  assert.equal(await asOf.inputValue(), snapshot.id);
  assert.equal(await asOf.locator('option:checked').innerText(), `snapshot of 2012-10-16 (${snapshot.id.slice(0, 8)})`);
  assert.equal(await asOf.isDisabled(), true);
  await shot('06-simulate-reopened');
});

test('simulate a mind without snapshots: an empty state that says to upload a transcript, not an API error', { skip: noBrowser }, async () => {
  const { mind } = (await server.api('POST', '/minds', { name: 'Jane Doe' })).body;
  const failedFrom = failedRequests.length;
  await page.goto(app(`/minds/${mind.id}/simulate`));
  const empty = page.getByRole('region', { name: 'Nothing to answer from yet' });
  await empty.waitFor();
  assert.match(await empty.innerText(), /Upload a transcript of Jane Doe/);
  assert.equal(await page.locator('.error, [role="alert"]').count(), 0);
  assert.equal(await page.getByLabel('Message').count(), 0, 'no composer that could only fail');
  await shot('06-simulate-empty');
  await assertAccessible(page, 'simulate: empty state');
  await empty.getByRole('link', { name: 'Upload a transcript' }).click();
  await page.getByRole('heading', { name: 'Upload a transcript' }).waitFor();
  assert.equal(new URL(page.url()).pathname, `/app/minds/${mind.id}`);
  assert.deepEqual(failedRequests.slice(failedFrom), []);
});

test('usage shows the requests of this key', { skip: noBrowser }, async () => {
  await new Promise((r) => setTimeout(r, 300)); // the usage batch (100 ms here) is written
  await page.getByRole('link', { name: 'Usage' }).click();
  const total = page.locator('[data-stat="total"]');
  await total.waitFor();
  const shown = Number((await total.innerText()).replace(/,/g, ''));
  const api = (await server.api('GET', '/usage')).body;
  assert.ok(shown >= 10 && shown <= api.totalCount, `total ${shown} (API now ${api.totalCount})`);
  const ops = (await page.locator('svg[aria-label^="Requests per operation"]').getAttribute('aria-label'))!;
  // Each operation by its summary in the OpenAPI document, its method and path beside the numbers.
  assert.match(ops, /Run a simulation \d+ \(POST \/simulate: \d+ succeeded, \d+ failed\)/);
  assert.match(ops, /Create a memory bank snapshot \d+ \(POST \/minds\/\{mindId\}\/snapshots: /);
  assert.match(ops, /Choose the mind’s speaker of a snapshot \d+ \(PUT /);
  // Every label drawn is distinct, and there is one per operation.
  const drawn = await page.locator('svg[aria-label^="Requests per operation"] text.label').allTextContents();
  assert.equal(drawn.length, ops.split('; ').length);
  assert.equal(new Set(drawn).size, drawn.length, `labels: ${drawn.join(' | ')}`);
  assert.ok(drawn.every((l) => !l.endsWith('…')), `no label is cut: ${drawn.join(' | ')}`);
  const latency = (await page.locator('svg[aria-label^="Latency percentiles"]').getAttribute('aria-label'))!;
  assert.match(latency, /median \d+(\.\d)? ms/);
  assert.ok((await page.locator('svg[aria-label^="Latency percentiles"] rect.bar').count()) >= 5);
  // Requests per day: today's column, from the per-day counts; the days before it have none.
  const daily = page.locator('svg[aria-label^="Requests per day"]');
  const label = (await daily.getAttribute('aria-label'))!;
  const today = new Date().toISOString().slice(0, 10);
  const shownToday = Number(new RegExp(`${today} (\\d+)`).exec(label)?.[1]);
  assert.ok(shownToday >= 10 && shownToday <= api.days.at(-1).totalCount, `${label} / ${JSON.stringify(api.days)}`);
  assert.match(label, /; no requests on the other 29 days$/);
  assert.ok((await daily.locator('rect.bar').count()) >= 1);
  await shot('07-usage');
  await shotOf(page.locator('section.panel', { hasText: 'Requests per day' }), '07-usage-per-day');
  await assertAccessible(page, 'usage');
});

test('API keys: create shows the secret once, revoke stops it', { skip: noBrowser }, async () => {
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.locator('table.keys tbody tr').first().waitFor();
  assert.match(await page.locator('table.keys tbody tr').first().innerText(), /this session/);
  await page.getByLabel(/^Name/).fill('ci-dashboard');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByLabel('New key secret').inputValue();
  assert.match(secret, /^mp_/);
  assert.equal((await server.api('GET', '/minds', undefined, secret)).status, 200);
  await shot('08-key-created');
  await assertAccessible(page, 'API keys with a new secret');
  await page.getByRole('button', { name: 'Done' }).click();
  assert.equal(await page.getByLabel('New key secret').count(), 0);
  const row = page.locator('table.keys tbody tr', { hasText: 'ci-dashboard' });
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await row.getByText(/^revoked/).waitFor();
  assert.equal((await server.api('GET', '/minds', undefined, secret)).status, 401);
});

test("revoking the session's own key brings back the key form; sign out forgets the key", { skip: noBrowser }, async () => {
  const own = (await server.api('POST', '/api-keys', { name: 'short-lived' })).body.key as string;
  const p = await browser.context.newPage();
  await signIn(p, own);
  await p.getByRole('link', { name: 'API keys' }).click();
  const row = p.locator('table.keys tbody tr', { hasText: 'this session' });
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await p.getByRole('status').filter({ hasText: 'no longer accepts this key' }).waitFor();
  await p.getByLabel('API key').waitFor();
  assert.equal(await p.evaluate(() => sessionStorage.getItem('mindprint.apiKey')), null);
  await p.close();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('mindprint.apiKey')), null);
});

test('a phone-width window keeps everything inside the screen: tables reflow, every page passes axe', { skip: noBrowser }, async () => {
  const p = await browser.context.newPage();
  await p.setViewportSize(PHONE);
  await p.goto(app('/'));
  await assertAccessible(p, 'phone: sign-in');
  await signIn(p, server.key);
  const empty = (await server.api('GET', '/minds/search?query=jane')).body.minds[0];
  for (const [name, route] of [
    ['minds', '/'],
    ['mind', `/minds/${mindId}`],
    ['profile', `/minds/${mindId}/profile`],
    ['simulate', `/minds/${mindId}/simulate`],
    ['simulate-empty', `/minds/${empty.id}/simulate`],
    ['usage', '/usage'],
    ['keys', '/keys'],
  ] as const) {
    await p.goto(app(route));
    await p.locator('main h1, main h2').first().waitFor();
    if (name === 'profile') await p.locator('svg[role="img"] rect.bar').first().waitFor();
    if (name === 'usage') await p.locator('svg[aria-label^="Requests per day"]').waitFor();
    if (name === 'minds' || name === 'mind' || name === 'keys') await p.locator('tbody tr td.actions button').first().waitFor();
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the window`);
    // Every Delete/Revoke button is on the screen, not cut off or scrolled away to the right.
    for (const button of await p.locator('tbody td.actions button').all()) {
      const box = (await button.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${name}: “${await button.innerText()}” at ${JSON.stringify(box)}`);
    }
    if (name === 'mind') {
      // The badge and the speaker picker on a phone.
      const row = p.locator('table.snapshots tbody tr[data-snapshot]', { hasText: '2012-10-03.vtt' });
      assert.equal(await row.locator('.badge.warn').innerText(), 'every voice in this file counts as Barack Obama');
      await shotOf(row, '09-narrow-snapshot-badge');
      await p.locator('table.snapshots tbody tr[data-snapshot]', { hasText: '2012-10-16.said.txt' }).getByRole('button', { name: '2012-10-16.said.txt' }).click();
      await p.locator('.speaker-picker .samples').first().waitFor();
      const wide = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 0, `the open speaker picker is ${wide}px wider than the window`);
      await shotOf(p.locator('.speaker-picker'), '09-narrow-speaker-picker');
    }
    if (name === 'simulate') {
      await p.getByRole('list', { name: 'Past simulations' }).getByRole('button').last().click();
      await p.locator('.turn.assistant').nth(1).waitFor();
      await p.locator('.chat').evaluate((el) => el.scrollIntoView());
      await assertInViewport(p, '.composer', 'phone: the composer of a reopened conversation');
    }
    await shot(`09-narrow-${name}`, p);
    await assertAccessible(p, `phone: ${name}`);
  }
  await p.close();
});

test('no uncaught error happened in the dashboard', { skip: noBrowser }, () => {
  assert.deepEqual(pageErrors, []);
});
