/**
 * The repository's own fixtures (test/fixtures, see SOURCES.md there): the generated ones are what
 * scripts/generate-fixtures.ts writes today, every file is listed in SOURCES.md, the folder stays
 * small, and the real-layout files read as what they are — the checks that, with the whole data
 * beside the clone, test/lib/ingest/real-data.test.ts makes on every real transcript.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { attributeSpeaker, countWords, sniffFile, type Transcript } from '../src/lib/ingest/index.ts';
import { closeParserPool, parseTranscriptFile } from '../src/features/snapshots/pool.ts';
import { FIXTURES, fixturePath } from './support/shared-data.ts';

after(() => closeParserPool());
const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

async function parse(rel: string): Promise<Transcript> {
  const kind = await sniffFile(fixturePath(rel));
  assert.ok(kind, `${rel} is recognised`);
  return parseTranscriptFile(fixturePath(rel), kind);
}
const labels = (t: Transcript): string[] => [...new Set(t.turns.map((x) => x.speaker))];

test('the generated fixtures are what scripts/generate-fixtures.ts writes', async () => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/generate-fixtures.ts', '--check'], { cwd: REPO });
  assert.match(stdout, /up to date/);
});

test('every fixture is accounted for in SOURCES.md, and the folder stays small', () => {
  const sources = readFileSync(fixturePath('SOURCES.md'), 'utf8');
  const files = filesUnder(FIXTURES).filter((f) => f !== 'SOURCES.md');
  assert.ok(files.length >= 40);
  for (const f of files) {
    const named = sources.includes(f) || sources.includes(f.split('/').pop()!) || (f.startsWith('vtt-edge/generated/') && sources.includes('vtt-edge/generated/**.vtt'));
    assert.ok(named, `${f} is described in SOURCES.md`);
  }
  const bytes = files.reduce((n, f) => n + statSync(fixturePath(f)).size, 0);
  assert.ok(bytes < 1.5 * 1024 * 1024, `test/fixtures holds ${(bytes / 1024 / 1024).toFixed(2)} MB`);
});

test('the Supreme Court PDF: justices and counsel by their labels, prose without line numbers or page furniture', async () => {
  const t = await parse('documents/pdf/scotus-17-1618_2a34.pdf');
  for (const name of ['CHIEF JUSTICE ROBERTS', 'MS. KARLAN', 'MR. HARRIS', 'GENERAL FRANCISCO', 'JUSTICE GINSBURG']) assert.ok(labels(t).includes(name), name);
  for (const name of labels(t)) assert.match(name, /^(?:CHIEF JUSTICE|JUSTICE|MR\.|MS\.|GENERAL) [A-Z]+$/);
  assert.match(t.turns[0]!.text, /^We'll hear argument first this morning in Case 17-1618, Bostock versus Clayton County/);
  assert.equal(t.turns.at(-1)!.text, 'Thank you, counsel. The case is submitted.');
  const tokens = t.turns.flatMap((x) => x.text.split(/\s+/));
  assert.ok(tokens.filter((w) => /^(?:[1-9]|1\d|2[0-5])$/.test(w)).length / tokens.length < 0.002, 'no line-number columns in the speech');
  for (const x of t.turns) assert.doesNotMatch(x.text, /Heritage Reporting|\bOfficial\b|Whereupon/);
  assert.deepEqual([attributeSpeaker(t, { mindName: 'Pamela Karlan' }).mindLabel, attributeSpeaker(t, { mindName: 'Ruth Bader Ginsburg' }).mindLabel], ['MS. KARLAN', 'JUSTICE GINSBURG']);
});

test('the debate excerpts: the moderator and both candidates of the metadata, found by their everyday names', async () => {
  for (const date of ['2012-10-03', '2012-10-16', '2012-10-22']) {
    const t = await parse(`transcripts/us-presidential-debates/${date}.said.txt`);
    const meta = JSON.parse(readFileSync(fixturePath(`transcripts/us-presidential-debates/${date}.json`), 'utf8')) as { speakers: { fullName: string; role: string }[] };
    // The excerpt of the town hall does not reach every audience questioner.
    for (const s of meta.speakers.filter((x) => x.role !== 'Audience questioner')) assert.ok(labels(t).includes(s.fullName), `${date}: ${s.fullName} speaks`);
    for (const [name, label] of [['Barack Obama', 'Barack H Obama'], ['Mitt Romney', 'W Mitt Romney']]) {
      const who = attributeSpeaker(t, { mindName: name! });
      assert.deepEqual([who.mindLabel, who.attribution], [label, 'name'], `${date}: ${name}`);
    }
  }
});

test('the auto-caption excerpt: one unlabelled voice in timed turns of about 120 words', async () => {
  const t = await parse('transcripts/us-presidential-debates/2012-10-03.vtt');
  assert.deepEqual(labels(t), ['Speaker']);
  assert.equal(t.unlabelled, true);
  assert.ok(t.turns.at(-1)!.endMs! > 15 * 60_000, 'about 20 minutes of captions');
  const words = t.turns.map((x) => countWords(x.text));
  assert.ok(Math.max(...words) <= 200 && words.slice(0, -1).every((n) => n >= 20), words.join(' '));
  assert.match(t.turns[0]!.text, /^gentlemen\nwelcome to you both let's start the economy segment one/);
  assert.deepEqual([attributeSpeaker(t, { mindName: 'Barack Obama' }).mindLabel, attributeSpeaker(t, { mindName: 'Barack Obama' }).attribution], ['Speaker', 'inferred']);
});

test('the generated meeting DOCX: three people, five turns, labels split from their runs', async () => {
  const t = await parse('documents/docx/meeting.docx');
  assert.deepEqual(t.turns.map((x) => x.speaker), ['Speaker 1', 'Speaker 2', 'Speaker 1', 'Speaker 3', 'Speaker 2']);
  assert.equal(t.turns[3]!.text, "Yes, I'll take care of it.");
  assert.match(t.turns[0]!.text, /^Good morning, everyone\. The first item is the move to the new office in March; the lease is signed/);
});
