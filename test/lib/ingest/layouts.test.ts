import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { attributeSpeaker, sniffFile, type Transcript } from '../../../src/lib/ingest/index.ts';
import { closeParserPool, parseTranscriptFile } from '../../../src/features/snapshots/pool.ts';
import { makeDocx, srtOf, tempDir } from './helpers.ts';

const tmp = tempDir('layouts');
after(async () => {
  await closeParserPool();
  tmp.cleanup();
});

async function parseText(name: string, content: string | Buffer): Promise<Transcript> {
  const path = tmp.file(name, content);
  const kind = await sniffFile(path);
  assert.ok(kind, `${name} should be recognised`);
  return parseTranscriptFile(path, kind);
}

const speakers = (t: Transcript): string[] => t.turns.map((x) => x.speaker);

test('Name: text lines, continuation lines join the previous turn, prose colons are not speakers', async () => {
  const t = await parseText('colon.txt', [
    'Interview notes',
    '',
    'Maria Lopez: Thanks for having me. I have been building boats for twenty years.',
    'It started in my father\'s garage.',
    'Note: this part of the story matters, because the garage flooded every spring.',
    'Tom: So what changed?',
    'Maria Lopez: Step 1: we moved the workshop. Step 2: we learned to seal the hull properly.',
    'Step 3: we sold the first boat.',
    'Tom: And the answer to everything: patience?',
    'Maria Lopez: Patience, yes.',
  ].join('\n'));
  assert.deepEqual(speakers(t), ['Maria Lopez', 'Tom', 'Maria Lopez', 'Tom', 'Maria Lopez']);
  assert.match(t.turns[0]!.text, /garage\.\nNote: this part of the story matters/, '"Note:" stays in the speech');
  assert.match(t.turns[2]!.text, /Step 3: we sold the first boat\./, '"Step 3:" continues the turn');
  assert.doesNotMatch(t.turns[0]!.text, /Interview notes/, 'the title before the first speaker is not speech');
});

test('NAME: alone on its own line, followed by the speech', async () => {
  const t = await parseText('caps.txt', 'HOST:\nWelcome back to the show.\nIt is good to see you.\n\nDR. AMARA OKAFOR:\nThank you. It is good to be back.\n\nHOST:\nLet us begin.\n');
  assert.deepEqual(speakers(t), ['HOST', 'DR. AMARA OKAFOR', 'HOST']);
  assert.equal(t.turns[0]!.text, 'Welcome back to the show.\nIt is good to see you.');
});

test('"Name  00:01:23" and "Name (00:01:23):" heading lines carry the time of the turn', async () => {
  const otter = await parseText('otter.txt', 'Priya Raman  0:00\nLet us get started.\n\nSam Ortiz  00:01:23\nSure. I have the numbers here.\n\nPriya Raman  00:02:05\nGreat.\n');
  assert.deepEqual(speakers(otter), ['Priya Raman', 'Sam Ortiz', 'Priya Raman']);
  assert.deepEqual(otter.turns.map((x) => x.startMs), [0, 83_000, 125_000]);
  const paren = await parseText('paren.txt', 'Priya Raman (00:00:05):\nHello.\n\nSam Ortiz (00:00:09): Hi, inline this time.\n');
  assert.deepEqual(paren.turns.map((x) => [x.speaker, x.text, x.startMs]), [['Priya Raman', 'Hello.', 5000], ['Sam Ortiz', 'Hi, inline this time.', 9000]]);
});

test('"[00:01:23] Name: text" lines', async () => {
  const t = await parseText('bracket.txt', '[00:00:01] Ada: Can you hear me?\n[00:00:04] Grace: Loud and clear.\nThe line is good today.\n[00:01:10] Ada: Then let us start.\n');
  assert.deepEqual(t.turns.map((x) => [x.speaker, x.startMs]), [['Ada', 1000], ['Grace', 4000], ['Ada', 70_000]]);
  assert.equal(t.turns[1]!.text, 'Loud and clear.\nThe line is good today.');
});

test('Lex Fridman layout: stamped lines are turns, headings and the blog footer are not speech', async () => {
  const t = await parseText('lex.txt', [
    '# Transcript for Someone | Lex Fridman Podcast #999',
    '',
    '  * 0:00 – Introduction',
    '',
    '## Introduction',
    '',
    'Lex Fridman [(00:00:00)](https://youtube.com/watch?v=x&t=0) The following is a conversation with Jane Roe.',
    '',
    'Jane Roe [(00:00:12)](https://youtube.com/watch?v=x&t=12) Thanks for having me: it is an honor.',
    '',
    '[(00:00:20)](https://youtube.com/watch?v=x&t=20) And I mean that.',
    '',
    '## Childhood',
    '',
    'Lex Fridman [(00:01:02)](https://youtube.com/watch?v=x&t=62) Tell me about your childhood.',
    '',
    'This entry was posted in [transcripts](https://lexfridman.com/category/transcripts/) by Lex Fridman.',
  ].join('\n'));
  assert.deepEqual(t.turns.map((x) => [x.speaker, x.startMs]), [['Lex Fridman', 0], ['Jane Roe', 12_000], ['Lex Fridman', 62_000]]);
  assert.equal(t.turns[1]!.text, 'Thanks for having me: it is an honor.\nAnd I mean that.', 'a bare stamp continues the speaker');
  assert.equal(t.turns[2]!.text, 'Tell me about your childhood.');
});

test('Lex layout: an answer over 400 words is cut into near-equal parts at sentence ends, each timed from the stamped paragraph it starts in', async () => {
  const paragraph = (i: number) => `Point ${i} is this. ${'We walked along the river for a long time and talked about it. '.repeat(8).trim()}`;
  const lines = ['Lex Fridman [(00:00:00)](https://youtube.com/watch?v=x&t=0) Tell me everything.', ''];
  lines.push(`Jane Roe [(00:00:10)](https://youtube.com/watch?v=x&t=10) ${paragraph(0)}`, '');
  for (let i = 1; i < 8; i++) lines.push(`[(00:0${i}:00)](https://youtube.com/watch?v=x&t=${i * 60}) ${paragraph(i)}`, '');
  lines.push('Lex Fridman [(00:09:00)](https://youtube.com/watch?v=x&t=540) Thank you.');
  const t = await parseText('long-answer.txt', lines.join('\n'));
  const jane = t.turns.filter((x) => x.speaker === 'Jane Roe');
  const words = jane.map((x) => x.text.split(/\s+/).length);
  const total = 8 * paragraph(0).split(' ').length;
  assert.equal(words.reduce((a, b) => a + b, 0), total, 'nothing lost');
  assert.equal(jane.length, Math.ceil(total / 400));
  for (const n of words) assert.ok(Math.abs(n - total / jane.length) <= 60, `parts of ${words.join(', ')} words`);
  assert.deepEqual(speakers(t), ['Lex Fridman', ...jane.map(() => 'Jane Roe'), 'Lex Fridman']);
  // Whole sentences, and each part timed from the paragraph it starts in.
  for (const part of jane) assert.match(part.text, /^(?:Point|We)\b.*\.$/s);
  assert.equal(jane[0]!.startMs, 10_000);
  jane.slice(1).forEach((part) => {
    const paragraphIndex = lines.findIndex((l) => l.includes(part.text.split('\n')[0]!.slice(0, 60)));
    assert.ok(part.startMs !== undefined && part.startMs >= 60_000, `part timed: ${part.startMs}`);
    if (part.text.startsWith('Point ')) assert.equal(part.startMs, Number(/t=(\d+)/.exec(lines[paragraphIndex]!)![1]) * 1000);
    assert.equal(part.continues, true);
  });
  assert.equal(jane[0]!.continues, undefined);
});

test('plain text without speakers or punctuation (a copied caption transcript): ~120-word turns of pseudo-sentences', async () => {
  const words = 'so the question is what we do about jobs and i think we start with education because that is where it begins '.repeat(20).trim();
  // Copied from a video page: short lines, lower case, no punctuation.
  const text = words.match(/(?:\S+ ?){1,8}/g)!.map((l) => l.trim()).join('\n');
  const t = await parseText('copied.txt', text);
  assert.equal(t.unlabelled, true);
  assert.ok(t.turns.length >= 3, `${t.turns.length} turns`);
  for (const turn of t.turns) assert.ok(turn.text.split(/\s+/).length <= 200);
  assert.equal(t.turns.map((x) => x.text).join(' ').split(/\s+/).join(' '), words);
});

test("Lenny's Podcast layout: front matter skipped, a bare (hh:mm:ss): continues the speaker", async () => {
  const t = await parseText('lenny.md.txt', [
    '---',
    'guest: Kim Lee',
    'title: "Growth: the hard parts"',
    '---',
    '',
    '# Growth | Kim Lee',
    '',
    '## Transcript',
    '',
    'Kim Lee (00:00:00):',
    'The first thing I learned is that growth is a habit.',
    '',
    'Lenny (00:00:20):',
    'Welcome to the podcast.',
    '',
    '(00:00:31):',
    'Today my guest is Kim Lee.',
    '',
    'Kim Lee (00:00:40):',
    'Thanks, Lenny.',
  ].join('\n'));
  assert.deepEqual(speakers(t), ['Kim Lee', 'Lenny', 'Kim Lee']);
  assert.equal(t.turns[1]!.text, 'Welcome to the podcast.\nToday my guest is Kim Lee.');
  assert.equal(t.turns[1]!.startMs, 20_000);
  assert.ok(t.turns.every((x) => !/guest:|Growth \|/.test(x.text)), 'front matter and title are not speech');
});

test('a document with no speaker structure is one speaker', async () => {
  const t = await parseText('essay.txt', 'The river was high that year.\nWe waited: there was nothing else to do.\nAs my grandmother said: patience is a kind of courage.\n');
  assert.equal(t.turns.length, 1);
  assert.equal(t.turns[0]!.speaker, 'Speaker');
  assert.match(t.turns[0]!.text, /^The river was high that year\.\nWe waited: there was nothing else to do\./);
});

test('a lone name-like colon label deep inside prose does not turn the prose into a transcript', async () => {
  const prose = Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of a long essay about rivers and the towns beside them.`).join('\n');
  const t = await parseText('quote.txt', `${prose}\nJohn Smith: the river always wins.\nAnd so the essay ends.\n`);
  assert.deepEqual(speakers(t).filter((s, i, all) => all.indexOf(s) === i), ['Speaker']);
  assert.equal(t.unlabelled, true);
  assert.match(t.turns[0]!.text, /^Paragraph 1 of a long essay/);
  assert.match(t.turns[t.turns.length - 1]!.text, /John Smith: the river always wins\.\nAnd so the essay ends\.$/);
});

test('SRT cues with Name: prefixes become turns with times; consecutive cues of one speaker merge', async () => {
  const srt = srtOf([
    ['00:00:01,000', '00:00:03,000', 'Ann: Did you bring the <i>maps</i>?'],
    ['00:00:03,500', '00:00:05,000', 'Ben: I did.'],
    ['00:00:05,000', '00:00:07,250', 'They are in the car.'],
    ['00:00:08,000', '00:00:09,000', 'Ann: Good.'],
  ]);
  const t = await parseText('dialog.srt', srt);
  assert.deepEqual(t.turns, [
    { speaker: 'Ann', text: 'Did you bring the maps?', startMs: 1000, endMs: 3000 },
    { speaker: 'Ben', text: 'I did. They are in the car.', startMs: 3500, endMs: 7250 },
    { speaker: 'Ann', text: 'Good.', startMs: 8000, endMs: 9000 },
  ]);
});

test('VTT: voice tags, Name: prefixes, markup and inline timestamps stripped, cues of one voice merged', async () => {
  const vtt = [
    'WEBVTT', '',
    'STYLE', '::cue(.loud) { color: red }', '',
    'NOTE produced by hand', '',
    '00:00:01.000 --> 00:00:02.500', '<v Dr. Ines Moreau>Welcome <c.loud>everyone</c>.</v>', '',
    'intro-2', '00:00:02.500 --> 00:00:04.000', '<v Dr. Ines Moreau>Let us <00:00:03.000>begin.', '',
    '00:00:04.000 --> 00:00:06.000 align:start position:10%', '<v.student Kofi>Can I ask <i>one</i> thing &amp; then another?', '',
    '00:00:06.000 --> 00:00:07.000', 'Dr. Ines Moreau: Of course.', '',
  ].join('\n');
  const t = await parseText('talk.vtt', vtt);
  assert.deepEqual(t.turns, [
    { speaker: 'Dr. Ines Moreau', text: 'Welcome everyone. Let us begin.', startMs: 1000, endMs: 4000 },
    { speaker: 'Kofi', text: 'Can I ask one thing & then another?', startMs: 4000, endMs: 6000 },
    { speaker: 'Dr. Ines Moreau', text: 'Of course.', startMs: 6000, endMs: 7000 },
  ]);
});

test('VTT rolling auto-captions: each line is kept once', async () => {
  // The YouTube pattern: a cue shows the previous line on top and the new line below with word
  // timings, then a 10 ms cue repeats the new line alone.
  const lines = ['so the first thing we did', 'was measure how long it took', 'and it took far too long', 'so we started over'];
  const out = ['WEBVTT', 'Kind: captions', 'Language: en', ''];
  let t = 0;
  const stamp = (ms: number) => new Date(ms).toISOString().slice(11, 23);
  lines.forEach((line, i) => {
    const words = line.split(' ');
    const timed = words.map((w, k) => (k === 0 ? w : `<${stamp(t + k * 200)}><c> ${w}</c>`)).join('');
    out.push(`${stamp(t)} --> ${stamp(t + 2000)} align:start position:0%`, i === 0 ? timed : `${lines[i - 1]}\n${timed}`, '');
    out.push(`${stamp(t + 2000)} --> ${stamp(t + 2010)} align:start position:0%`, line, '');
    t += 2010;
  });
  const parsed = await parseText('rolling.vtt', out.join('\n'));
  assert.equal(parsed.turns.length, 1);
  // Unpunctuated: the words once each, in order, one pseudo-sentence per line.
  assert.equal(parsed.turns[0]!.text.replace(/\n/g, ' '), lines.join(' '));
  assert.equal(parsed.turns[0]!.startMs, 0);
  assert.equal(parsed.turns[0]!.endMs, t);
});

test('DOCX paragraphs in the Name: layout', async () => {
  const t = await parseText('meeting.docx', await makeDocx(['Minutes of the planning meeting', 'Chair: We start with the budget.', 'Treasurer: The numbers are in the appendix.', 'They balance this year.', 'Chair: Thank you.']));
  assert.deepEqual(t.turns.map((x) => [x.speaker, x.text]), [
    ['Chair', 'We start with the budget.'],
    ['Treasurer', 'The numbers are in the appendix.\nThey balance this year.'],
    ['Chair', 'Thank you.'],
  ]);
  // No label names the mind, so the speaker with the most words is taken.
  const who = attributeSpeaker(t, { mindName: 'Nobody Known' });
  assert.deepEqual([who.mindLabel, who.attribution], ['Treasurer', 'inferred']);
});
