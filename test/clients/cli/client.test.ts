/**
 * `mindprint upload` and `mindprint ask` as a user runs them: the real service runs in this
 * process and the CLI is spawned as `node bin/mindprint.js …`, configured by MINDPRINT_URL and
 * MINDPRINT_API_KEY. Output is not a terminal here, so upload prints one line per state.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../../support/server.ts';

const BIN = fileURLToPath(new URL('../../../bin/mindprint.js', import.meta.url));
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

const MIND = 'Margaret Okafor';
const FIRST = [
  'Honestly, the thing I care about most is the river.',
  'I grew up fishing on it with my father, and when the mill closed the water came back clean.',
  'I will fight any permit that puts that at risk.',
];
const SECOND = [
  'Taxes should be fair and simple.',
  'I would rather pay a little more in property tax and have a library that stays open on weekends than save forty dollars a year and lose it.',
  'The library is where my daughter learned to read.',
];

function vtt(mindLabel: string, turns: [string, string][]): string {
  const cues = turns.flatMap(([question, answer], i) => [
    `00:0${2 * i}:00.000 --> 00:0${2 * i}:10.000`,
    `<v Interviewer>${question}`,
    '',
    `00:0${2 * i}:10.000 --> 00:0${2 * i + 1}:00.000`,
    `<v ${mindLabel}>${answer}`,
    '',
  ]);
  return ['WEBVTT', '', ...cues].join('\n');
}

let s: TestServer;
let dir: string;
let env: Record<string, string>;

function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env, ...extraEnv }, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/** The states printed for one file, in order. */
function states(out: string, label: string): string[] {
  return out
    .split('\n')
    .filter((l) => l.startsWith(`${label}: `))
    .map((l) => l.slice(label.length + 2).split(/[ :]/)[0]!);
}

before(async () => {
  s = await startTestServer();
  env = { MINDPRINT_URL: s.url, MINDPRINT_API_KEY: s.key };
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-cli-'));
  await writeFile(path.join(dir, 'river.vtt'), vtt(MIND, [['What matters most to you here?', FIRST.join(' ')]]));
  await writeFile(path.join(dir, 'taxes.vtt'), vtt(MIND, [['What is your view on taxes?', SECOND.slice(0, 2).join(' ')], ['And the library?', SECOND[2]!]]));
  await writeFile(path.join(dir, 'maggie.vtt'), vtt('Maggie', [['Anything else?', 'Potholes on Elm Street have been there for three winters, and that is a disgrace.']]));
  // Random bytes with a NUL up front: never text, never any transcript format.
  await writeFile(path.join(dir, 'noise.bin'), Buffer.concat([Buffer.from([0, 0xff, 0xfe, 0]), randomBytes(4096)]));
});
after(async () => {
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('--help describes the options and the environment', async () => {
  const upload = await cli(['upload', '--help']);
  assert.equal(upload.code, 0, upload.stderr);
  for (const word of ['--mind <mindId|name>', '--create', '--date <ISO>', '--speaker <label>', '--json', 'MINDPRINT_URL', 'MINDPRINT_API_KEY']) assert.ok(upload.stdout.includes(word), `upload --help mentions ${word}`);
  const ask = await cli(['ask', '--help']);
  assert.equal(ask.code, 0, ask.stderr);
  for (const word of ['--mind <mindId|name>', '--conversation <id>', '--snapshot <id>', '--model <id>', '--no-stream', 'MINDPRINT_URL', 'MINDPRINT_API_KEY']) assert.ok(ask.stdout.includes(word), `ask --help mentions ${word}`);
  const top = await cli(['--help']);
  assert.match(top.stdout, /upload \[options\] <files\.\.\.>/);
  assert.match(top.stdout, /ask \[options\] <message>/);
});

test('an unknown mind name is refused without --create; a missing file stops before uploading anything', async () => {
  const r = await cli(['upload', '--mind', MIND, 'river.vtt']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /No mind is named "Margaret Okafor".*--create/);
  const missing = await cli(['upload', '--mind', MIND, '--create', 'river.vtt', 'nope.vtt']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Nothing uploaded: nope\.vtt: no such file/);
  assert.equal((await s.api('GET', '/minds')).body.minds.length, 0, 'no mind was created');
});

test('upload --create: each file goes through its states; the invalid one fails with the service’s reason and exit 1', async () => {
  const r = await cli(['upload', '--mind', MIND, '--create', '--date', '2024-05-01', 'river.vtt', 'noise.bin', 'taxes.vtt']);
  assert.equal(r.code, 1, r.stderr);
  const minds = (await s.api('GET', '/minds')).body.minds as { id: string; name: string }[];
  assert.deepEqual(
    minds.map((m) => m.name),
    [MIND],
  );
  const mindId = minds[0]!.id;
  assert.match(r.stdout, new RegExp(`^Created mind "${MIND}" \\(${mindId}\\): uploading 3 files`, 'm'));

  for (const label of ['[1/3] river.vtt', '[3/3] taxes.vtt']) {
    const seen = states(r.stdout, label);
    assert.deepEqual(seen.slice(0, 3), ['uploading', 'uploaded', 'pending'], `${label}: ${r.stdout}`);
    assert.equal(seen.at(-1), 'completed', r.stdout);
    assert.ok(seen.slice(3, -1).every((x) => x === 'processing'), `only processing in between: ${seen}`);
    assert.match(r.stdout, new RegExp(`^${label.replace(/[[\]/.]/g, '\\$&')}: completed \\(\\d+\\.\\ds\\): snapshot ${UUID}, speaker "${MIND}"$`, 'm'));
  }
  assert.deepEqual(states(r.stdout, '[2/3] noise.bin'), ['uploading', 'failed']);
  assert.match(r.stdout, /^\[2\/3\] noise\.bin: failed \(\d+\.\ds\): 400 VALIDATION_FAILED: Unsupported file type/m);
  assert.match(r.stdout, /^2 completed, 1 failed\.$/m);
  assert.match(r.stderr, /mindprint: noise\.bin failed: 400 VALIDATION_FAILED: Unsupported file type/);

  const snaps = (await s.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots as { status: string; mindsetDate: string }[];
  assert.deepEqual(
    snaps.map((x) => [x.status, x.mindsetDate.slice(0, 10)]),
    [
      ['completed', '2024-05-01'],
      ['completed', '2024-05-01'],
    ],
  );
});

test('upload --json prints a summary on stdout (progress on stderr); --speaker picks the label', async () => {
  const mindId = (await s.api('GET', '/minds')).body.minds.find((m: { name: string }) => m.name === MIND).id;
  const r = await cli(['upload', '--mind', mindId, '--speaker', 'Maggie', '--json', 'maggie.vtt', 'noise.bin']);
  assert.equal(r.code, 1, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual(summary.mind, { id: mindId, name: MIND, created: false });
  assert.deepEqual([summary.completed, summary.failed], [1, 1]);
  const [ok, bad] = summary.files;
  assert.equal(ok.file, 'maggie.vtt');
  assert.equal(ok.status, 'completed');
  assert.match(ok.snapshotId, new RegExp(`^${UUID}$`));
  assert.equal(ok.error, null);
  assert.ok(ok.bytes > 100 && typeof ok.elapsedMs === 'number');
  assert.equal(bad.file, 'noise.bin');
  assert.equal(bad.status, 'failed');
  assert.equal(bad.snapshotId, null);
  assert.equal(bad.bytes, 4100);
  assert.match(bad.error, /^400 VALIDATION_FAILED: Unsupported file type/);
  assert.match(r.stderr, /\[1\/2\] maggie\.vtt: completed/);
  assert.match(r.stderr, /\[2\/2\] noise\.bin: failed/);

  const details = (await s.api('GET', `/minds/${mindId}/snapshots/${ok.snapshotId}`)).body;
  const speakers = details.speakers as { label: string; isMind: boolean }[];
  assert.deepEqual(speakers.filter((x) => x.isMind).map((x) => x.label), ['Maggie']);
});

test('an ambiguous mind name (its candidates\' ids), a misspelt one (did you mean) and a bad --date are clear errors', async () => {
  await s.api('POST', '/minds', { name: 'Twin Name' });
  await s.api('POST', '/minds', { name: 'Twin Name' });
  const r = await cli(['ask', '--mind', 'Twin Name', 'Hello?']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`The name "Twin Name" is ambiguous: 2 minds have it \\(${UUID}, ${UUID}\\)`));
  // A misspelt name, which search (parts of names) does not find: the closest names are offered.
  const jen = (await s.api('POST', '/minds', { name: 'Jen Abel' })).body.mind.id;
  const typo = await cli(['ask', '--mind', 'Jen Able', 'Hello?']);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, new RegExp(`No mind is named "Jen Able"; did you mean "Jen Abel" \\(${jen}\\)\\?`), typo.stderr);
  assert.doesNotMatch(typo.stderr, /Twin Name/, 'only near names');
  const date = await cli(['upload', '--mind', MIND, '--date', 'yesterday', 'river.vtt']);
  assert.equal(date.code, 1);
  assert.match(date.stderr, /--date must be an ISO date/);
});

test('ask streams an answer made of the person’s words; evidence and the conversation id go to stderr', async () => {
  const r = await cli(['ask', '--mind', MIND, 'What would you do about property taxes and the library?']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(SECOND.some((sentence) => r.stdout.includes(sentence)), `the answer quotes the transcript: ${r.stdout}`);
  assert.doesNotMatch(r.stdout, /conversationId|Evidence|What is your view/);
  const conversationId = new RegExp(`^conversationId: (${UUID})$`, 'm').exec(r.stderr)?.[1];
  assert.ok(conversationId, r.stderr);
  const quotes = [...r.stderr.matchAll(new RegExp(`^  (\\d+)\\. "(.+)" \\(snapshot (${UUID})\\)$`, 'gm'))];
  assert.ok(quotes.length > 0, r.stderr);
  quotes.forEach(([, n, quote], i) => {
    assert.equal(Number(n), i + 1);
    assert.ok([...FIRST, ...SECOND].some((sentence) => sentence.includes(quote!) || quote!.includes(sentence)), `a quote of Margaret's: ${quote}`);
  });
  const simulationId = new RegExp(`^simulationId: (${UUID})$`, 'm').exec(r.stderr)![1];

  // A script continues the conversation with the printed id, here without streaming.
  const next = await cli(['ask', '--mind', MIND, '--conversation', conversationId, '--no-stream', 'Tell me about the river where you went fishing with your father.']);
  assert.equal(next.code, 0, next.stderr);
  assert.ok([...FIRST, ...SECOND].some((sentence) => next.stdout.includes(sentence)), next.stdout);
  assert.match(next.stderr, new RegExp(`^conversationId: ${conversationId}$`, 'm'));
  const stored = await s.api('GET', `/simulations/${simulationId}`);
  assert.equal(stored.body.messages.length, 4);
});

test('ask --model chooses the simulation model; an unknown one exits 1 listing the available models', async () => {
  const r = await cli(['ask', '--mind', MIND, '--model', 'mindprint-extractive-1', '--no-stream', 'What would you do about property taxes and the library?']);
  assert.equal(r.code, 0, r.stderr);
  const simulationId = new RegExp(`^simulationId: (${UUID})$`, 'm').exec(r.stderr)![1];
  const stored = await s.api('GET', `/simulations/${simulationId}`);
  assert.equal(stored.body.messages[1].content.model, 'mindprint-extractive-1');
  const bad = await cli(['ask', '--mind', MIND, '--model', 'no-such-model', 'Hello?']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /"no-such-model" is not an available model; available models: mindprint-extractive-1/);
  assert.equal(bad.stdout, '');
});

test('a bad key, a missing setting and an unreachable service exit 1 with a clear message', async () => {
  const badKey = `mp_${'A'.repeat(43)}`;
  for (const args of [['ask', '--mind', MIND, 'Hello?'], ['upload', '--mind', MIND, 'river.vtt']]) {
    const r = await cli(args, { MINDPRINT_API_KEY: badKey });
    assert.equal(r.code, 1, args[0]);
    assert.match(r.stderr, /^mindprint: 401 AUTH_FAILED: Invalid API key \(check --key or MINDPRINT_API_KEY\)$/m, r.stderr);
    assert.equal(r.stdout, '');
  }
  const unset = await cli(['ask', '--mind', MIND, 'Hello?'], { MINDPRINT_API_KEY: '' });
  assert.equal(unset.code, 1);
  assert.match(unset.stderr, /MINDPRINT_API_KEY is not set \(or pass --key/);
  const down = await cli(['ask', '--mind', MIND, 'Hello?'], { MINDPRINT_URL: 'http://127.0.0.1:9' });
  assert.equal(down.code, 1);
  assert.match(down.stderr, /could not reach Mindprint at http:\/\/127\.0\.0\.1:9\/api\/svc/);
  // Without MINDPRINT_URL the default service is http://127.0.0.1:3000; the message names it.
  const bad = await cli(['ask', '--mind', MIND, '--url', 'ftp://example.org', 'Hello?'], { MINDPRINT_URL: '' });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--url or MINDPRINT_URL\) must be an http\(s\) URL, got "ftp:\/\/example\.org"/);
});

test('--url and --key take precedence over MINDPRINT_URL and MINDPRINT_API_KEY', async () => {
  const wrong = { MINDPRINT_URL: 'http://127.0.0.1:9', MINDPRINT_API_KEY: `mp_${'A'.repeat(43)}` };
  const r = await cli(['ask', '--mind', MIND, '--url', s.url, '--key', s.key, '--no-stream', 'What do you care about most?'], wrong);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^conversationId: /m);
  // Only --key: the URL still comes from the environment.
  const keyOnly = await cli(['upload', '--mind', MIND, '--key', s.key, 'river.vtt'], { MINDPRINT_URL: 'http://127.0.0.1:9' });
  assert.equal(keyOnly.code, 1);
  assert.match(keyOnly.stderr, /could not reach Mindprint at http:\/\/127\.0\.0\.1:9\/api\/svc/);
});
