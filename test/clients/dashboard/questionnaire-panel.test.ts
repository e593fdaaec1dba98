/**
 * The dashboard's Profile page with questionnaire psychometrics: an LLM configured to the fake
 * OpenAI-compatible server answers the IPIP markers, and the page shows a "Questionnaire (LLM
 * role-play)" panel beside the Big Five with the scores the API reports, saying whose answers
 * they are; accessible (axe-core). Without questionnaire rows the panel is absent
 * (test/clients/dashboard/dashboard.test.ts runs without an LLM and sees no such heading).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ipipBfm50 } from '../../../src/lib/analysis/questionnaire.ts';
import { ensureDashboard } from '../../../src/clients/dashboard/build.ts';
import { llmEnv, startFakeOpenAiServer, type FakeOpenAiServer } from '../../fakes/openai-compatible-server.ts';
import { upload, waitForSnapshot } from '../../features/snapshots/support.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { AXE, SHOTS, noBrowser, openBrowser, type Browser } from './browser.ts';

const MODEL = 'fake-model';
const inst = ipipBfm50();

const TRANSCRIPT = [
  'Interviewer: What do you enjoy most about your work?',
  'Ada: I love meeting people and talking with everyone at the parties after our lectures, and I never mind being the center of attention when I explain the engine to a crowd.',
  'Interviewer: Where do your ideas come from?',
  'Ada: I spend a great deal of time reflecting on things. I call it poetical science: imagination and mathematics together, the engine weaving algebraic patterns the way a loom weaves flowers.',
  'Interviewer: And when things go wrong?',
  'Ada: Then I worry, I confess it. A wrong figure in a table can spoil my week, and I write to my friends until the error is found and the whole calculation stands again, clean and sure.',
  'Interviewer: Do you plan your days?',
  'Ada: I keep a schedule, mostly, though the schedule bends whenever a good idea arrives; then I follow the idea for as long as it lasts and catch up on the letters afterwards.',
].join('\n');

let fake: FakeOpenAiServer;
let server: TestServer;
let browser: Browser;
let page: Page;

before(async () => {
  if (noBrowser) return;
  await ensureDashboard({ quiet: true });
  // Every item answered 4 if + keyed, 2 if − keyed: every published factor mean 4 → 0.75, so neuroticism (Emotional Stability reflected) 0.25.
  fake = await startFakeOpenAiServer({
    models: [MODEL],
    reply: (request) => {
      const asked = [...String(request.body.messages.at(-1).content).matchAll(/^Q(\d+): /gm)].map((m) => Number(m[1]));
      return { json: { answers: asked.map((n) => ({ item: `Q${n}`, answer: inst.items[n - 1]!.key === '+' ? 4 : 2, excerpt: 1 })) } };
    },
  });
  server = await startTestServer(llmEnv(fake, MODEL));
  browser = await openBrowser();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

test('the Profile page shows the questionnaire beside the Big Five, as the LLM’s answers on the person’s behalf', { skip: noBrowser }, async () => {
  const mind = (await server.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
  const res = await upload(server, mind.id, { file: { bytes: TRANSCRIPT, name: 'interview.txt', type: 'text/plain' } });
  const snapshotId = res.body.mindAssessmentId;
  assert.equal((await waitForSnapshot(server, mind.id, snapshotId)).status, 'completed');
  const deadline = Date.now() + 30_000;
  let traits: any[] = [];
  while (Date.now() < deadline) {
    traits = (await server.api('GET', `/minds/${mind.id}/profile`)).body.profile.traits.filter((t: any) => t.instrument === 'ipip-bfm-50');
    if (traits.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(traits.map((t) => [t.name, t.score]), [['extraversion', 0.75], ['agreeableness', 0.75], ['conscientiousness', 0.75], ['neuroticism', 0.25], ['openness', 0.75]]);

  await page.goto(`${server.url}/app/`);
  await page.getByLabel('API key').fill(server.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.goto(`${server.url}/app/minds/${mind.id}/profile`);
  const panel = page.locator('section.panel', { has: page.getByRole('heading', { name: 'Questionnaire (LLM role-play)' }) });
  await panel.waitFor();
  const chart = await panel.getByRole('img').getAttribute('aria-label');
  assert.match(chart!, /Extraversion 0\.75 \(confidence [\d.]+\)/);
  assert.match(chart!, /Neuroticism 0\.25/);
  assert.match(await panel.locator('.legend').innerText(), /not\s+their own/);
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, 'profile-questionnaire.png'), fullPage: true });
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => (await (window as any).axe.run(document, { resultTypes: ['violations'] })).violations.map((v: any) => v.id));
  assert.deepEqual(violations, []);
});
