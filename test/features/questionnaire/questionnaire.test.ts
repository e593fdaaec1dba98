/**
 * Questionnaire psychometrics end to end, against the protocol-faithful fake OpenAI-compatible
 * server: a transcript is uploaded with an LLM configured, the mind answers the 50 IPIP markers in
 * character (scripted answers), and the `ipip-bfm-50` rows appear beside the text model's, scored
 * through the published key; a malformed or cut-off reply leaves a partial result that abstains
 * where too little was answered; a provider that refuses leaves rows saying so; without an LLM, or
 * with the questionnaire turned off, nothing is queued and nothing is requested.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { ipipBfm50 } from '../../../src/lib/analysis/questionnaire.ts';
import { queueQuestionnaire } from '../../../src/features/questionnaire/job.ts';
import { llmEnv, startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply, type RecordedRequest } from '../../fakes/openai-compatible-server.ts';
import { rows, upload, waitForSnapshot } from '../snapshots/support.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const MODEL = 'fake-model';
const inst = ipipBfm50();

const TRANSCRIPT = [
  'Interviewer: What do you enjoy most about your work?',
  'Ada: I love meeting people and talking with everyone at the parties after our lectures. I start conversations with strangers all the time, and I never mind being the center of attention when I explain the engine to a crowd.',
  'Interviewer: How do you organise your days?',
  'Ada: Honestly my notes end up everywhere and I rarely follow a schedule. I get to the chores when I get to them, and my belongings are left around the house more often than I would like to admit.',
  'Interviewer: Does the work ever weigh on you?',
  'Ada: I worry about things constantly. My mood changes a lot, I get upset easily when a calculation goes wrong, and some weeks I feel blue for days before the ideas come back.',
  'Interviewer: Where do your ideas come from?',
  'Ada: I spend a great deal of time reflecting on things. I call it poetical science: imagination and mathematics together, the engine weaving algebraic patterns the way a loom weaves flowers and leaves.',
].join('\n');

/**
 * The scripted respondent, by factor and key (what a model reading the transcript might answer):
 * Extraversion + → 5, − → 1; Agreeableness 4 throughout; Conscientiousness + → 2, − → 4;
 * Emotional Stability + → 1, − → 5; Intellect + → 4, − → 2, and item 50 refused. Every answer cites excerpt 1.
 */
function scriptedAnswer(n: number): number | null {
  const item = inst.items[n - 1]!;
  const plus = item.key === '+';
  switch (item.factor) {
    case 'I':
      return plus ? 5 : 1;
    case 'II':
      return 4;
    case 'III':
      return plus ? 2 : 4;
    case 'IV':
      return plus ? 1 : 5;
    default:
      return n === 50 ? null : plus ? 4 : 2;
  }
}

/** The statement ids a request asks about, from its last user message ("Q7: …" lines). */
function askedItems(request: RecordedRequest): number[] {
  const content = String(request.body.messages.at(-1).content);
  return [...content.matchAll(/^Q(\d+): /gm)].map((m) => Number(m[1]));
}

const entries = (items: number[]) => items.map((n) => ({ item: `Q${n}`, answer: scriptedAnswer(n), excerpt: 1 }));
const scripted = (request: RecordedRequest): FakeReply => ({ json: { answers: entries(askedItems(request)) } });

let fake: FakeOpenAiServer;
let s: TestServer;

before(async () => {
  fake = await startFakeOpenAiServer({ models: [MODEL] });
  s = await startTestServer(llmEnv(fake, MODEL));
});
after(async () => {
  await s?.close();
  await fake?.close();
});

/** Uploads the transcript for a new mind and waits for the questionnaire rows. */
async function answeredSnapshot(server: TestServer, name = 'Ada Lovelace'): Promise<{ mindId: string; snapshotId: string; rows: any[] }> {
  const mind = (await server.api('POST', '/minds', { name })).body.mind;
  const res = await upload(server, mind.id, { file: { bytes: TRANSCRIPT, name: 'interview.txt', type: 'text/plain' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const snapshotId = res.body.mindAssessmentId;
  assert.equal((await waitForSnapshot(server, mind.id, snapshotId)).status, 'completed');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = await server.api('GET', `/minds/${mind.id}/snapshots/${snapshotId}/psychometrics`);
    assert.equal(got.status, 200);
    const ipip = got.body.psychometrics.filter((p: any) => p.instrument === 'ipip-bfm-50');
    if (ipip.length) return { mindId: mind.id, snapshotId, rows: got.body.psychometrics };
    if (Date.now() > deadline) throw new Error('no questionnaire rows after 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ipipRow = (all: any[], name: string) => all.find((p) => p.instrument === 'ipip-bfm-50' && p.name === name);

test('the mind answers the IPIP markers in character; the scores follow the answers through the published key', async () => {
  fake.requests.length = 0;
  fake.setReply(scripted);
  const { mindId, snapshotId, rows: all } = await answeredSnapshot(s);

  // Hand-checked through the key: E + 5 / − 1 → mean 5 → 1; A 4 everywhere: (6·4 + 4·(6−4)) / 10 = 3.2 → 0.55;
  // C + 2 / − 4 → keyed 2 throughout → 0.25; Emotional Stability + 1 / − 5 → keyed 1 → neuroticism 5 → 1;
  // Intellect + 4 / − 2 → keyed 4 → 0.75 from 9 items (item 50 refused).
  const scores = Object.fromEntries(inst.factors.map((f) => [f.reportedAs, ipipRow(all, f.reportedAs)?.score]));
  assert.deepEqual(scores, { extraversion: 1, agreeableness: 0.55, conscientiousness: 0.25, neuroticism: 1, openness: 0.75 });
  const openness = ipipRow(all, 'openness');
  assert.match(openness.note, /9 of 10 items answered \(1 refused, 0 unparseable\)/);
  assert.match(openness.note, /#50 \(\+\) "Am full of ideas\." refused/);
  assert.match(ipipRow(all, 'agreeableness').note, /#2 \(−\) "Feel little concern for others\." 4→2/);
  assert.match(ipipRow(all, 'extraversion').note, /fake-model role-playing Ada Lovelace/);
  assert.equal(openness.percentile, null);
  assert.ok(openness.confidence > 0 && openness.confidence < 1, String(openness.confidence));
  // Every answer cited excerpt 1: the mind's first shown turn, quoted verbatim.
  const [first] = ipipRow(all, 'extraversion').evidence;
  assert.ok(first, 'cited excerpt as evidence');
  assert.ok(TRANSCRIPT.includes(first.quote), first.quote);
  // The text model's rows are still there, under their own instrument.
  assert.equal(all.filter((p: any) => p.instrument === 'big_five').length, 5);

  // Five calls of ten statements, at temperature 0, asking for JSON against a schema.
  const calls = fake.chatRequests();
  assert.equal(calls.length, 5);
  assert.deepEqual(calls.map(askedItems), [0, 1, 2, 3, 4].map((b) => Array.from({ length: 10 }, (_, i) => b * 10 + i + 1)));
  for (const c of calls) {
    assert.equal(c.body.model, MODEL);
    assert.equal(c.body.temperature, 0);
    assert.equal(c.body.response_format?.type, 'json_schema');
  }
  const system = String(calls[0]!.body.messages[0].content);
  const user = String(calls[0]!.body.messages.at(-1).content);
  assert.match(system, /as Ada Lovelace would honestly rate themself/);
  assert.match(system, /1 = Very Inaccurate.*5 = Very Accurate/);
  assert.doesNotMatch(system + user, /percentile|big_five|openness/i, 'the text model’s trait scores are not shown (the answers would echo them)');
  assert.match(user, /<<<BEGIN TRANSCRIPT EXCERPTS>>>[\s\S]*poetical science[\s\S]*<<<END TRANSCRIPT EXCERPTS>>>/);
  assert.doesNotMatch(user, /Interviewer: What do you enjoy/, 'only the mind’s own turns are excerpts (the question is shown as "Asked:")');

  // The snapshot and the mind count the new rows; the profile pools them beside the text model's.
  const snap = await s.api('GET', `/minds/${mindId}/snapshots/${snapshotId}`);
  assert.equal(snap.body.psychometricCount, all.length);
  const mind = await s.api('GET', `/minds/${mindId}`);
  assert.equal(mind.body.mind.psychometricCount, all.length);
  const profile = await s.api('GET', `/minds/${mindId}/profile`);
  assert.equal(profile.status, 200);
  const pooled = profile.body.profile.traits.filter((t: any) => t.instrument === 'ipip-bfm-50');
  assert.deepEqual(pooled.map((t: any) => [t.name, t.score]), [['extraversion', 1], ['agreeableness', 0.55], ['conscientiousness', 0.25], ['neuroticism', 1], ['openness', 0.75]]);
  assert.ok(profile.body.profile.traits.some((t: any) => t.instrument === 'big_five' && t.name === 'openness'));
});

test('a malformed or cut-off reply is read as far as it goes: partial answers, and factors with too few abstain', async () => {
  fake.requests.length = 0;
  fake.setReply((request) => {
    const items = askedItems(request);
    // Batch 1: no JSON at all (asked twice). Batch 2: JSON cut off after three entries, as at a token limit.
    if (items[0] === 1) return 'I would rather not fill in questionnaires.';
    if (items[0] === 11) return { content: JSON.stringify({ answers: entries(items) }).replace(/,\{"item":"Q14".*$/, ',{"item":"Q14","ans'), finishReason: 'length' };
    return scripted(request);
  });
  const { rows: all } = await answeredSnapshot(s, 'Ada Partial');
  assert.equal(fake.chatRequests().length, 6, 'the batch without JSON was asked once more');
  // Answered: Q11–Q13 of batch 2 and all of batches 3–5. E, A and C keep 7 of 10 items (scored);
  // Emotional Stability and Intellect keep 6 and 5 (abstain).
  const e = ipipRow(all, 'extraversion');
  assert.equal(e.score, 1);
  assert.match(e.note, /7 of 10 items answered \(0 refused, 3 unparseable\)/);
  assert.match(e.note, /#1 \(\+\) "Am the life of the party\." unparseable \(no JSON in the reply\)/);
  // Agreeableness keeps 12 (−), 22 (−), 27 (+), 32 (−), 37 (+), 42 (+), 47 (+), all answered 4:
  // keyed 2, 2, 4, 2, 4, 4, 4 → 22 / 7 = 3.143 → 0.536 (the missing items were mostly + keyed).
  assert.equal(ipipRow(all, 'agreeableness').score, 0.536);
  assert.equal(ipipRow(all, 'conscientiousness').score, 0.25);
  // Intellect also lost item 50 (refused): 5 left.
  for (const [name, left] of [['neuroticism', 6], ['openness', 5]] as const) {
    const r = ipipRow(all, name);
    assert.equal(r.score, null, name);
    assert.equal(r.confidence, 0);
    assert.match(r.note, new RegExp(`No score: only ${left} of 10 items answered \\(7 needed\\)`));
  }
  assert.match(ipipRow(all, 'neuroticism').note, /#14 \(−\) "Worry about things\." unparseable \(no answer\)/);
});

test('a provider that refuses the request leaves rows that say why, without the key', async () => {
  fake.requests.length = 0;
  fake.setReply(() => ({ error: { status: 401, message: `Incorrect API key provided: ${fake.apiKey}.`, code: 'invalid_api_key' } }));
  const { rows: all } = await answeredSnapshot(s, 'Ada Refused');
  const ipip = all.filter((p: any) => p.instrument === 'ipip-bfm-50');
  assert.equal(ipip.length, 5);
  for (const r of ipip) {
    assert.equal(r.score, null);
    assert.match(r.note, /not administered\. The LLM provider refused the service's credentials \(HTTP 401\); the operator has to check the LLM settings/);
    assert.ok(!r.note.includes(new URL(fake.baseUrl).host), 'the provider’s (internal) address is for the log only');
    assert.ok(!r.note.includes(fake.apiKey!), 'the key is scrubbed');
  }
  assert.equal(fake.chatRequests().length, 1, 'a refusal is not retried');
});

test('POST …/questionnaire answers it again and replaces the rows; an unknown snapshot is 404', async () => {
  fake.setReply(scripted);
  const { mindId, snapshotId, rows: before } = await answeredSnapshot(s, 'Ada Again');
  assert.equal(ipipRow(before, 'extraversion').score, 1);
  await settled(s, snapshotId);
  fake.requests.length = 0;
  // Now the model answers 3 ("Neither") to everything: every factor lands in the middle.
  fake.setReply((request) => ({ json: { answers: askedItems(request).map((n) => ({ item: `Q${n}`, answer: 3, excerpt: null })) } }));
  const res = await s.api('POST', `/minds/${mindId}/snapshots/${snapshotId}/questionnaire`);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.deepEqual(res.body, { snapshotId, instrument: 'ipip-bfm-50', model: MODEL, queued: true, run: 'queued' });
  const deadline = Date.now() + 30_000;
  let after: any[] = [];
  while (Date.now() < deadline) {
    after = (await s.api('GET', `/minds/${mindId}/snapshots/${snapshotId}/psychometrics`)).body.psychometrics;
    if (ipipRow(after, 'extraversion')?.score === 0.5) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(after.filter((p) => p.instrument === 'ipip-bfm-50').map((p) => p.score), [0.5, 0.5, 0.5, 0.5, 0.5]);
  assert.equal(after.length, before.length, 'the rows are replaced, not added');
  assert.equal(fake.chatRequests().length, 5);
  const missing = await s.api('POST', `/minds/${mindId}/snapshots/00000000-0000-4000-8000-000000000000/questionnaire`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'NOT_FOUND');
});

test('a snapshot with too few of the person’s words is not put to the model', async () => {
  fake.requests.length = 0;
  fake.setReply(scripted);
  const mind = (await s.api('POST', '/minds', { name: 'Ada Brief' })).body.mind;
  const res = await upload(s, mind.id, { file: { bytes: 'Interviewer: How are you?\nAda: Very well, thank you, and busy with the engine as always.', name: 'brief.txt', type: 'text/plain' } });
  assert.equal((await waitForSnapshot(s, mind.id, res.body.mindAssessmentId)).status, 'completed');
  const deadline = Date.now() + 30_000;
  let ipip: any[] = [];
  while (!ipip.length && Date.now() < deadline) {
    ipip = (await s.api('GET', `/minds/${mind.id}/snapshots/${res.body.mindAssessmentId}/psychometrics`)).body.psychometrics.filter((p: any) => p.instrument === 'ipip-bfm-50');
    if (!ipip.length) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(ipip.length, 5);
  for (const r of ipip) {
    assert.equal(r.score, null);
    assert.match(r.note, /not administered\. Only \d+ words of the person’s speech in this snapshot: too little to answer a questionnaire from \(at least 100/);
  }
  assert.equal(fake.chatRequests().length, 0);
});

async function questionnaireJobs(server: TestServer): Promise<number> {
  return (await rows(server, sql`select count(*)::int as n from pgboss.job where name = 'snapshot-questionnaire'`))[0].n;
}

test('without an LLM, or with the questionnaire turned off, nothing is queued and nothing is requested', async () => {
  const offline = await startTestServer();
  try {
    const mind = (await offline.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
    const res = await upload(offline, mind.id, { file: { bytes: TRANSCRIPT, name: 'interview.txt', type: 'text/plain' } });
    const snapshotId = res.body.mindAssessmentId;
    assert.equal((await waitForSnapshot(offline, mind.id, snapshotId)).status, 'completed');
    // The job would have been queued in the transaction that completed the snapshot.
    assert.equal(await questionnaireJobs(offline), 0);
    const got = await offline.api('GET', `/minds/${mind.id}/snapshots/${snapshotId}/psychometrics`);
    assert.ok(got.body.psychometrics.length > 0);
    assert.ok(got.body.psychometrics.every((p: any) => p.instrument !== 'ipip-bfm-50'));
    const asked = await offline.api('POST', `/minds/${mind.id}/snapshots/${snapshotId}/questionnaire`);
    assert.equal(asked.status, 409);
    assert.equal(asked.body.code, 'CONFLICT');
    assert.match(asked.body.message, /MINDPRINT_LLM_MODEL/);
    assert.equal(await questionnaireJobs(offline), 0);
  } finally {
    await offline.close();
  }

  const other = await startFakeOpenAiServer({ models: [MODEL] });
  const off = await startTestServer({ MINDPRINT_LLM_BASE_URL: other.baseUrl, MINDPRINT_LLM_MODEL: MODEL, MINDPRINT_LLM_API_KEY: other.apiKey!, MINDPRINT_LLM_QUESTIONNAIRE: 'false' });
  try {
    const mind = (await off.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
    const res = await upload(off, mind.id, { file: { bytes: TRANSCRIPT, name: 'interview.txt', type: 'text/plain' } });
    const snapshotId = res.body.mindAssessmentId;
    assert.equal((await waitForSnapshot(off, mind.id, snapshotId)).status, 'completed');
    assert.equal(await questionnaireJobs(off), 0);
    assert.equal(other.chatRequests().length, 0);
  } finally {
    await off.close();
    await other.close();
  }
});

test('asking again while a run is waiting or running adds nothing; a new completion does not join a running run', async () => {
  const { mindId, snapshotId } = await answeredSnapshot(s, 'Ada Twice');
  await settled(s, snapshotId);
  const organizationId = (await s.api('GET', `/minds/${mindId}`)).body.mind.organizationId;
  const jobsOf = async () => (await rows(s, sql`select count(*)::int as n from pgboss.job where name = 'snapshot-questionnaire' and data->>'snapshotId' = ${snapshotId}`))[0].n;
  const before = await jobsOf();
  // Two asks in one transaction: the second sees the first's job waiting (no worker can take it before the commit).
  await s.ctx.db.transaction(async (tx) => {
    assert.equal(await queueQuestionnaire(tx, s.ctx, { id: snapshotId, organizationId }), 'queued');
    assert.equal(await queueQuestionnaire(tx, s.ctx, { id: snapshotId, organizationId }), 'waiting');
  });
  assert.equal(await jobsOf(), before + 1);
  await settled(s, snapshotId);

  // A run already going is joined by a request, but not by the processing that has just completed
  // the snapshot again: that run read the previous completion (its store will be refused). Rolled back.
  const rollback = new Error('rollback');
  await assert.rejects(s.ctx.db.transaction(async (tx) => {
    assert.equal(await queueQuestionnaire(tx, s.ctx, { id: snapshotId, organizationId }), 'queued');
    await tx.execute(sql`update pgboss.job set state = 'active', started_on = now() where name = 'snapshot-questionnaire' and data->>'snapshotId' = ${snapshotId} and state = 'created'`);
    assert.equal(await queueQuestionnaire(tx, s.ctx, { id: snapshotId, organizationId }), 'running');
    assert.equal(await queueQuestionnaire(tx, s.ctx, { id: snapshotId, organizationId }, { newCompletion: true }), 'queued');
    assert.equal(await queueQuestionnaire(tx, s.ctx, { id: snapshotId, organizationId }, { newCompletion: true }), 'waiting');
    assert.equal(await queueQuestionnaire(tx, s.ctx, { id: snapshotId, organizationId }), 'waiting', 'the waiting run first: it reads the snapshot as it is when it starts');
    throw rollback;
  }), (err) => err === rollback || (err as { cause?: unknown }).cause === rollback);
});

/** Waits until the snapshot has no questionnaire job waiting or running (its rows may be stored before the job is marked done). */
async function settled(server: TestServer, snapshotId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [live] = await rows(server, sql`select count(*)::int as n from pgboss.job where name = 'snapshot-questionnaire' and data->>'snapshotId' = ${snapshotId} and state in ('created', 'retry', 'active')`);
    if (live.n === 0) return;
    if (Date.now() > deadline) throw new Error('the questionnaire job still live after 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('20 POSTs at once give one run: the others join it (202, queued: false), and the provider is asked for one run only', async () => {
  fake.setReply(scripted);
  const { mindId, snapshotId } = await answeredSnapshot(s, 'Ada Burst');
  await settled(s, snapshotId);
  fake.requests.length = 0;
  // The provider holds its answers until every POST has been answered, so the run is still waiting
  // or running for all of them (a run finished before the last POST would rightly allow a second).
  let release!: () => void;
  const answered = new Promise<void>((r) => (release = r));
  fake.setReply(async (request) => {
    await answered;
    return scripted(request);
  });
  const url = `/minds/${mindId}/snapshots/${snapshotId}/questionnaire`;
  const burst = await Promise.all(Array.from({ length: 20 }, () => s.api('POST', url)));
  release();
  for (const r of burst) assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal(burst.filter((r) => r.body.queued).length, 1, JSON.stringify(burst.map((r) => r.body.run)));
  assert.equal(burst.find((r) => r.body.queued)?.body.run, 'queued');
  for (const r of burst.filter((x) => !x.body.queued)) assert.ok(['waiting', 'running'].includes(r.body.run), r.body.run);
  await settled(s, snapshotId);
  assert.equal(fake.chatRequests().length, 5, 'one run: 50 items, 10 per call');
  const jobs = await rows(s, sql`select state from pgboss.job where name = 'snapshot-questionnaire' and data->>'snapshotId' = ${snapshotId} order by created_on`);
  assert.deepEqual(jobs.map((j: any) => j.state), ['completed', 'completed'], 'the one after processing and the one the burst queued');
});
