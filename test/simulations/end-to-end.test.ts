/**
 * End to end through the real pipeline: upload a real debate transcript for "Barack Obama",
 * wait for the snapshot to complete, and simulate a question on taxes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startTestServer, type TestServer } from '../support/server.ts';
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
