/**
 * Speakers of a snapshot, through the HTTP API on a real server (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL) and real transcripts: a file that names no speakers is flagged on every
 * snapshot shape, `speaker` matches a label by case, prefix or name, and the mind's speaker can
 * be changed after the upload, which processes the snapshot again exactly once.
 */
import { QUEUE } from '../../../src/platform/jobs/queues.ts';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { LOST_REASON } from '../../../src/features/snapshots/sweeper.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { fixturePath, sharedDataPath, skipUnlessSharedData } from '../../support/shared-data.ts';
import { PANEL, rows, upload, waitForSnapshot } from './support.ts';

/** Half of the first 2012 debate with its speakers' names, and 20 minutes of its auto-captions (test/fixtures). */
const DEBATE = fixturePath('transcripts/us-presidential-debates/2012-10-03');
/** The real podcasts (../shared/data): the host is "Lenny" in one file and "Lenny Rachitsky" in the others. */
const LENNY = ['bob-moesta', 'jen-abel', 'sander-schulhoff'].map((n) => sharedDataPath(`transcripts/lennys-podcast/${n}.transcript.md.txt`));
const EVERY_VOICE = /every voice in this file counts as Andrew Huberman/;

describe('snapshot speakers', () => {
  let s: TestServer;
  const mind = async (name: string) => (await s.api('POST', '/minds', { name })).body.mind.id as string;
  const file = async (p: string, name = p.split('/').pop()!) => ({ bytes: await readFile(p), name });
  const snapshotRow = async (mindId: string, id: string) => (await s.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots.find((x: any) => x.id === id);

  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.close());

  test('auto-captions are flagged at once in the upload answer, then in the status, the list and the details', async () => {
    const id = await mind('Andrew Huberman');
    const res = await upload(s, id, { file: await file(`${DEBATE}.vtt`, 'debate.vtt'), mindsetDate: '2012-10-03' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // The spec's fields as the spec gives them, ours beside them.
    assert.equal(res.body.message, 'Snapshot created; processing has started');
    assert.ok(res.body.mindAssessmentId && res.body.artifactId);
    assert.equal(res.body.fileName, 'debate.vtt');
    assert.equal(res.body.fileKind, 'vtt');
    assert.equal(res.body.speaker, null);
    assert.equal(res.body.speakersLabelled, false, 'a word-timed caption track is known at once');
    assert.match(res.body.speakerWarning, EVERY_VOICE);

    const sid = res.body.mindAssessmentId;
    const status = await waitForSnapshot(s, id, sid);
    assert.equal(status.status, 'completed', status.error);
    assert.equal(status.speakersLabelled, false);
    assert.equal(status.mindSpeaker, 'Speaker');
    assert.match(status.speakerWarning, EVERY_VOICE);

    const row = await snapshotRow(id, sid);
    assert.equal(row.fileName, 'debate.vtt');
    assert.equal(row.mindSpeaker, 'Speaker');
    assert.ok(row.mindWords > 2000, `mind words ${row.mindWords}`);
    assert.equal(row.speakersLabelled, false);
    assert.match(row.speakerWarning, EVERY_VOICE);
    const details = (await s.api('GET', `/minds/${id}/snapshots/${sid}`)).body;
    assert.match(details.speakerWarning, EVERY_VOICE);

    // Its one voice is all there is to choose from.
    const speakers = (await s.api('GET', `/minds/${id}/snapshots/${sid}/speakers`)).body;
    assert.deepEqual(speakers.speakers.map((x: any) => [x.label, x.isMind]), [['Speaker', true]]);
    assert.deepEqual(speakers.speakers.map((x: any) => x.words), details.speakers.map((x: any) => x.words));
    assert.equal(speakers.speakers[0].samples.length, 3);
    const put = await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: 'Obama' });
    assert.equal(put.status, 400);
    assert.deepEqual(put.body.speakers, ['Speaker']);
  });

  let obama: { mindId: string; snapshotId: string };
  test('a labelled transcript is not flagged; the upload answer does not guess before the file is read', async () => {
    const id = await mind('Barack Obama');
    const res = await upload(s, id, { file: await file(`${DEBATE}.said.txt`) });
    assert.equal(res.body.speakersLabelled, null, 'plain text: only processing can tell');
    assert.equal(res.body.speakerWarning, null);
    const status = await waitForSnapshot(s, id, res.body.mindAssessmentId);
    assert.equal(status.speakersLabelled, true);
    assert.equal(status.speakerWarning, null);
    assert.equal(status.mindSpeaker, 'Barack H Obama');
    obama = { mindId: id, snapshotId: res.body.mindAssessmentId };
  });

  test('speaker "Lenny" names the host in every podcast file, labelled "Lenny" or "Lenny Rachitsky"', skipUnlessSharedData, async () => {
    const id = await mind('Podcast Host');
    const answers = [];
    for (const rel of LENNY) {
      const res = await upload(s, id, { file: await file(rel), speaker: 'Lenny' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.speakersLabelled, true, 'the labels were read to check the speaker');
      answers.push(res.body);
    }
    assert.deepEqual(answers.map((c) => c.speaker), ['Lenny', 'Lenny Rachitsky', 'Lenny Rachitsky']);
    // The full name finds the file that says only "Lenny".
    const full = await upload(s, id, { file: await file(LENNY[0]!), speaker: 'lenny rachitsky' });
    assert.equal(full.body.speaker, 'Lenny');
    // The processing takes the label the upload matched (one file is enough to show it; the rest go).
    const [, processed, ...rest] = [...answers, full.body];
    for (const other of [answers[0], ...rest]) assert.equal((await s.api('DELETE', `/minds/${id}/snapshots/${other.mindAssessmentId}`)).status, 200);
    const status = await waitForSnapshot(s, id, processed.mindAssessmentId);
    assert.equal(status.status, 'completed', status.error);
    assert.equal(status.mindSpeaker, 'Lenny Rachitsky');
    const [row] = (await s.api('GET', `/minds/${id}/snapshots`)).body.snapshots;
    assert.equal(row.fileName, 'jen-abel.transcript.md.txt');
    assert.equal(row.mindSpeaker, 'Lenny Rachitsky');
    assert.ok(row.speakersLabelled === true && row.speakerWarning === null && row.mindWords > 1000, JSON.stringify(row));
  });

  test('an unknown or ambiguous speaker is a 400 naming the labels (and the candidates), at upload and after', async () => {
    const id = await mind('Ann Example');
    const text = ['Speaker 1: I have lived in this town for forty years and I know every street of it.', 'Speaker 2: What would you change first, if you could?', 'Speaker 1: The bus lines. Nobody can get to the clinic without a car.', 'Speaker 2: And the schools?'].join('\n\n');
    const bytes = { bytes: text, name: 'meeting.txt' };
    const ambiguous = await upload(s, id, { file: bytes, speaker: 'speaker' });
    assert.equal(ambiguous.status, 400);
    assert.equal(ambiguous.body.code, 'VALIDATION_FAILED');
    assert.deepEqual(ambiguous.body.candidates, ['Speaker 1', 'Speaker 2']);
    assert.match(ambiguous.body.message, /could be any of "Speaker 1", "Speaker 2"/);
    const unknown = await upload(s, id, { file: bytes, speaker: 'Zed' });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body.speakers, ['Speaker 1', 'Speaker 2']);
    assert.equal(unknown.body.candidates, undefined);

    const res = await upload(s, id, { file: bytes, speaker: 'speaker 1' });
    assert.equal(res.body.speaker, 'Speaker 1');
    const sid = res.body.mindAssessmentId;
    await waitForSnapshot(s, id, sid);
    const put = await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: 'SPEAKER' });
    assert.equal(put.status, 400);
    assert.deepEqual(put.body.candidates, ['Speaker 1', 'Speaker 2']);
    assert.equal((await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: '' })).status, 400);
    assert.equal((await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, {})).status, 400);
    // An unknown field is refused like in every other body, even beside a valid speaker.
    const extra = await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: 'Speaker 2', reprocess: false });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.code, 'VALIDATION_FAILED');
    assert.equal(extra.body.field, 'body.reprocess');
    assert.match(extra.body.message, /^body\.reprocess is not a known field/);
    assert.equal((await snapshotRow(id, sid)).mindSpeaker, 'Speaker 1', 'nothing changed');
  });

  test('re-attributing reprocesses once through the job queue and replaces the memory and analysis', async () => {
    const { mindId: id, snapshotId: sid } = obama;
    const listed = (await s.api('GET', `/minds/${id}/snapshots/${sid}/speakers`)).body;
    assert.equal(listed.mindSpeaker, 'Barack H Obama');
    assert.equal(listed.attribution, 'name');
    assert.deepEqual(listed.speakers.map((x: any) => x.label), ['Jim Lehrer', 'Barack H Obama', 'W Mitt Romney']);
    for (const sp of listed.speakers) {
      assert.ok(sp.words > 300 && sp.turns > 5, JSON.stringify(sp));
      assert.equal(sp.samples.length, 3);
      assert.ok(sp.samples.every((l: string) => l.length > 0 && l.length <= 200), JSON.stringify(sp.samples));
      assert.equal(sp.isMind, sp.label === 'Barack H Obama');
    }
    const turnsBefore = (await rows(s, sql`select count(*)::int as n from turns where snapshot_id = ${sid}`))[0].n;

    // Two requests at once: one re-runs the snapshot, the other finds it pending.
    const both = await Promise.all([0, 1].map(() => s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: 'romney' })));
    const statuses = both.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 409], JSON.stringify(both.map((r) => r.body)));
    const ok = both.find((r) => r.status === 200)!.body;
    assert.equal(ok.speaker, 'W Mitt Romney');
    assert.equal(ok.reprocessing, true);
    assert.equal(ok.snapshot.status, 'pending');
    assert.equal(ok.snapshot.psychometricCount, 0);
    assert.match(both.find((r) => r.status === 409)!.body.message, /still (pending|processing)/);
    // While it is processed again its speakers cannot be read or changed.
    const during = await s.api('GET', `/minds/${id}/snapshots/${sid}/speakers`);
    if ((await snapshotRow(id, sid)).status !== 'completed') assert.equal(during.status, 409);

    const done = await waitForSnapshot(s, id, sid);
    assert.equal(done.status, 'completed', done.error);
    assert.equal(done.mindSpeaker, 'W Mitt Romney');
    const details = (await s.api('GET', `/minds/${id}/snapshots/${sid}?includeTranscript=true`)).body;
    assert.equal(details.attribution, 'requested');
    assert.equal(details.transcript.length, turnsBefore, 'the same turns, stored once');
    assert.ok(details.transcript.filter((t: any) => t.isMind).every((t: any) => t.speaker === 'W Mitt Romney'));
    const [counts] = await rows(
      s,
      sql`select (select count(*)::int from psychometrics where snapshot_id = ${sid}) as p, (select count(*)::int from key_topics where snapshot_id = ${sid}) as k,
        (select count(*)::int from findings where snapshot_id = ${sid}) as f, (select count(*)::int from pgboss.job where name = ${QUEUE.processSnapshot} and data->>'snapshotId' = ${sid}) as jobs,
        (select count(*)::int from pgboss.job where name = ${QUEUE.embedSnapshot} and data->>'snapshotId' = ${sid}) as embeds`,
    );
    assert.deepEqual([counts.p, counts.k, counts.f], [details.psychometricCount, details.keyTopicCount, details.findingCount]);
    assert.ok(counts.p > 0 && counts.f > 0);
    assert.equal(counts.jobs, 2, `the upload’s job and exactly one more: ${JSON.stringify(counts)}`);
    // Embedding jobs are idempotent (only turns without a vector are embedded); each processing queues at least one.
    assert.ok(counts.embeds >= 2, `the semantic index is rebuilt after each processing: ${JSON.stringify(counts)}`);
    const m = (await s.api('GET', `/minds/${id}`)).body.mind;
    assert.deepEqual([m.snapshotCount, m.psychometricCount, m.findingCount], [1, details.psychometricCount, details.findingCount]);

    // The label that already is the mind's: nothing to do again.
    const same = await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: 'W. Mitt Romney' });
    assert.equal(same.status, 200);
    assert.equal(same.body.reprocessing, false);
    assert.equal(same.body.snapshot.status, 'completed');
    assert.equal((await rows(s, sql`select count(*)::int as n from pgboss.job where name = ${QUEUE.processSnapshot} and data->>'snapshotId' = ${sid}`))[0].n, 2);
  });

  test('a failed snapshot counts nowhere; its speakers are read from the file and choosing one processes it again', async () => {
    const id = await mind('Jim Lehrer');
    const ok = await upload(s, id, { file: { bytes: PANEL, name: 'panel.txt' } });
    const sid = ok.body.mindAssessmentId;
    await waitForSnapshot(s, id, sid);
    const broken = await upload(s, id, { file: { bytes: 'WEBVTT\n\n', name: 'empty.vtt' } });
    const bad = await waitForSnapshot(s, id, broken.body.mindAssessmentId);
    assert.equal(bad.status, 'failed');
    const full = (await s.api('GET', `/minds/${id}`)).body.mind;
    assert.equal(full.snapshotCount, 1, 'the failed snapshot is not counted');
    const unreadable = await s.api('GET', `/minds/${id}/snapshots/${broken.body.mindAssessmentId}/speakers`);
    assert.equal(unreadable.status, 409);
    assert.match(unreadable.body.message, /cannot be read/);

    // A snapshot whose every attempt was lost, failed by the sweeper: it keeps its earlier counts
    // on the row, and none of them counts for the mind or its profile.
    await rows(s, sql`update snapshots set status = 'failed', error = ${LOST_REASON} where id = ${sid}`);
    s.ctx.mindCache?.invalidate((await s.api('GET', `/minds/${id}`)).body.mind.organizationId);
    const after = (await s.api('GET', `/minds/${id}`)).body.mind;
    assert.deepEqual([after.snapshotCount, after.psychometricCount, after.keyTopicCount, after.findingCount], [0, 0, 0, 0]);
    const profile = (await s.api('GET', `/minds/${id}/profile`)).body.profile;
    assert.equal(profile.snapshotCount, 0);

    const listed = (await s.api('GET', `/minds/${id}/snapshots/${sid}/speakers`)).body;
    assert.deepEqual(listed.speakers, ['Jim Lehrer', 'Barack H Obama', 'W Mitt Romney'].map((label) => ({ label, turns: null, words: null, isMind: false, samples: [] })));
    const put = await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: 'Obama' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.reprocessing, true);
    const done = await waitForSnapshot(s, id, sid);
    assert.equal(done.status, 'completed');
    assert.equal(done.mindSpeaker, 'Barack H Obama');
    assert.equal((await s.api('GET', `/minds/${id}`)).body.mind.snapshotCount, 1);
    assert.equal((await s.api('GET', `/minds/${id}/profile`)).body.profile.snapshotCount, 1);
  });

  test("another organization's snapshot is a 404 for its speakers and for choosing one", async () => {
    const id = await mind('Private Person');
    const res = await upload(s, id, { file: { bytes: 'Ann: Hello there, this is my story.\n\nBen: Tell me more about it.', name: 'a.txt' } });
    const sid = res.body.mindAssessmentId;
    await waitForSnapshot(s, id, sid);
    const other = await s.newKey('other-org', 'eve@example.org');
    const get = await s.api('GET', `/minds/${id}/snapshots/${sid}/speakers`, undefined, other.key);
    const put = await s.api('PUT', `/minds/${id}/snapshots/${sid}/speaker`, { speaker: 'Ben' }, other.key);
    assert.deepEqual([get.status, put.status], [404, 404]);
    assert.equal(put.body.code, 'NOT_FOUND');
    assert.equal((await snapshotRow(id, sid)).status, 'completed', 'nothing changed');
  });
});
