/**
 * The README's quick start, run as a reader would run it: its shell commands are read from
 * README.md at test time (so the README cannot drift from what works), then run with bash against
 * a real server on the embedded database, with the example transcript of examples/. Each step must
 * answer as the README says: a mind is created, the snapshot completes with Obama as the mind, the
 * profile has the Big Five, and the simulation answers in Obama's own words from that debate,
 * never in Romney's. examples/quickstart.sh, the same flow as one script, runs next (reusing the
 * mind the steps made), then the README's command-line block: so every shell block of the README
 * but the first runs, in the reader's order. The first (install, start, test) runs in setup.test.ts,
 * in a fresh copy of the clone; here the test starts its own server.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Lexer, type Tokens } from 'marked';
import { startTestServer, type TestServer } from '../../support/server.ts';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(new URL('README.md', `file://${REPO}`), 'utf8');
const EXAMPLE = readFileSync(new URL('examples/debate-2012-10-03.txt', `file://${REPO}`), 'utf8');
/** Where the README tells the reader the server is; the test's server listens elsewhere. */
const README_ORIGIN = 'http://127.0.0.1:3000';

/** The shell blocks of a "## …" section of the README, in order (parsed as Markdown by marked). */
function sectionBlocks(markdown: string, section = /^quick start$/i): string[] {
  const tokens = Lexer.lex(markdown);
  const start = tokens.findIndex((t) => t.type === 'heading' && (t as Tokens.Heading).depth === 2 && section.test((t as Tokens.Heading).text));
  assert.ok(start >= 0, `README.md has a "## ${section.source}" section`);
  const end = tokens.findIndex((t, i) => i > start && t.type === 'heading' && (t as Tokens.Heading).depth <= 2);
  return tokens
    .slice(start + 1, end < 0 ? undefined : end)
    .filter((t): t is Tokens.Code => t.type === 'code' && ['sh', 'bash', 'shell'].includes((t as Tokens.Code).lang ?? ''))
    .map((t) => t.text);
}

/** A transcript in `Name: text` lines → each speaker's text. */
function wordsBySpeaker(transcript: string): Map<string, string> {
  const by = new Map<string, string>();
  for (const line of transcript.split('\n')) {
    const m = /^([A-Z][A-Za-z. ]+): (.*)$/.exec(line);
    if (m) by.set(m[1]!, `${by.get(m[1]!) ?? ''}\n${m[2]}`);
  }
  return by;
}

const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
/** The sentences of an answer long enough to belong to one speaker only (six words or more). */
const sentencesOf = (text: string): string[] =>
  text
    .split(/(?<=[.!?]["”’)]*)\s+/) // a sentence may end inside a quotation: 'is, "Never mind." Now, …'
    .map(norm)
    .filter((s) => s.split(' ').length >= 6);

const speakers = wordsBySpeaker(EXAMPLE);
const obama = norm(speakers.get('Barack H Obama') ?? '');
const romney = norm(speakers.get('W Mitt Romney') ?? '');

/** Every long sentence of `answer` is Obama's, word for word, and none is Romney's. */
function assertObamasOwnWords(answer: string): void {
  const sentences = sentencesOf(answer);
  assert.ok(sentences.length >= 2, `a real answer, not a refusal: ${answer}`);
  for (const s of sentences) {
    assert.ok(obama.includes(s), `Obama said this in the example transcript: "${s}"`);
    assert.ok(!romney.includes(s), `Romney's words in Obama's answer: "${s}"`);
  }
  assert.match(answer, /tax/i, 'the answer is about taxes');
}

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s?.close());

test('the README quick start, run from README.md: mind, snapshot, profile and an answer in the candidate’s own words', async () => {
  assert.ok(obama.length > 5000 && romney.length > 5000, 'the example has both candidates at length');
  const blocks = sectionBlocks(README);
  assert.ok(blocks.length >= 2, 'a set-up block and the commands');
  assert.match(blocks[0]!, /npm ci/, 'the first block sets up (run by setup.test.ts; here the test starts its own server)');
  const origin = s.base.slice(0, -s.config.basePath.length);
  const commands = blocks.slice(1).join('\n').replaceAll(README_ORIGIN, origin);
  assert.ok(commands.includes('examples/debate-2012-10-03.txt'), 'the quick start uploads the example transcript');
  // Run as typed into a terminal, with KEY set as the README says; the epilogue reports the ids it made.
  const script = `set -eo pipefail\n${commands}\nprintf '\\n::MIND=%s\\n::SNAPSHOT=%s\\n' "$MIND" "$SNAPSHOT"\n`;
  const { stdout } = await run('bash', ['-c', script], { cwd: REPO, env: { ...process.env, KEY: s.key }, timeout: 120_000 });

  const id = (name: string) => new RegExp(`^::${name}=(.+)$`, 'm').exec(stdout)?.[1];
  const mindId = id('MIND');
  const snapshotId = id('SNAPSHOT');
  assert.ok(mindId && snapshotId, stdout);
  const mind = await s.api('GET', `/minds/${mindId}`);
  assert.equal(mind.body.mind.name, 'Barack Obama');
  assert.deepEqual(mind.body.mind.tags.map((t: { name: string }) => t.name), ['politics']);
  const snapshot = await s.api('GET', `/minds/${mindId}/snapshots/${snapshotId}`);
  assert.equal(snapshot.body.status, 'completed', JSON.stringify(snapshot.body));
  assert.deepEqual(snapshot.body.speakers.map((x: { label: string }) => x.label).sort(), ['Barack H Obama', 'Jim Lehrer', 'W Mitt Romney']);

  // What each step printed, in order: the mind's speaker, the Big Five, the answer.
  const lines = stdout.split('\n').filter((l) => l.trim() && !l.startsWith('::'));
  assert.equal(lines[0], 'Barack H Obama (name)', 'step 4 says which speaker is the mind and why');
  const traits = lines.slice(1, 6);
  assert.deepEqual(
    traits.map((l) => l.split(' ')[0]),
    ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism'],
  );
  for (const l of traits) assert.match(l, /^[a-z]+ (0|1)\.\d\d$/, `a score from 0 to 1: ${l}`);
  const answer = lines.slice(6).join('\n');
  assertObamasOwnWords(answer);
});

test('examples/quickstart.sh runs the same flow in one go', async () => {
  const origin = s.base.slice(0, -s.config.basePath.length);
  const { stdout } = await run('bash', ['examples/quickstart.sh'], { cwd: REPO, env: { ...process.env, KEY: s.key, MINDPRINT_URL: origin }, timeout: 120_000 });
  assert.match(stdout, /^mind: Barack Obama \([0-9a-f-]{36}\), which exists already$/m, 'the mind the README\'s steps made is reused');
  assert.match(stdout, /^status: completed$/m, stdout);
  assert.match(stdout, /^the mind is "Barack H Obama" \(name\); speakers: /m);
  assert.equal(stdout.match(/^ {2}(openness|conscientiousness|extraversion|agreeableness|neuroticism) +(0|1)\.\d\d \(confidence /gm)?.length, 5, stdout);
  const answer = /^A: (.*)$/m.exec(stdout)?.[1] ?? '';
  assertObamasOwnWords(answer);
  assert.match(stdout, /^\(resting on [1-9]\d* quotes; simulation [0-9a-f-]{36}\)$/m);
});

test('the README\'s command-line block, after both: one "Barack Obama" to upload to and ask', async () => {
  const { body } = await s.api('GET', `/minds/search?query=${encodeURIComponent('Barack Obama')}`);
  assert.equal(body.minds.filter((m: { name: string }) => m.name === 'Barack Obama').length, 1, 'the curl steps and quickstart.sh made one mind between them');
  const blocks = sectionBlocks(README, /^the command line$/i);
  assert.equal(blocks.length, 1);
  assert.match(blocks[0]!, /mindprint upload .*--mind "Barack Obama"/);
  const origin = s.base.slice(0, -s.config.basePath.length);
  const { stdout, stderr } = await run('bash', ['-c', `set -eo pipefail\n${blocks[0]}`], { cwd: REPO, env: { ...process.env, KEY: s.key, MINDPRINT_URL: origin, NODE_OPTIONS: '' }, timeout: 180_000 });
  assert.match(stderr, /^conversationId: /m, stderr);
  // The upload reports on stdout, ending with its tally; the answer follows.
  const tally = /^.*\b1 completed, 0 failed.*$/m.exec(stdout);
  assert.ok(tally, `the upload completed: ${stdout}`);
  assertObamasOwnWords(stdout.slice(tally.index + tally[0].length).trim());
});
