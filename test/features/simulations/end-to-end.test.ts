/**
 * End to end through the real pipeline: upload a real debate transcript for "Barack Obama",
 * wait for the snapshot to complete, and simulate a question on taxes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { readDebate, TRANSCRIPTS } from './seed.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s?.close());

const collapse = (t: string) => t.replace(/\s+/g, ' ').trim();

test('an uploaded real transcript answers a question on taxes with Obama\'s own words', async () => {
  const mind = (await s.api('POST', '/minds', { name: 'Barack Obama' })).body.mind;
  const bytes = await readFile(new URL('us-presidential-debates/2012-10-03.said.txt', TRANSCRIPTS));
  const fd = new FormData();
  fd.append('file', new Blob([bytes], { type: 'text/plain' }), 'debate.txt');
  fd.append('mindsetDate', '2012-10-03T00:00:00Z');
  const created = await s.api('POST', `/minds/${mind.id}/snapshots`, fd);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const snapshotId = created.body.mindAssessmentId;

  // Before the snapshot completes there is nothing to answer from (or it has already completed).
  const deadline = Date.now() + 60_000;
  let status: string;
  for (;;) {
    status = (await s.api('GET', `/minds/${mind.id}/snapshots/${snapshotId}/status`)).body.status;
    if (status === 'completed' || status === 'failed' || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 'completed');

  const res = await s.api('POST', '/simulate', { scenario: { message: 'What would you do about taxes for the middle class?' }, mindId: mind.id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.body.message, /tax/i);
  assert.ok(res.body.evidence.length > 0);

  const turns = readDebate('2012-10-03');
  const obama = collapse(turns.filter((t) => t.speaker === 'Barack H Obama').map((t) => t.text).join(' '));
  const others = collapse(turns.filter((t) => t.speaker !== 'Barack H Obama').map((t) => t.text).join(' '));
  for (const e of res.body.evidence) {
    assert.equal(e.snapshotId, snapshotId);
    assert.ok(obama.includes(collapse(e.quote)), `quote is Obama's: ${e.quote}`);
    assert.ok(!others.includes(collapse(e.quote)) || e.quote.length < 40, `quote is not Romney's or Lehrer's: ${e.quote}`);
  }
  const sim = await s.api('GET', `/simulations/${res.body.simulationId}`);
  assert.equal(sim.body.simulation.mindAssessmentId, snapshotId);
});

test('auto-captions (no speaker names, no punctuation): a question is answered with a few caption lines, not a block of a turn', async () => {
  const mind = (await s.api('POST', '/minds', { name: 'Barack Obama' })).body.mind;
  const bytes = await readFile(new URL('us-presidential-debates/2012-10-03.vtt', TRANSCRIPTS));
  const fd = new FormData();
  fd.append('file', new Blob([bytes], { type: 'text/vtt' }), '2012-10-03.vtt');
  fd.append('mindsetDate', '2012-10-03');
  const created = await s.api('POST', `/minds/${mind.id}/snapshots`, fd);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const snapshotId = created.body.mindAssessmentId;
  const deadline = Date.now() + 60_000;
  let details: any;
  do {
    await new Promise((r) => setTimeout(r, 100));
    details = (await s.api('GET', `/minds/${mind.id}/snapshots/${snapshotId}?includeTranscript=true`)).body;
  } while (details.status !== 'completed' && details.status !== 'failed' && Date.now() < deadline);
  assert.equal(details.status, 'completed');
  assert.equal(details.speakersLabelled, false, 'the mind holds every voice of the file, and the details say so');

  const res = await s.api('POST', '/simulate', { scenario: { message: 'What would you do about taxes?' }, mindId: mind.id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(res.body.message.length < 600, `${res.body.message.length} characters: ${res.body.message}`);
  assert.match(res.body.evidence[0].quote, /tax/);
  const text = new Map(details.transcript.map((t: any) => [t.id, t.text]));
  for (const e of res.body.evidence) {
    // The engine's caption passage: a few lines cut to the person's usual answer length (≤ 450 characters, as in test/engines/extractive).
    assert.ok(e.quote.length <= 450, `a few lines, not a block: ${e.quote.length} characters`);
    assert.ok((text.get(e.turnId) as string).includes(e.quote), 'an exact quote of its turn');
  }
});
