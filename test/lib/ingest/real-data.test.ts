import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { attributeSpeaker, countWords, sniffFile, type Transcript } from '../../../src/lib/ingest/index.ts';
import { closeParserPool, parseTranscriptFile } from '../../../src/features/snapshots/pool.ts';
import { LABELLED_MAX_TURN_WORDS } from '../../../src/lib/ingest/split.ts';
import { hasSharedData, skipUnlessSharedData } from '../../support/shared-data.ts';
import { dataPath } from './helpers.ts';

after(() => closeParserPool());

async function parse(rel: string): Promise<Transcript> {
  const path = dataPath(rel);
  const kind = await sniffFile(path);
  assert.ok(kind, `${rel} is recognised`);
  return parseTranscriptFile(path, kind);
}

const labels = (t: Transcript): Set<string> => new Set(t.turns.map((x) => x.speaker));
const wordsOf = (t: Transcript, speaker: string): number => t.turns.filter((x) => x.speaker === speaker).reduce((n, x) => n + countWords(x.text), 0);

function assertCleanTurns(t: Transcript, rel: string): void {
  for (const turn of t.turns) {
    assert.ok(countWords(turn.text) > 0, `${rel}: empty turn of ${turn.speaker}`);
    assert.ok(!/\[\(\d|\]\(https?:|^\(\d{2}:\d{2}:\d{2}\):|<\/?[a-z]+[ >]/m.test(turn.text), `${rel}: markup or stamps left in "${turn.text.slice(0, 80)}"`);
  }
  // Consecutive text of one speaker is one turn, unless it was too long for one: then its parts
  // together are over the limit, and each is a fair share of it (not a 400-word turn and a scrap).
  for (let i = 0; i < t.turns.length; ) {
    let j = i + 1;
    while (j < t.turns.length && t.turns[j]!.speaker === t.turns[i]!.speaker) j++;
    if (j - i > 1) {
      const parts = t.turns.slice(i, j).map((x) => countWords(x.text));
      const total = parts.reduce((a, b) => a + b, 0);
      assert.ok(total > LABELLED_MAX_TURN_WORDS, `${rel}: ${t.turns[i]!.speaker}'s turn of ${total} words was cut`);
      assert.equal(parts.length, Math.ceil(total / LABELLED_MAX_TURN_WORDS), `${rel}: the fewest parts`);
      for (const n of parts) assert.ok(n >= total / parts.length / 3 && n <= LABELLED_MAX_TURN_WORDS * 1.5, `${rel}: a part of ${n} words of ${total}`);
    }
    i = j;
  }
}

const lex: [string, string, string[]][] = [
  ['393-andrew-huberman.txt', 'Andrew Huberman', ['Lex Fridman', 'Andrew Huberman']],
  ['400-elon-musk.txt', 'Elon Musk', ['Lex Fridman', 'Elon Musk']],
  ['429-paul-rosolie.txt', 'Paul Rosolie', ['Lex Fridman', 'Paul Rosolie']],
  ['435-andrew-huberman.txt', 'Andrew Huberman', ['Lex Fridman', 'Andrew Huberman']],
  ['438-elon-musk-neuralink-team.txt', 'Elon Musk', ['Lex Fridman', 'Elon Musk', 'DJ Seo', 'Matthew MacDougall', 'Bliss Chapman', 'Noland Arbaugh']],
  ['489-paul-rosolie.txt', 'Paul Rosolie', ['Lex Fridman', 'Paul Rosolie']],
];

for (const [file, mind, expected] of lex) {
  test(`Lex Fridman ${file}: the host and guests, stamped times, the guest found by name`, skipUnlessSharedData, async () => {
    const rel = `transcripts/lex-fridman-podcast/${file}`;
    const t = await parse(rel);
    const found = labels(t);
    for (const name of expected) assert.ok(found.has(name), `${file}: ${name} speaks`);
    // Only real people: every label is one of the expected speakers or an anonymous "Speaker N".
    for (const name of found) assert.ok(expected.includes(name) || /^Speaker \d+$/.test(name), `${file}: unexpected speaker ${name}`);
    // Episodes open with a clip of the guest, then the host's introduction.
    assert.ok(t.turns.slice(0, 6).some((x) => x.speaker === 'Lex Fridman' && /conversation with/i.test(x.text)), 'the introduction is the host speaking');
    assert.ok(t.turns.every((x) => x.startMs !== undefined), 'every Lex turn is stamped');
    assert.ok(!t.turns.some((x) => /This entry was posted|View all posts|Table of Contents/.test(x.text)), 'page furniture is not speech');
    assertCleanTurns(t, rel);
    const who = attributeSpeaker(t, { mindName: mind });
    assert.deepEqual([who.mindLabel, who.attribution], [mind, 'name']);
    assert.ok(wordsOf(t, mind) > 5000, `${mind} says a lot`);
  });
}

test("Lenny's Podcast: host and guest, front matter dropped, the guest found by name, the host by first name", skipUnlessSharedData, async () => {
  const cases: [string, string, string][] = [
    ['bob-moesta.transcript.md.txt', 'Bob Moesta', 'Lenny'],
    ['jen-abel.transcript.md.txt', 'Jen Abel', 'Lenny Rachitsky'],
    ['sander-schulhoff.transcript.md.txt', 'Sander Schulhoff', 'Lenny Rachitsky'],
  ];
  for (const [file, guest, hostLabel] of cases) {
    const rel = `transcripts/lennys-podcast/${file}`;
    const t = await parse(rel);
    const found = labels(t);
    assert.ok(found.has(guest) && found.has(hostLabel), `${file}: ${guest} and ${hostLabel} speak`);
    assert.ok(found.size <= 3, `${file}: at most one extra voice (a sponsor read), got ${[...found].join(', ')}`);
    assert.ok(!t.turns.some((x) => /youtube_url|view_count|## Transcript/.test(x.text)), `${file}: front matter is not speech`);
    assertCleanTurns(t, rel);
    assert.equal(attributeSpeaker(t, { mindName: guest }).mindLabel, guest);
    const host = attributeSpeaker(t, { mindName: 'Lenny Rachitsky' });
    assert.deepEqual([host.mindLabel, host.attribution], [hostLabel, 'name']);
  }
});

const debates = !hasSharedData ? [] : readdirSync(dataPath('transcripts/us-presidential-debates')).filter((f) => f.endsWith('.json')).map((f) => f.replace('.json', ''));

test('presidential debates (.said.txt): every speaker of the metadata, candidates found by everyday names', skipUnlessSharedData, async () => {
  assert.equal(debates.length, 6);
  for (const id of debates) {
    const meta = JSON.parse(readFileSync(dataPath(`transcripts/us-presidential-debates/${id}.json`), 'utf8')) as { speakers: { fullName: string; role: string }[] };
    const rel = `transcripts/us-presidential-debates/${id}.said.txt`;
    const t = await parse(rel);
    const found = labels(t);
    for (const s of meta.speakers) assert.ok(found.has(s.fullName), `${id}: ${s.fullName} speaks`);
    assertCleanTurns(t, rel);
    const everyday = id.startsWith('2012') ? { 'Barack Obama': 'Barack H Obama', 'Mitt Romney': 'W Mitt Romney' } : { 'Donald Trump': 'Donald J Trump', 'Hillary Clinton': 'Hillary R Clinton' };
    for (const [name, label] of Object.entries(everyday)) {
      const who = attributeSpeaker(t, { mindName: name });
      assert.deepEqual([who.mindLabel, who.attribution], [label, 'name'], `${id}: ${name}`);
      assert.equal(who.speakers.filter((s) => s.isMind).length, 1);
    }
  }
});

test('presidential debates (.vtt auto-captions): word-timed cues read once, in order, as one unlabelled voice in quotable turns', skipUnlessSharedData, async () => {
  for (const id of debates) {
    const rel = `transcripts/us-presidential-debates/${id}.vtt`;
    const t = await parse(rel);
    // These caption tracks carry no speaker labels, so the whole debate is one voice, and says so.
    assert.deepEqual([...labels(t)], ['Speaker'], `${id}: no labels in auto-captions`);
    assert.equal(t.unlabelled, true);
    const first = t.turns[0]!;
    const last = t.turns[t.turns.length - 1]!;
    assert.ok(first.startMs !== undefined && last.endMs !== undefined && last.endMs > first.startMs + 60 * 60 * 1000, `${id}: the captions span over an hour`);
    // Not one 16,000-word turn: turns of at most 200 words, about 120 on average (a pause cuts one
    // short, but never under 20 words), in time order.
    const words = t.turns.map((x) => countWords(x.text));
    const mean = words.reduce((a, b) => a + b, 0) / words.length;
    assert.ok(Math.max(...words) <= 200, `${id}: longest turn ${Math.max(...words)} words`);
    assert.ok(mean >= 100 && mean <= 150, `${id}: ${mean.toFixed(0)} words per turn`);
    assert.ok(words.slice(0, -1).every((n) => n >= 20), `${id}: shortest turn ${Math.min(...words.slice(0, -1))} words`);
    for (let i = 0; i < t.turns.length; i++) {
      const turn = t.turns[i]!;
      assert.ok(turn.startMs !== undefined && turn.endMs !== undefined && turn.endMs > turn.startMs, `${id}: turn ${i} is timed`);
      if (i > 0) assert.ok(turn.startMs >= t.turns[i - 1]!.endMs!, `${id}: turn ${i} starts after the previous ends`);
      assert.doesNotMatch(turn.text, /<|&gt;|-->/, `${id}: no markup left`);
      // One pseudo-sentence per line, each of sentence size.
      for (const line of turn.text.split('\n')) assert.ok(line.split(' ').length <= 30, `${id}: a line of ${line.split(' ').length} words`);
    }
    const lines = t.turns.flatMap((x) => x.text.split('\n'));
    const perLine = lines.reduce((n, l) => n + countWords(l), 0) / lines.length;
    assert.ok(perLine >= 10 && perLine <= 20, `${id}: ${perLine.toFixed(1)} words per pseudo-sentence`);
    // The captions say what the official transcript says: word counts agree within 25 %, so
    // nothing was read twice and nothing was lost.
    const said = await parse(`transcripts/us-presidential-debates/${id}.said.txt`);
    const ratio = words.reduce((a, b) => a + b, 0) / said.turns.reduce((n, x) => n + countWords(x.text), 0);
    assert.ok(ratio > 0.75 && ratio < 1.25, `${id}: caption/transcript word ratio ${ratio.toFixed(2)}`);
    const who = attributeSpeaker(t, { mindName: 'Barack Obama' });
    assert.deepEqual([who.mindLabel, who.attribution], ['Speaker', 'inferred']);
  }
});

test('DOCX: a three-person meeting and a one-speaker lecture', skipUnlessSharedData, async () => {
  const meeting = await parse('documents/docx/mom-generator-sample-transcript.docx');
  assert.deepEqual(meeting.turns.map((x) => x.speaker), ['Speaker 1', 'Speaker 2', 'Speaker 1', 'Speaker 3', 'Speaker 2']);
  assert.equal(meeting.turns[3]!.text, "Yes, I'll take care of it.");
  const summary = attributeSpeaker(meeting, { mindName: 'Someone Else' }).speakers;
  assert.deepEqual(summary.map((s) => [s.label, s.turns]), [['Speaker 1', 2], ['Speaker 2', 2], ['Speaker 3', 1]]);

  const lecture = await parse('documents/docx/uoe-teaching-lecture-transcript.docx');
  assert.deepEqual([...labels(lecture)], ['Speaker']);
  assert.equal(lecture.unlabelled, true);
  assert.match(lecture.turns[0]!.text, /^--Title page--\nHi everyone, I’m Dr Federico Andreis/);
  assert.ok(wordsOf(lecture, 'Speaker') > 1000);
  // One voice, but cut into turns a search can rank and a reply can quote, at the end of a
  // sentence or of a paragraph (the slide headings "--Title--" are paragraphs of their own).
  assert.ok(lecture.turns.length >= 8, `${lecture.turns.length} turns`);
  for (const turn of lecture.turns) {
    assert.ok(countWords(turn.text) <= 200, `a turn of ${countWords(turn.text)} words`);
    const lastLine = turn.text.split('\n').pop()!;
    assert.ok(/(?:[.!?…]["”’)]*|--)$/.test(lastLine) || !/[.!?]\s/.test(lastLine), `ends a sentence or a paragraph: "${lastLine.slice(-60)}"`);
  }
  const who = attributeSpeaker(lecture, { mindName: 'Federico Andreis' });
  assert.deepEqual([who.mindLabel, who.attribution], ['Speaker', 'inferred']);
});

const scotus: [string, string[], [string, string][]][] = [
  ['scotus-17-1618_2a34.pdf', ['CHIEF JUSTICE ROBERTS', 'MS. KARLAN', 'MR. HARRIS', 'GENERAL FRANCISCO', 'JUSTICE GINSBURG'], [['Pamela Karlan', 'MS. KARLAN'], ['John Roberts', 'CHIEF JUSTICE ROBERTS'], ['Ruth Bader Ginsburg', 'JUSTICE GINSBURG']]],
  ['scotus-18-1195_ap6b.pdf', ['CHIEF JUSTICE ROBERTS', 'MR. KOMER', 'MR. UNIKOWSKY', 'MR. WALL', 'JUSTICE BREYER'], [['Richard Komer', 'MR. KOMER'], ['Stephen Breyer', 'JUSTICE BREYER']]],
  ['scotus-18-587_1bn2.pdf', ['CHIEF JUSTICE ROBERTS', 'GENERAL FRANCISCO', 'MR. OLSON', 'MR. MONGAN', 'JUSTICE KAGAN'], [['Noel Francisco', 'GENERAL FRANCISCO'], ['Theodore Olson', 'MR. OLSON'], ['Elena Kagan', 'JUSTICE KAGAN']]],
];

for (const [file, expected, minds] of scotus) {
  test(`Supreme Court PDF ${file}: justices and counsel, prose without line numbers or page furniture`, skipUnlessSharedData, async () => {
    const rel = `documents/pdf/${file}`;
    const t = await parse(rel);
    const found = labels(t);
    for (const name of expected) assert.ok(found.has(name), `${file}: ${name} speaks`);
    for (const name of found) assert.match(name, /^(?:CHIEF JUSTICE|JUSTICE|MR\.|MS\.|GENERAL) [A-Z]+$/, `${file}: ${name} is a justice or counsel`);
    assert.equal(t.turns[0]!.speaker, 'CHIEF JUSTICE ROBERTS');
    assert.match(t.turns[0]!.text, /^We'll hear argument/);
    assert.equal(t.turns[t.turns.length - 1]!.text, 'Thank you, counsel. The case is submitted.');
    for (const turn of t.turns) {
      assert.doesNotMatch(turn.text, /Heritage Reporting|\bOfficial\b|\[\d+\]|Whereupon/, `${file}: furniture in "${turn.text.slice(0, 80)}"`);
    }
    // Left-margin line numbers (1–25 on every page) would make about one word in eight a small
    // integer; in the spoken text such numbers are rare.
    const tokens = t.turns.flatMap((x) => x.text.split(/\s+/));
    const small = tokens.filter((w) => /^(?:[1-9]|1\d|2[0-5])$/.test(w)).length;
    assert.ok(small / tokens.length < 0.002, `${file}: ${small} small integers among ${tokens.length} words`);
    assertCleanTurns(t, rel);
    for (const [mind, label] of minds) {
      const who = attributeSpeaker(t, { mindName: mind });
      assert.deepEqual([who.mindLabel, who.attribution], [label, 'name'], mind);
    }
  });
}
