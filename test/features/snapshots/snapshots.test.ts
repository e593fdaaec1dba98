import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { count, fixtureFile, storedFiles, upload, waitForSnapshot } from './support.ts';

const SNAPSHOT_FIELDS = ['id', 'mindId', 'artifactId', 'mindsetDate', 'status', 'startedAt', 'completedAt', 'createdAt', 'updatedAt', 'psychometricCount', 'keyTopicCount', 'findingCount'];

describe('snapshots: upload and processing', () => {
  let s: TestServer;
  let obama: any;
  let snapshotId: string;
  before(async () => {
    s = await startTestServer();
    obama = (await s.api('POST', '/minds', { name: 'Barack Obama' })).body.mind;
  });
  after(() => s.close());

  test('a real debate transcript becomes a completed snapshot attributed to the mind by name', async () => {
    const res = await upload(s, obama.id, { file: { bytes: await fixtureFile('transcripts/us-presidential-debates/2012-10-03.said.txt'), name: 'debate.txt' }, mindsetDate: '2012-10-03' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(typeof res.body.message, 'string');
    snapshotId = res.body.mindAssessmentId;
    assert.ok(res.body.artifactId);
    const status = await waitForSnapshot(s, obama.id, snapshotId);
    assert.equal(status.status, 'completed', status.error);
    assert.ok(status.startedAt && status.completedAt);
    assert.equal(status.error, null);
    const details = (await s.api('GET', `/minds/${obama.id}/snapshots/${snapshotId}?includeTranscript=true&includePsychometrics=true`)).body;
    assert.equal(details.attribution, 'name');
    assert.equal(details.mindSpeaker, 'Barack H Obama');
    assert.equal(details.speakersLabelled, true);
    assert.match(details.attributionNote, /“Barack H Obama” matches the mind’s name/);
    assert.equal(details.artifact.kind, 'txt');
    assert.equal(details.artifact.fileName, 'debate.txt');
    assert.match(details.artifact.sha256, /^[0-9a-f]{64}$/);
    const labels = details.speakers.map((sp: any) => sp.label).sort();
    assert.deepEqual(labels, ['Barack H Obama', 'Jim Lehrer', 'W Mitt Romney']);
    assert.ok(details.transcript.length > 50);
    assert.ok(details.transcript.filter((t: any) => t.isMind).every((t: any) => t.speaker === 'Barack H Obama'));
    assert.ok(details.psychometrics.some((p: any) => p.instrument === 'big_five' && p.name === 'openness'));
  });

  test('auto-captions name no speakers: the details say so, and why the mind holds every voice', async () => {
    const res = await upload(s, obama.id, { file: { bytes: await fixtureFile('transcripts/us-presidential-debates/2012-10-03.vtt'), name: 'captions.vtt' }, mindsetDate: '2012-10-03' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.mindAssessmentId;
    const early = (await s.api('GET', `/minds/${obama.id}/snapshots/${id}`)).body;
    if (early.status !== 'completed') assert.equal(early.attributionNote, null, 'no note before the file is read');
    assert.equal((await waitForSnapshot(s, obama.id, id)).status, 'completed');
    const details = (await s.api('GET', `/minds/${obama.id}/snapshots/${id}`)).body;
    assert.equal(details.speakersLabelled, false);
    assert.deepEqual(details.speakers.map((sp: any) => [sp.label, sp.isMind]), [['Speaker', true]]);
    assert.equal(details.attribution, 'inferred', 'unchanged: the one speaker, taken as the mind');
    assert.match(details.attributionNote, /names no speakers.*every voice in it was taken to be this mind’s/);
    assert.equal((await s.api('DELETE', `/minds/${obama.id}/snapshots/${id}`)).status, 200);
  });

  test('on the embedded database, ingesting refreshes planner statistics (PGlite has no autovacuum)', async (t) => {
    if (s.ctx.database.kind !== 'pglite') return t.skip('PostgreSQL keeps statistics with autovacuum');
    let reltuples = -1;
    for (let i = 0; i < 100 && reltuples <= 0; i++) {
      reltuples = ((await s.ctx.db.execute(sql`select reltuples::float8 as n from pg_class where relname = 'turns'`)) as any).rows[0].n;
      if (reltuples <= 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(reltuples > 0, 'turns has been analyzed');
  });

  test('the snapshot list and counts come from the analysis rows', async () => {
    const list = (await s.api('GET', `/minds/${obama.id}/snapshots`)).body;
    assert.equal(list.count, 1);
    for (const f of SNAPSHOT_FIELDS) assert.ok(f in list.snapshots[0], f);
    const snap = list.snapshots[0];
    assert.equal(snap.mindsetDate, '2012-10-03T00:00:00.000Z');
    assert.ok(snap.psychometricCount >= 5 && snap.keyTopicCount >= 3 && snap.findingCount >= 1);
    const mind = (await s.api('GET', `/minds/${obama.id}`)).body.mind;
    assert.equal(mind.snapshotCount, 1);
    assert.equal(mind.psychometricCount, snap.psychometricCount);
    assert.equal(mind.keyTopicCount, snap.keyTopicCount);
    assert.equal(mind.findingCount, snap.findingCount);
  });

  test('psychometrics, topics and findings quote only the mind’s own turns', async () => {
    const transcript = (await s.api('GET', `/minds/${obama.id}/snapshots/${snapshotId}?includeTranscript=true`)).body.transcript;
    const mindTurns = new Map(transcript.filter((t: any) => t.isMind).map((t: any) => [t.id, t.text]));
    const topics = (await s.api('GET', `/minds/${obama.id}/snapshots/${snapshotId}/topic-analysis`)).body.keyTopics;
    assert.ok(topics.length >= 3);
    assert.ok(topics.some((t: any) => /tax|health|job|medicare|deficit/i.test(t.label + ' ' + t.keywords.join(' '))), JSON.stringify(topics.map((t: any) => t.label)));
    const findings = (await s.api('GET', `/minds/${obama.id}/snapshots/${snapshotId}/findings`)).body.findings;
    assert.ok(findings.length > 0);
    for (const f of findings) assert.ok((mindTurns.get(f.turnId) as string)?.includes(f.quote), `finding quote from the mind: ${f.quote}`);
    const psych = (await s.api('GET', `/minds/${obama.id}/snapshots/${snapshotId}/psychometrics`)).body.psychometrics;
    for (const p of psych) for (const e of p.evidence) assert.ok(mindTurns.has(e.turnId), 'evidence is a mind turn');
    const profile = (await s.api('GET', `/minds/${obama.id}/profile`)).body.profile;
    assert.equal(profile.snapshotCount, 1);
    assert.ok(profile.traits.length >= 5);
  });

  test('an explicit speaker must be one of the labels (400 lists them); a valid one is used', async () => {
    const bytes = await fixtureFile('transcripts/us-presidential-debates/2012-10-16.said.txt');
    const bad = await upload(s, obama.id, { file: { bytes, name: 'd.txt' }, speaker: 'Somebody Else' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /Barack H Obama/);
    assert.ok(bad.body.speakers.includes('Candy Crowley'));
    const ok = await upload(s, obama.id, { file: { bytes, name: 'd.txt' }, speaker: 'candy crowley' });
    assert.equal(ok.status, 200);
    await waitForSnapshot(s, obama.id, ok.body.mindAssessmentId);
    const details = (await s.api('GET', `/minds/${obama.id}/snapshots/${ok.body.mindAssessmentId}`)).body;
    assert.equal(details.attribution, 'requested');
    assert.equal(details.mindSpeaker, 'Candy Crowley');
    assert.match(details.attributionNote, /“Candy Crowley” was chosen as the mind’s speaker \(at upload, or afterwards\)/);
    assert.equal((await s.api('DELETE', `/minds/${obama.id}/snapshots/${ok.body.mindAssessmentId}`)).status, 200);
  });

  test('unlink and link', async () => {
    const un = await s.api('POST', `/minds/${obama.id}/snapshots/${snapshotId}/unlink`);
    assert.equal(un.status, 200);
    assert.equal(un.body.snapshot.linked, false);
    assert.equal((await s.api('GET', `/minds/${obama.id}/profile`)).body.profile.snapshotCount, 0);
    const re = await s.api('POST', `/minds/${obama.id}/snapshots/${snapshotId}/link`);
    assert.equal(re.body.snapshot.linked, true);
  });

  test('input that passes sniffing but cannot be read ends failed with a reason', async () => {
    const cases: [string, Uint8Array | string, RegExp][] = [
      ['empty.vtt', 'WEBVTT\n\nNOTE nothing here\n', /no cues/i],
      ['broken.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'), Buffer.alloc(200, 0x20)]), /PDF/],
    ];
    for (const [name, bytes, reason] of cases) {
      const res = await upload(s, obama.id, { file: { bytes, name } });
      assert.equal(res.status, 200, name);
      const st = await waitForSnapshot(s, obama.id, res.body.mindAssessmentId);
      assert.equal(st.status, 'failed', name);
      assert.match(st.error, reason);
      await s.api('DELETE', `/minds/${obama.id}/snapshots/${res.body.mindAssessmentId}`);
    }
  });

  test('bad requests are 400/404/413/415 and store nothing', async () => {
    const filesBefore = (await storedFiles(s)).length;
    const snapsBefore = await count(s, 'snapshots');
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const cases: [string, Parameters<typeof upload>[2], number, RegExp][] = [
      ['PNG renamed .pdf', { file: { bytes: png, name: 'slides.pdf', type: 'application/pdf' } }, 400, /unsupported file type/i],
      ['random bytes', { file: { bytes: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), name: 't.vtt' } }, 400, /unsupported file type/i],
      ['neither file nor artifactId', { mindsetDate: '2020-01-01' }, 400, /file|artifactId/],
      ['both', { file: { bytes: 'WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n', name: 'a.vtt' }, artifactId: '00000000-0000-4000-8000-000000000000' }, 400, /not both/],
      ['bad date', { file: { bytes: 'WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n', name: 'a.vtt' }, mindsetDate: 'last tuesday' }, 400, /mindsetDate/],
      ['30 February', { file: { bytes: 'WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n', name: 'a.vtt' }, mindsetDate: '2021-02-30' }, 400, /2021-02-30 is not a calendar date/],
      ['31 April', { file: { bytes: 'WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n', name: 'a.vtt' }, mindsetDate: '2021-04-31T10:00:00Z' }, 400, /not a calendar date/],
      ['unknown artifact', { artifactId: '00000000-0000-4000-8000-000000000000' }, 400, /artifact/],
      ['malformed artifact id', { artifactId: 'nope' }, 400, /artifactId/],
      ['unknown field', { file: { bytes: 'hello there: hi\n', name: 'a.txt' }, colour: 'blue' }, 400, /colour/],
    ];
    for (const [name, parts, status, message] of cases) {
      const res = await upload(s, obama.id, parts);
      assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.message, message, name);
    }
    assert.equal((await upload(s, '00000000-0000-4000-8000-000000000000', { file: { bytes: 'WEBVTT\n', name: 'a.vtt' } })).status, 404);
    assert.equal((await upload(s, 'not-a-uuid', { file: { bytes: 'WEBVTT\n', name: 'a.vtt' } })).status, 400);
    assert.equal((await s.api('POST', `/minds/${obama.id}/snapshots`, { file: 'x' })).status, 415);
    assert.equal((await storedFiles(s)).length, filesBefore);
    assert.equal(await count(s, 'snapshots'), snapsBefore);
  });

  test('another organization sees none of it', async () => {
    const other = await s.newKey('other-org', 'o@other.test');
    for (const p of [`/minds/${obama.id}/snapshots`, `/minds/${obama.id}/snapshots/${snapshotId}`, `/minds/${obama.id}/snapshots/${snapshotId}/status`, `/minds/${obama.id}/snapshots/${snapshotId}/findings`, `/minds/${obama.id}/profile`]) {
      assert.equal((await s.api('GET', p, undefined, other.key)).status, 404, p);
    }
    assert.equal((await s.api('DELETE', `/minds/${obama.id}/snapshots/${snapshotId}`, undefined, other.key)).status, 404);
    const theirs = (await s.api('POST', '/minds', { name: 'Other' }, other.key)).body.mind;
    // A snapshot id of another mind is 404 even within the organization.
    assert.equal((await s.api('GET', `/minds/${theirs.id}/snapshots/${snapshotId}/status`, undefined, other.key)).status, 404);
    assert.equal((await upload(s, obama.id, { file: { bytes: 'WEBVTT\n', name: 'a.vtt' } }, other.key)).status, 404);
  });

  test('deleting a snapshot removes its turns, analysis and file; deleting the mind removes everything', async () => {
    const res = await upload(s, obama.id, { file: { bytes: await fixtureFile('transcripts/us-presidential-debates/2012-10-22.said.txt'), name: 'd3.txt' } });
    await waitForSnapshot(s, obama.id, res.body.mindAssessmentId);
    const files = (await storedFiles(s)).length;
    const del = await s.api('DELETE', `/minds/${obama.id}/snapshots/${res.body.mindAssessmentId}`);
    assert.deepEqual(del.body, { message: 'Snapshot deleted', snapshotId: res.body.mindAssessmentId });
    assert.equal((await storedFiles(s)).length, files - 1);
    assert.equal((await s.api('GET', `/minds/${obama.id}/snapshots/${res.body.mindAssessmentId}/status`)).status, 404);
    const turns = (await s.ctx.db.execute(sql`select count(*)::int as n from turns where snapshot_id = ${res.body.mindAssessmentId}`)) as any;
    assert.equal(turns.rows[0].n, 0);

    assert.deepEqual((await s.api('DELETE', `/minds/${obama.id}`)).body, { success: true });
    for (const table of ['snapshots', 'turns', 'psychometrics', 'key_topics', 'findings', 'artifacts']) assert.equal(await count(s, table), 0, table);
    assert.deepEqual(await storedFiles(s), []);
    const root = path.join(s.config.dataDir, 'artifacts');
    assert.deepEqual(await readdir(root), [], 'no empty org/<org>/mind/<mind>/ folders are left');
  });
});

describe('snapshots: size limit', () => {
  test('a file over MINDPRINT_MAX_UPLOAD_MB is 413 and nothing is stored', async () => {
    const s = await startTestServer({ MINDPRINT_MAX_UPLOAD_MB: '1' });
    try {
      const mind = (await s.api('POST', '/minds', { name: 'Big Talker' })).body.mind;
      const big = 'WEBVTT\n\n' + '00:00.000 --> 00:01.000\n<v Big Talker>' + 'words '.repeat(400_000) + '\n';
      const res = await upload(s, mind.id, { file: { bytes: big, name: 'big.vtt' } });
      assert.equal(res.status, 413);
      assert.equal(res.body.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(await count(s, 'snapshots'), 0);
      assert.equal(await count(s, 'artifacts'), 0);
      assert.deepEqual(await storedFiles(s), []);
      const tmp = await readdir(path.join(s.config.dataDir, 'tmp')).catch(() => []);
      assert.deepEqual(tmp, [], 'no temp file left behind');
    } finally {
      await s.close();
    }
  });
});
