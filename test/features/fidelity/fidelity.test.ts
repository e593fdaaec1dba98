/**
 * The fidelity check every mind carries, end to end on the database the suite runs on (PGlite, or
 * PostgreSQL with TEST_DATABASE_URL): a mind of two real debates (test/fixtures) gets a ready
 * check with every measure in range; a mind of one short conversation is insufficient and says
 * why; another organization's mind is a 404; a new snapshot recomputes it; at most one check per
 * mind waits at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { queueFidelity } from '../../../src/features/fidelity/job.ts';
import { fixtureFile, rows, upload, waitForSnapshot } from '../snapshots/support.ts';
import { onPostgres, startTestServer, type TestServer } from '../../support/server.ts';

const DEBATE = (d: string) => `transcripts/us-presidential-debates/${d}.said.txt`;

/** Polls GET /minds/{id}/fidelity until `done` holds (bounded). */
export async function waitForFidelity(s: TestServer, mindId: string, done: (f: any) => boolean, timeoutMs = 120_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api('GET', `/minds/${mindId}/fidelity`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`fidelity still ${JSON.stringify(res.body)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function uploadDebate(s: TestServer, mindId: string, date: string): Promise<string> {
  const res = await upload(s, mindId, { file: { bytes: await fixtureFile(DEBATE(date)), name: `${date}.txt` }, mindsetDate: `${date}T00:00:00Z` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const done = await waitForSnapshot(s, mindId, res.body.mindAssessmentId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return res.body.mindAssessmentId;
}

const BIN = fileURLToPath(new URL('../../../bin/mindprint.js', import.meta.url));

/** `mindprint …` as a user runs it, against the test server. */
function cli(s: TestServer, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', MINDPRINT_URL: s.url, MINDPRINT_API_KEY: s.key }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

const inUnit = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 1;

describe(`fidelity check (${onPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  let s: TestServer;
  let obama: string;

  before(async () => {
    s = await startTestServer();
    obama = (await s.api('POST', '/minds', { name: 'Barack Obama' })).body.mind.id;
    await uploadDebate(s, obama, '2012-10-03');
    await uploadDebate(s, obama, '2012-10-16');
  });
  after(() => s?.close());

  test('a mind of two debates gets a ready check: each held out in turn, every measure in [0, 1], n > 0, two example triples', async () => {
    const f = await waitForFidelity(s, obama, (b) => b.status !== 'pending');
    assert.equal(f.status, 'ready', JSON.stringify(f));
    assert.equal(f.current, true);
    assert.equal(f.reason, null);
    assert.equal(f.conversations, 2);
    assert.ok(f.questions > 0 && f.questions <= 40, `n = ${f.questions}`);
    for (const k of ['specificity', 'beyondQuestion', 'abstentionRate']) assert.ok(inUnit(f[k]), `${k} = ${f[k]}`);
    assert.ok(typeof f.medianSourceTurns === 'number' && f.medianSourceTurns >= 0);
    assert.equal(f.engine, 'mindprint-extractive-1');
    assert.equal(f.embedder, 'glove-6b-100d-sif@1');
    assert.ok(!Number.isNaN(Date.parse(f.computedAt)));
    assert.equal(f.examples.length, 2);
    for (const e of f.examples) {
      assert.ok(e.question.endsWith('?') || e.question.endsWith('…'), e.question);
      assert.ok(e.real.length > 0 && e.simulated.length > 0);
      assert.ok(e.specificity === null || inUnit(e.specificity));
    }
    assert.match(f.summary, /fidelity: asked \d+ questions? from its own 2 conversations/);
    console.log(`fidelity of a two-debate mind: ${JSON.stringify({ ...f, examples: f.examples.length })}`);
    const [row] = await rows(s, sql`select duration_ms from mind_fidelity where mind_id = ${obama}`);
    console.log(`computed in ${row.duration_ms} ms`);
    // Nothing changed: reading it again queues nothing.
    const again = await s.api('GET', `/minds/${obama}/fidelity`);
    assert.equal(again.body.status, 'ready');
    const [live] = await rows(s, sql`select count(*)::int as n from pgboss.job where name = 'mind-fidelity' and data->>'mindId' = ${obama} and state in ('created', 'retry')`);
    assert.equal(live.n, 0);
  });

  test('a mind of one short conversation is insufficient, with the reason; a mind with none says so at once', async () => {
    const ada = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind.id;
    const none = await s.api('GET', `/minds/${ada}/fidelity`);
    assert.equal(none.status, 200);
    assert.equal(none.body.status, 'insufficient');
    assert.match(none.body.reason, /no completed, linked conversation/);
    const text = [
      'Interviewer: What do you enjoy most about your work with the engine?',
      'Ada: I love explaining the engine to anyone who will listen, and I never mind being the center of attention at a lecture.',
      'Interviewer: Where do your ideas come from, do you think?',
      'Ada: I call it poetical science: imagination and mathematics together, the engine weaving algebraic patterns as a loom weaves flowers.',
    ].join('\n');
    const res = await upload(s, ada, { file: { bytes: text, name: 'ada.txt' }, mindsetDate: '1843-07-10T00:00:00Z' });
    assert.equal((await waitForSnapshot(s, ada, res.body.mindAssessmentId)).status, 'completed');
    const f = await waitForFidelity(s, ada, (b) => b.status !== 'pending');
    assert.equal(f.status, 'insufficient', JSON.stringify(f));
    assert.match(f.reason, /One conversation with 2 turns of the person: a fidelity check needs a second conversation/);
    assert.equal(f.specificity, null);
    assert.deepEqual(f.examples, []);
    assert.match(f.summary, /^Not enough to check this mind yet\./);
  });

  test('mindprint fidelity prints the trust line, the numbers and two examples; --json the service’s answer; an insufficient mind says why', async () => {
    const f = await waitForFidelity(s, obama, (b) => b.status === 'ready' && b.current);
    const r = await cli(s, ['fidelity', '--mind', 'Barack Obama', '--wait']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith(`Barack Obama: ${f.summary}\n`), r.stdout);
    assert.match(r.stdout, /specificity AUC 0\.\d{3} \(0\.5 is chance\) · beyond the question 0\.\d{3} · abstained [01]\.\d{3} · median source turns \d/);
    assert.match(r.stdout, new RegExp(`n = ${f.questions} questions from 2 conversations · engine mindprint-extractive-1`));
    assert.equal([...r.stdout.matchAll(/^Example \d \(specificity .+\):\n {2}Q: .+\n {2}Real: .+\n {2}Simulated: .+$/gm)].length, 2, r.stdout);
    const json = await cli(s, ['fidelity', '--mind', obama, '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), f);
    const ada = await cli(s, ['fidelity', '--mind', 'Ada Lovelace', '--wait']);
    assert.equal(ada.code, 0, ada.stderr);
    assert.match(ada.stdout, /^Ada Lovelace: Not enough to check this mind yet\. One conversation with 2 turns/);
    assert.doesNotMatch(ada.stdout, /specificity AUC/);
  });

  test('another organization’s mind is a 404; an unknown one too', async () => {
    const other = await s.newKey('other-org', 'someone@example.com');
    const res = await s.api('GET', `/minds/${obama}/fidelity`, undefined, other.key);
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.equal(res.body.code, 'NOT_FOUND');
    assert.equal((await s.api('GET', '/minds/00000000-0000-4000-8000-000000000000/fidelity')).status, 404);
  });

  test('at most one check per mind waits: queueing again while one waits joins it', async () => {
    const [{ organization_id: organizationId }] = await rows(s, sql`select organization_id from minds where id = ${obama}`);
    // (Inside the transaction, only `tx`: PGlite runs one transaction at a time.)
    const queued = await s.ctx.db.transaction(async (tx) => [
      await queueFidelity(tx, s.ctx.queue, { mindId: obama, organizationId }),
      await queueFidelity(tx, s.ctx.queue, { mindId: obama, organizationId }),
    ]);
    assert.deepEqual(queued, [true, false]);
  });

  test('a new snapshot recomputes the check: ready again on three conversations, computed later', async () => {
    const before = await waitForFidelity(s, obama, (b) => b.status === 'ready' && b.current);
    await uploadDebate(s, obama, '2012-10-22');
    const f = await waitForFidelity(s, obama, (b) => b.status === 'ready' && b.conversations === 3);
    assert.equal(f.current, true);
    assert.ok(Date.parse(f.computedAt) > Date.parse(before.computedAt));
    assert.ok(f.questions > 0 && f.questions <= 40);
    for (const k of ['specificity', 'beyondQuestion', 'abstentionRate']) assert.ok(inUnit(f[k]), `${k} = ${f[k]}`);
  });
});
