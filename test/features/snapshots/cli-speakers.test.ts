/**
 * `mindprint upload` and speakers, as a user runs it (the CLI spawned against the real service):
 * a file that names no speakers gets a warning line and is flagged in --json; --speaker names the
 * host whether a file labels him "Lenny" or "Lenny Rachitsky".
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAutoCaptionTrack } from '../../../src/lib/ingest/index.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const BIN = fileURLToPath(new URL('../../../bin/mindprint.js', import.meta.url));

/** 12.4 → "00:00:12.400" */
const clock = (seconds: number) => `00:00:${seconds.toFixed(3).padStart(6, '0')}`;

/** A YouTube-style auto-caption track: word-timed cues, lower case, no speaker named. */
function autoCaptions(): string {
  const lines = [
    'so the question tonight is what we do about the economy and i think the answer starts with jobs',
    'well i disagree with that because the deficit is the thing that holds every family back right now',
    'let me ask you both then how would you bring the deficit down without hurting the middle class',
  ];
  const cues = lines.map((line, i) => {
    const start = i * 10;
    const timed = line
      .split(' ')
      .map((w, j) => (j === 0 ? w : `<${clock(start + j * 0.4)}><c> ${w}</c>`))
      .join('');
    return `${clock(start)} --> ${clock(start + 9)} align:start position:0%\n${timed}\n`;
  });
  return `WEBVTT\nKind: captions\nLanguage: en\n\n${cues.join('\n')}`;
}

/** The podcast layout of ../shared/data/transcripts/lennys-podcast: `Name (hh:mm:ss):` on its own line. */
function podcast(host: string, guest: string): string {
  return [
    '## Transcript',
    '',
    `${host} (00:00:05):`,
    'Welcome to the show. Today we talk about how teams decide what to build next, and why most of them get it wrong.',
    '',
    `${guest} (00:00:20):`,
    'Thanks for having me. I think the biggest mistake is asking customers what they want instead of watching what they do.',
    '',
    `${host} (00:00:41):`,
    'That is such a good point. What does watching look like in practice for a small startup with no research team?',
    '',
    `${guest} (00:01:02):`,
    'You sit with five customers, you ask about the last time they switched tools, and you listen for the moment that pushed them.',
  ].join('\n');
}

let s: TestServer;
let dir: string;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1', MINDPRINT_URL: s.url, MINDPRINT_API_KEY: s.key }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

before(async () => {
  s = await startTestServer();
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-cli-speakers-'));
  await writeFile(path.join(dir, 'debate.vtt'), autoCaptions());
  await writeFile(path.join(dir, 'bob.md.txt'), podcast('Lenny', 'Bob Moesta'));
  await writeFile(path.join(dir, 'jen.md.txt'), podcast('Lenny Rachitsky', 'Jen Abel'));
});
after(async () => {
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('a file that names no speakers: a warning line on stderr, and the flag in --json', async () => {
  assert.equal(isAutoCaptionTrack(autoCaptions()), true, 'the file is an auto-caption track by its format');
  const r = await cli(['upload', '--mind', 'Andrew Huberman', '--create', '--json', 'debate.vtt']);
  assert.equal(r.code, 0, r.stderr);
  const [file] = JSON.parse(r.stdout).files;
  assert.equal(file.status, 'completed');
  assert.equal(file.speakersLabelled, false);
  assert.equal(file.mindSpeaker, 'Speaker');
  assert.match(file.warning, /^The file names no speakers, so every voice in this file counts as Andrew Huberman: /);
  assert.match(r.stderr, /^mindprint: warning: debate\.vtt: The file names no speakers, so every voice in this file counts as Andrew Huberman: /m);

  // Without --json too, once, after the file's progress.
  const plain = await cli(['upload', '--mind', 'Andrew Huberman', 'debate.vtt']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stderr.match(/mindprint: warning: debate\.vtt: .*every voice in this file counts as Andrew Huberman/g)?.length, 1, plain.stderr);
  assert.match(plain.stdout, /debate\.vtt: completed \(\d+\.\ds\): snapshot [0-9a-f-]{36}, speaker "Speaker"$/m);
});

test('--speaker Lenny names the host labelled "Lenny" in one file and "Lenny Rachitsky" in another', async () => {
  const r = await cli(['upload', '--mind', 'Podcast Host', '--create', '--speaker', 'Lenny', '--json', 'bob.md.txt', 'jen.md.txt']);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual([summary.completed, summary.failed], [2, 0]);
  assert.deepEqual(
    summary.files.map((f: { mindSpeaker: string; speakersLabelled: boolean; warning: string | null }) => [f.mindSpeaker, f.speakersLabelled, f.warning]),
    [
      ['Lenny', true, null],
      ['Lenny Rachitsky', true, null],
    ],
  );
  assert.doesNotMatch(r.stderr, /warning/);
  // The full name finds the file that says only "Lenny"; a prefix two labels share is refused with both.
  const full = await cli(['upload', '--mind', 'Podcast Host', '--speaker', 'Lenny Rachitsky', '--json', 'bob.md.txt']);
  assert.equal(JSON.parse(full.stdout).files[0].mindSpeaker, 'Lenny');
  await writeFile(path.join(dir, 'two.md.txt'), podcast('Lenny Rachitsky', 'Lenny Smith'));
  const ambiguous = await cli(['upload', '--mind', 'Podcast Host', '--speaker', 'lenny', 'two.md.txt']);
  assert.equal(ambiguous.code, 1);
  assert.match(ambiguous.stderr, /two\.md\.txt failed: 400 VALIDATION_FAILED: Speaker "lenny" could be any of "Lenny Rachitsky", "Lenny Smith"/);
});

test('mindset dates: the file’s own date, else the day of the upload said on stderr, never in silence', async () => {
  await writeFile(path.join(dir, '2016-09-26-debate.vtt'), autoCaptions());
  await writeFile(path.join(dir, 'front.md.txt'), `---\nguest: Bob Moesta\npublish_date: 2025-02-23\n---\n\n${podcast('Lenny', 'Bob Moesta')}`);
  const r = await cli(['upload', '--mind', 'Bob Moesta', '--create', '--json', '2016-09-26-debate.vtt', 'front.md.txt', 'bob.md.txt']);
  assert.equal(r.code, 0, r.stderr);
  const { mind, files } = JSON.parse(r.stdout);
  assert.deepEqual(files.map((f: any) => [f.mindsetDate, f.dateFrom]), [['2016-09-26', 'file'], ['2025-02-23', 'file'], [null, 'upload-day']]);
  const today = new Date().toISOString().slice(0, 10);
  assert.match(r.stderr, new RegExp(`mindprint: note: bob\\.md\\.txt has no date of its own .*the mindset date is the day of the upload, ${today}\\. Pass --date`));
  const snaps = (await s.api('GET', `/minds/${mind.id}/snapshots`)).body.snapshots;
  const dateOf = (id: string) => snaps.find((x: any) => x.id === id).mindsetDate.slice(0, 10);
  assert.deepEqual(files.map((f: any) => dateOf(f.snapshotId)), ['2016-09-26', '2025-02-23', today]);
  // --date for all of them: no note.
  const flagged = await cli(['upload', '--mind', 'Bob Moesta', '--date', '2020-01-01', '--json', 'bob.md.txt']);
  assert.deepEqual(JSON.parse(flagged.stdout).files.map((f: any) => [f.mindsetDate, f.dateFrom]), [['2020-01-01', 'flag']]);
  assert.doesNotMatch(flagged.stderr, /note:/);
});
