/**
 * The dashboard in a real browser (Debian chromium through playwright-core) against the real
 * service: sign in, minds, upload and processing, profile charts, streamed simulation, usage,
 * API keys. The server runs under a non-default MINDPRINT_BASE_PATH, so every step also proves
 * the dashboard takes the API path from the server. Screenshots go to /tmp/web-shots/.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ensureDashboard } from '../../src/web/build.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { fixturePath } from '../support/shared-data.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = '/tmp/web-shots';
const BASE_PATH = '/api/public/v1';
/** The debate excerpts of test/fixtures. */
const DEBATES = fixturePath('transcripts/us-presidential-debates/');
/** Auto-captions: no speaker labels, so the whole debate is one speaker's single turn. */
const TRANSCRIPT = path.join(DEBATES, '2012-10-03.vtt');
/** The same debates with speaker labels ("Barack H Obama: …"). */
const LABELLED = ['2012-10-03', '2012-10-16'].map((d) => path.join(DEBATES, `${d}.said.txt`));
const noBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `no chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)` : false;
const noTranscript = [TRANSCRIPT, ...LABELLED].every((f) => existsSync(f)) ? false : `transcripts not found in ${DEBATES}`;

let server: TestServer;
let context: BrowserContext;
let profileDir: string;
let page: Page;
let mindId = '';

const app = (p = '/') => `${server.url}/app${p}`;
/** Uncaught exceptions in the dashboard: none may happen. */
const pageErrors: string[] = [];
async function shot(name: string, p: Page = page) {
  await p.evaluate(() => scrollTo(0, 0));
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  await p.screenshot({ path: path.join(SHOTS, `${name}-top.png`) });
}

async function signIn(p: Page, key: string) {
  await p.goto(app('/'));
  await p.getByLabel('API key').fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

before(async () => {
  if (noBrowser) return;
  await Promise.all([ensureDashboard({ quiet: true }), mkdir(SHOTS, { recursive: true })]);
  server = await startTestServer({ MINDPRINT_BASE_PATH: BASE_PATH }, { usageFlushMs: 100 });
  profileDir = await mkdtemp(path.join(os.tmpdir(), 'mp-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(20_000);
  context.on('weberror', (e) => pageErrors.push(e.error().stack ?? e.error().message));
  if (process.env.DEBUG_WEB) context.on('console', (m) => console.error(`[browser ${m.type()}] ${m.text()}`));
  page = context.pages()[0] ?? (await context.newPage());
});

after(async () => {
  await context?.close();
  await server?.close();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
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
});

test('upload a real debate transcript: progress, live status, completed', { skip: noBrowser || noTranscript }, async () => {
  await page.goto(app(`/minds/${mindId}`));
  await page.getByLabel(/Mindset date/).fill('2012-10-03');
  await page.getByLabel('Transcript files').setInputFiles(TRANSCRIPT);
  const upload = page.getByRole('list', { name: 'Uploads' }).locator('li').first();
  await upload.getByText('uploaded; processing below').waitFor();
  assert.equal(await upload.locator('progress').evaluate((p: HTMLProgressElement) => p.value === p.max && p.max > 0), true);
  const row = page.locator('table.snapshots tbody tr[data-snapshot]').first();
  await row.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 90_000 });
  assert.match(await row.innerText(), /2012-10-03/);
  // The header's counts follow the finished snapshot.
  await page.waitForFunction(() => Number(document.querySelector('.counts div:nth-child(2) dd')?.textContent) > 0);
  await row.getByRole('button', { name: '2012-10-03' }).click();
  await page.locator('.snapshot-details').getByText('2012-10-03.vtt').waitFor();
  // Captions name no speakers: the details say why the mind holds every voice of the file.
  assert.match(await page.locator('.snapshot-details .attribution-note.warn').innerText(), /names no speakers/);
  await shot('03-snapshot-completed');

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
  await page.locator(`tr[data-snapshot="${labelled.id}"]`).getByRole('button', { name: '2012-10-16' }).click();
  await page.locator('.speakers li.mind', { hasText: 'Barack H Obama' }).waitFor();
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
  // Unlink, link again, delete: each reaches the service.
  const id = await failed.getAttribute('data-snapshot');
  await failed.getByRole('button', { name: /unlink/ }).click();
  await failed.getByRole('button', { name: /Unlinked · link/ }).waitFor();
  assert.equal((await server.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots.find((s: any) => s.id === id).linked, false);
  await failed.getByRole('button', { name: 'Delete' }).click();
  await failed.getByRole('button', { name: 'Yes, delete' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('table.snapshots tbody tr[data-snapshot]').length === n, before);
});

test('the profile charts draw the real numbers', { skip: noBrowser || noTranscript }, async () => {
  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByRole('heading', { name: 'Big Five' }).waitFor();
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
  await page.locator('section.panel', { hasText: 'Trajectories' }).screenshot({ path: path.join(SHOTS, '05-profile-trajectories.png') });
  await page.locator('section.panel', { hasText: 'Findings' }).screenshot({ path: path.join(SHOTS, '05-profile-findings.png') });
  await shot('05-profile');
});

test('simulate: the answer streams in with its evidence, and the conversation goes on', { skip: noBrowser || noTranscript }, async () => {
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
  assert.ok(evidence.length > 3, `evidence: ${evidence.length}`);
  assert.equal(await quotes.count(), 3);
  await answer.getByRole('button', { name: `All ${evidence.length} quotes` }).click();
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
  await shot('06-simulate');

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

test('usage shows the requests of this key', { skip: noBrowser }, async () => {
  await new Promise((r) => setTimeout(r, 300)); // the usage batch (100 ms here) is written
  await page.getByRole('link', { name: 'Usage' }).click();
  const total = page.locator('[data-stat="total"]');
  await total.waitFor();
  const shown = Number((await total.innerText()).replace(/,/g, ''));
  const api = (await server.api('GET', '/usage')).body;
  assert.ok(shown >= 10 && shown <= api.totalCount, `total ${shown} (API now ${api.totalCount})`);
  const ops = (await page.locator('svg[aria-label^="Requests per operation"]').getAttribute('aria-label'))!;
  assert.match(ops, /POST \/simulate \d+/);
  assert.match(ops, /POST \/minds\/\{mindId\}\/snapshots \d+/);
  const latency = (await page.locator('svg[aria-label^="Latency percentiles"]').getAttribute('aria-label'))!;
  assert.match(latency, /median \d+(\.\d)? ms/);
  assert.ok((await page.locator('svg[aria-label^="Latency percentiles"] rect.bar').count()) >= 5);
  await shot('07-usage');
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
  const p = await context.newPage();
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

test('a narrow window keeps everything inside the screen', { skip: noBrowser || noTranscript }, async () => {
  const p = await context.newPage();
  await p.setViewportSize({ width: 390, height: 844 });
  await signIn(p, server.key);
  for (const [name, route] of [
    ['minds', '/'],
    ['mind', `/minds/${mindId}`],
    ['profile', `/minds/${mindId}/profile`],
    ['simulate', `/minds/${mindId}/simulate`],
    ['usage', '/usage'],
    ['keys', '/keys'],
  ] as const) {
    await p.goto(app(route));
    await p.locator('main h1').first().waitFor();
    if (name === 'profile') await p.locator('svg[role="img"] rect.bar').first().waitFor();
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the window`);
    await shot(`09-narrow-${name}`, p);
  }
  await p.close();
});

test('no uncaught error happened in the dashboard', { skip: noBrowser }, () => {
  assert.deepEqual(pageErrors, []);
});
