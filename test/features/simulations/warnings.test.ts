/**
 * An answer whose evidence comes from a file that names no speakers carries the warning with it:
 * in the JSON answer, in the stream's `done` event, in the stored message and in `mindprint ask`
 * (stdout the answer, stderr the warning). The file is the real auto-captions of the first 2012
 * debate (test/fixtures): Obama, Romney and the moderator in one voiceless stream of words.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { unlabelledWarning } from '../../../src/features/simulations/warnings.ts';
import { BIN } from '../../support/cli.ts';
import { fixturePath } from '../../support/shared-data.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { upload, waitForSnapshot } from '../snapshots/support.ts';
import { simulateStream } from './helpers.ts';

const DEBATE = 'transcripts/us-presidential-debates/2012-10-03';
const QUESTION = 'What would you do about jobs and the economy?';

let s: TestServer;
let captionsMind: string;
let captionsSnapshot: string;
let labelledMind: string;

async function mindWith(name: string, file: string, fileName: string, type: string): Promise<{ mindId: string; snapshotId: string }> {
  const mindId = (await s.api('POST', '/minds', { name })).body.mind.id as string;
  const created = await upload(s, mindId, { file: { bytes: await readFile(fixturePath(file)), name: fileName, type }, mindsetDate: '2012-10-03' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const done = await waitForSnapshot(s, mindId, created.body.mindAssessmentId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return { mindId, snapshotId: created.body.mindAssessmentId };
}

before(async () => {
  s = await startTestServer();
  ({ mindId: captionsMind, snapshotId: captionsSnapshot } = await mindWith('W Mitt Romney', `${DEBATE}.vtt`, 'captions.vtt', 'text/vtt'));
  ({ mindId: labelledMind } = await mindWith('Barack H Obama', `${DEBATE}.said.txt`, 'debate.txt', 'text/plain'));
});
after(() => s?.close());

function checkWarned(warnings: any[], evidence: any[]) {
  assert.ok(evidence.length > 0, 'the answer quotes the captions');
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  const [w] = warnings;
  assert.equal(w.code, 'unlabelled_speakers');
  assert.deepEqual(w.snapshotIds, [captionsSnapshot]);
  assert.match(w.message, /names no speakers/);
  assert.match(w.message, /every voice in it counts as W Mitt Romney/);
  assert.match(w.message, /someone else’s words/);
}

test('the JSON answer, the stream and the stored message carry the warning when the evidence comes from captions', async () => {
  const res = await s.api('POST', '/simulate', { mindId: captionsMind, scenario: { message: QUESTION } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  checkWarned(res.body.warnings, res.body.evidence);
  assert.match(res.body.warnings[0].message, res.body.evidence.length === 1 ? /^The quote comes from/ : new RegExp(`^All ${res.body.evidence.length} quotes come from`));

  const stored = await s.api('GET', `/simulations/${res.body.simulationId}`);
  const answer = stored.body.messages.find((m: any) => m.id === res.body.messageId);
  assert.deepEqual(answer.content.warnings, res.body.warnings, 'kept with the message, so a reopened conversation shows it');

  const streamed = await simulateStream(s, { mindId: captionsMind, scenario: { message: QUESTION } });
  assert.equal(streamed.status, 200);
  const done = streamed.events.at(-1)!;
  assert.equal(done.event, 'done');
  checkWarned(done.data.warnings, done.data.evidence);
});

test('an answer from a transcript that labels its speakers has no warning', async () => {
  const res = await s.api('POST', '/simulate', { mindId: labelledMind, scenario: { message: QUESTION } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(res.body.evidence.length > 0);
  assert.deepEqual(res.body.warnings, []);
  const stored = await s.api('GET', `/simulations/${res.body.simulationId}`);
  assert.equal(stored.body.messages.find((m: any) => m.id === res.body.messageId).content.warnings, undefined);
  const streamed = await simulateStream(s, { mindId: labelledMind, scenario: { message: QUESTION } });
  assert.deepEqual(streamed.events.at(-1)!.data.warnings, []);
});

test('the warning counts the quotes it is about', () => {
  assert.match(unlabelledWarning('Ada', 2, 3, ['a']).message, /^2 of the 3 quotes come from a file that names no speakers .*every voice in it counts as Ada, so they may be/);
  assert.match(unlabelledWarning('Ada', 1, 1, ['a']).message, /^The quote comes from a file .*so it may be/);
  assert.match(unlabelledWarning('Ada', 4, 4, ['a', 'b']).message, /^All 4 quotes come from files that name no speakers .*every voice in them/);
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', MINDPRINT_URL: s.url, MINDPRINT_API_KEY: s.key }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

test('mindprint ask prints the warning on stderr and does not call the quotes their own words', async () => {
  for (const extra of [[], ['--no-stream']]) {
    const r = await cli(['ask', '--mind', captionsMind, ...extra, QUESTION]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.trim().length > 0, 'the answer on stdout');
    assert.doesNotMatch(r.stdout, /warning/i, 'stdout stays the answer alone');
    assert.match(r.stderr, /mindprint: warning: .*names no speakers.*every voice in it counts as W Mitt Romney/);
    assert.doesNotMatch(r.stderr, /their own words/);
    assert.match(r.stderr, /\* "/, 'the quotes from the file are marked');
  }
  const labelled = await cli(['ask', '--mind', labelledMind, QUESTION]);
  assert.equal(labelled.code, 0, labelled.stderr);
  assert.doesNotMatch(labelled.stderr, /warning/);
  assert.match(labelled.stderr, /Evidence \(their own words/);
});
