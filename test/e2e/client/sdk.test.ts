/**
 * The SDK end to end against the real service: create a mind, upload a real debate transcript
 * for "Barack Obama", wait for it, read the analysis and profile, simulate a tax question
 * (plain and streamed), and turn error answers into MindprintApiError.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MindprintApiError, MindprintClient, MindprintConnectionError, SnapshotWaitError, type SimulateStreamEvent, type SnapshotStatus } from '@mindprint/client';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { fixturePath } from '../../support/shared-data.ts';

const DEBATE = fixturePath('transcripts/us-presidential-debates/2012-10-03.said.txt');
const MISSING = '00000000-0000-4000-8000-000000000000';

let s: TestServer;
let mp: MindprintClient;
before(async () => {
  s = await startTestServer();
  // The origin alone: the client adds the default base path.
  mp = new MindprintClient({ baseUrl: s.url, apiKey: s.key });
});
after(() => s?.close());

const collapse = (t: string) => t.replace(/\s+/g, ' ').trim();

test('minds, tags, a real transcript, its profile and a tax question, plain and streamed', async () => {
  assert.equal(mp.baseUrl, s.base);
  const { mind, digitalTwin } = await mp.createMind({ name: 'Barack Obama', tags: 'politics,debates' });
  assert.equal(mind.name, 'Barack Obama');
  assert.equal(digitalTwin.mindId, mind.id);
  assert.deepEqual(mind.tags.map((t) => t.name).sort(), ['debates', 'politics']);

  assert.equal((await mp.getMind(mind.id)).mind.id, mind.id);
  assert.ok((await mp.listMinds()).minds.some((m) => m.id === mind.id));
  assert.deepEqual((await mp.listMinds({ tagNames: 'nope' })).minds, []);
  assert.deepEqual((await mp.searchMinds('obam')).minds.map((m) => m.id), [mind.id]);
  const updated = await mp.updateMind(mind.id, { email: 'barack@example.com' });
  assert.equal(updated.mind.email, 'barack@example.com');
  const tags = (await mp.listTags()).tags;
  assert.ok(tags.find((t) => t.name === 'politics'));

  const created = await mp.uploadSnapshot(mind.id, { file: DEBATE, mindsetDate: '2012-10-03T00:00:00Z' });
  const snapshotId = created.mindAssessmentId;
  const seen: SnapshotStatus['status'][] = [];
  const final = await mp.waitForSnapshot(mind.id, snapshotId, { timeoutMs: 60_000, intervalMs: 100, onProgress: (st) => seen.push(st.status) });
  assert.equal(final.status, 'completed');
  assert.equal(seen.at(-1), 'completed');

  const { snapshots, count } = await mp.listSnapshots(mind.id);
  assert.equal(count, 1);
  assert.equal(snapshots[0].id, snapshotId);
  const details = await mp.getSnapshot(mind.id, snapshotId, { includeTranscript: true });
  assert.equal(JSON.stringify(details).includes('2012-10-03.said.txt'), true, 'the file name from the path is kept');
  assert.ok((await mp.getPsychometrics(mind.id, snapshotId)).psychometrics.length > 0);
  assert.ok((await mp.getTopics(mind.id, snapshotId)).keyTopics.length > 0);
  assert.ok(Array.isArray((await mp.getFindings(mind.id, snapshotId)).findings));

  const profile = await mp.getProfile(mind.id);
  assert.equal(profile.mindId, mind.id);
  assert.equal(profile.name, 'Barack Obama');
  assert.ok(profile.profile && typeof profile.profile === 'object');

  const text = await readFile(DEBATE, 'utf8');
  const obama = collapse(text.split('\n').filter((l) => l.startsWith('Barack H Obama:')).map((l) => l.slice('Barack H Obama:'.length)).join(' '));
  const question = 'What would you do about taxes for the middle class?';

  const plain = await mp.simulate({ mindId: mind.id, scenario: { message: question } });
  assert.match(plain.message, /tax/i);
  assert.ok(plain.evidence.length > 0);
  for (const e of plain.evidence) assert.ok(obama.includes(collapse(e.quote)), `quote is Obama's: ${e.quote}`);

  const events: SimulateStreamEvent[] = [];
  for await (const e of mp.simulateStream({ mindId: mind.id, scenario: { message: question } })) events.push(e);
  assert.equal(events[0].event, 'start');
  const last = events.at(-1)!;
  assert.equal(last.event, 'done', JSON.stringify(last));
  if (last.event !== 'done') return;
  const deltas = events.filter((e): e is Extract<SimulateStreamEvent, { event: 'delta' }> => e.event === 'delta');
  assert.ok(deltas.length > 1, 'the answer arrives in pieces');
  assert.equal(deltas.map((d) => d.data.text).join(''), last.data.message);
  assert.match(last.data.message, /tax/i);
  assert.ok(last.data.evidence.length > 0);
  const start = events[0].event === 'start' ? events[0].data : null;
  assert.ok(start);

  // The streamed conversation was stored and can be continued, listed, shared and deleted.
  const stored = await mp.getSimulation(start.simulationId);
  assert.equal(stored.messages.at(-1)!.content!.text, last.data.message);
  const followUp = await mp.simulate({ mindId: mind.id, conversationId: start.conversationId, scenario: { message: 'And what about the deficit?' } });
  assert.equal(followUp.simulationId, start.simulationId);
  const listed = await mp.listSimulations({ mindId: mind.id });
  assert.equal(listed.count, 2);
  const { users } = await mp.listUsers();
  const other = await s.newKey('default', 'colleague@example.com');
  const shared = await mp.shareSimulation(plain.simulationId, { userIds: [other.userId] });
  assert.deepEqual(shared.simulation.sharedWithUsers.map((u) => u.id), [other.userId]);
  assert.ok(users.length >= 1);
  assert.deepEqual((await mp.unshareSimulation(plain.simulationId, other.userId)).simulation.sharedWithUsers, []);
  await mp.deleteSimulation(plain.simulationId);
  assert.equal((await mp.listSimulations({ mindId: mind.id })).count, 1);

  const { models } = await mp.listModels();
  assert.ok(models.some((m) => m.default));
  const usage = await mp.getUsage();
  assert.ok(usage.totalCount >= 0);
});

test('error answers become MindprintApiError with the status and code of the body', async () => {
  const notFound = await mp.getMind(MISSING).then(
    () => assert.fail('expected a 404'),
    (err: unknown) => err,
  );
  assert.ok(notFound instanceof MindprintApiError);
  assert.equal(notFound.status, 404);
  assert.equal(notFound.code, 'NOT_FOUND');
  assert.ok(notFound.message.length > 0);

  await assert.rejects(mp.createMind({ name: '' }), (err: unknown) => err instanceof MindprintApiError && err.status === 400 && err.code === 'VALIDATION_FAILED' && /name/.test(err.message));
  const badKey = new MindprintClient({ baseUrl: s.base, apiKey: 'mp_not-a-real-key' });
  await assert.rejects(badKey.listMinds(), (err: unknown) => err instanceof MindprintApiError && err.status === 401 && err.code === 'AUTH_FAILED');

  // A stream that cannot start is an error before the first event, not an event.
  const { mind } = await mp.createMind({ name: 'Nobody Yet' });
  await assert.rejects(
    (async () => {
      for await (const _ of mp.simulateStream({ mindId: mind.id, scenario: { message: 'Hello?' } })) assert.fail('no events expected');
    })(),
    (err: unknown) => err instanceof MindprintApiError && err.status === 400 && err.code === 'VALIDATION_FAILED',
  );

  // A transcript that cannot be processed makes waitForSnapshot throw with the reason.
  const bad = await mp.uploadSnapshot(mind.id, { file: new TextEncoder().encode('WEBVTT\n\n'), fileName: 'empty.vtt' });
  await assert.rejects(
    mp.waitForSnapshot(mind.id, bad.mindAssessmentId, { timeoutMs: 30_000, intervalMs: 50 }),
    (err: unknown) => err instanceof SnapshotWaitError && err.reason === 'failed' && err.status.status === 'failed' && /no cues/.test(err.message),
  );
  await mp.deleteMind(mind.id);
  await assert.rejects(mp.getMind(mind.id), (err: unknown) => err instanceof MindprintApiError && err.code === 'NOT_FOUND');
});

test('a refused connection is a MindprintConnectionError naming the URL and the reason, not a bare "fetch failed"', async () => {
  // A port that was just free: listened on, then closed, so nothing answers there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const mp = new MindprintClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: s.key });
  const err = await mp.listMinds().then(() => null, (e: unknown) => e);
  assert.ok(err instanceof MindprintConnectionError, String(err));
  assert.equal(err.url, `http://127.0.0.1:${port}/api/svc/minds`);
  assert.equal(err.reason, 'ECONNREFUSED');
  assert.equal(err.message, `could not reach Mindprint at http://127.0.0.1:${port}/api/svc/minds: ECONNREFUSED`);
  assert.ok(err.cause instanceof TypeError, 'fetch\'s own error is kept');

  // Cancelling stays the caller's AbortError.
  const cancelled = new MindprintClient({ baseUrl: s.base, apiKey: s.key });
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(cancelled.raw('GET', '/minds', { signal: controller.signal }), (e: unknown) => e instanceof Error && e.name === 'AbortError');
});
