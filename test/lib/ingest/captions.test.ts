/**
 * Caption files in the wild: broken WebVTT headers are still read as cues (never as text whose
 * timing lines become speech), and `Name:` prefixes at the start of a cue name the speaker even
 * when each name occurs once.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { sniffFile, type Transcript } from '../../../src/lib/ingest/index.ts';
import { closeParserPool, parseTranscriptFile } from '../../../src/features/snapshots/pool.ts';
import { cueTextSegments } from '../../../src/lib/ingest/caption-cues.ts';
import { fixturePath, srtOf, tempDir } from './helpers.ts';

const tmp = tempDir('captions');
after(async () => {
  await closeParserPool();
  tmp.cleanup();
});

async function read(path: string): Promise<{ kind: string | null; transcript: Transcript }> {
  const kind = await sniffFile(path);
  assert.ok(kind, `${path} is recognised`);
  return { kind, transcript: await parseTranscriptFile(path, kind) };
}
const file = (name: string, content: string) => tmp.file(name, content);
const turns = (t: Transcript) => t.turns.map(({ speaker, text }) => ({ speaker, text }));

test('WebVTT with a broken header is read as captions: the cue text is speech, the header and timings are not', async () => {
  const edge = (name: string) => fixturePath(`vtt-edge/generated/file-layout/${name}`);
  const newline = await read(edge('newline-before-webvtt.vtt'));
  assert.equal(newline.kind, 'vtt');
  assert.deepEqual(turns(newline.transcript), [{ speaker: 'Speaker', text: 'text' }]);
  assert.equal(newline.transcript.turns[0]!.startMs, 0);

  const double = await read(edge('bad-double-webvtt.vtt')); // "WEBvtt" then "WEBVTT", and a "--->" arrow
  assert.equal(double.kind, 'vtt');
  assert.deepEqual(turns(double.transcript), [{ speaker: 'Speaker', text: 'some text' }]);
  assert.deepEqual([double.transcript.turns[0]!.startMs, double.transcript.turns[0]!.endMs], [1000, 2000]);

  // No timing lines at all: a three-word text file, which is what it is.
  const garbage = await read(edge('garbage-signature.vtt'));
  assert.equal(garbage.kind, 'txt');
  assert.deepEqual(turns(garbage.transcript), [{ speaker: 'Speaker', text: 'garbage vtt file' }]);

  const junkFirst = await read(file('junk.vtt', 'Exported by CaptionTool 2.1\nWEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Ann>Hello there.\n\n00:00:03.000 --> 00:00:05.000\n<v Ben>Hi Ann.\n'));
  assert.equal(junkFirst.kind, 'vtt');
  assert.deepEqual(turns(junkFirst.transcript), [{ speaker: 'Ann', text: 'Hello there.' }, { speaker: 'Ben', text: 'Hi Ann.' }]);

  const lower = await read(file('lower.vtt', 'webvtt\n\n00:01.000 --> 00:02.000\nlower-case signature\n'));
  assert.equal(lower.kind, 'vtt');
  assert.deepEqual(turns(lower.transcript), [{ speaker: 'Speaker', text: 'lower-case signature' }]);
});

test('an SRT without its counters, and captions with timings lacking milliseconds, are cues', async () => {
  const srt = await read(file('nocounter.srt', '00:00:01,000 --> 00:00:02,000\nFirst line.\n\n00:00:02,500 --> 00:00:04,000\nSecond line.\n'));
  assert.equal(srt.kind, 'srt');
  assert.deepEqual(turns(srt.transcript), [{ speaker: 'Speaker', text: 'First line. Second line.' }]);
  const coarse = await read(file('coarse.vtt', '\n\nWEBVTT\n\n00:00:01 --> 00:00:02\nNo milliseconds.\n'));
  assert.equal(coarse.kind, 'vtt');
  assert.equal(coarse.transcript.turns[0]!.endMs, 2000);
});

test('a timing line inside a text transcript is never speech; prose arrows stay', async () => {
  const lines = ['Ann: We shipped it.', 'Ben: When?', 'Ann: Last week, after the review. Plan A --> plan B worked.'];
  for (let i = 0; i < 30; i++) lines.push(i % 2 ? `Ben: Question ${i}?` : `Ann: Answer ${i}.`);
  lines.splice(2, 0, '00:00:05.000 --> 00:00:09.000');
  const { kind, transcript } = await read(file('pasted.txt', lines.join('\n')));
  assert.equal(kind, 'txt', 'one timing line among many lines of text does not make captions');
  assert.ok(transcript.turns.every((t) => !/\d\d:\d\d\.\d{3} -->/.test(t.text)));
  assert.match(transcript.turns[2]!.text, /Plan A --> plan B worked/);
});

test('a Name: prefix at the start of a cue names the speaker even when it occurs once', async () => {
  const srt = await read(file('three.srt', '1\n00:00:01,000 --> 00:00:02,000\nALICE: Hello there.\n\n2\n00:00:02,000 --> 00:00:03,000\nStill me.\n\n3\n00:00:03,000 --> 00:00:04,000\nBOB: Hi Alice.\n'));
  assert.deepEqual(turns(srt.transcript), [{ speaker: 'ALICE', text: 'Hello there. Still me.' }, { speaker: 'BOB', text: 'Hi Alice.' }]);

  const vtt = await read(file('titled.vtt', 'WEBVTT\n\n00:01.000 --> 00:02.000\nDr. Smith: Take this twice a day.\n\n00:02.000 --> 00:04.000\nMary Jane Watson: Thank you, doctor.\n\n00:04.000 --> 00:05.000\n- Nurse: Next patient!\n'));
  assert.deepEqual(turns(vtt.transcript), [
    { speaker: 'Dr. Smith', text: 'Take this twice a day.' },
    { speaker: 'Mary Jane Watson', text: 'Thank you, doctor.' },
    { speaker: 'Nurse', text: 'Next patient!' },
  ]);

  // Not speakers: prose prefixes, a prefix in the middle of a cue, and clause-like prefixes.
  const prose = await read(file('prose.vtt', 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ann>Note: the road is closed.\n\n00:02.000 --> 00:03.000\nAnd then\nBob: said nothing.\n\n00:03.000 --> 00:04.000\nSo the answer is: no.\n'));
  assert.deepEqual(turns(prose.transcript), [{ speaker: 'Ann', text: 'Note: the road is closed. And then Bob: said nothing. So the answer is: no.' }]);
});

// ─── captions without speaker names: bounded turns ───────────────────────────────────────────

const stamp = (ms: number): string => new Date(ms).toISOString().slice(11, 23);
const countOf = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * A YouTube-style auto-caption track: lower case, no punctuation, no speakers, cues of seven words
 * that tile the timeline (each ends where the next starts), every word but a cue's first timed
 * inline (`<00:00:01.300><c> word</c>`).
 */
function autoCaptions(words: { text: string; at: number }[]): string {
  const out = ['WEBVTT', 'Kind: captions', 'Language: en', ''];
  for (let k = 0; k < words.length; k += 7) {
    const cue = words.slice(k, k + 7);
    const end = words[k + 7]?.at ?? cue[cue.length - 1]!.at + 500;
    out.push(`${stamp(cue[0]!.at)} --> ${stamp(end)} align:start position:0%`, cue.map((w, i) => (i === 0 ? w.text : `<${stamp(w.at)}><c> ${w.text}</c>`)).join(''), '');
  }
  return out.join('\n');
}

const SENTENCES = [
  'we have to invest in education and training for young people',
  'but we also need to bring down the deficit in a balanced way',
  'so my plan cuts taxes for small businesses and middle class families',
  'i believe that the economy grows from the middle out',
  'now the governor has a different view of the tax code',
  'and that view would hurt working families across the country',
];
/** About `n` words of speech, in whole sentences. */
const speech = (n: number, from = 0): string[] => {
  const out: string[] = [];
  for (let k = from; out.length < n; k++) out.push(...SENTENCES[k % SENTENCES.length]!.split(' '));
  return out;
};

test('auto-captions without speakers: turns of at most 200 words, cut at a long pause, each timed from its first word', async () => {
  // Three stretches of speech, 300 ms a word, with 3 s of silence between them.
  const stretches = [speech(150), speech(260, 2), speech(40, 4)];
  const timed: { text: string; at: number }[] = [];
  const stretchStarts: number[] = [];
  let at = 5_000;
  for (const s of stretches) {
    stretchStarts.push(at);
    for (const w of s) {
      timed.push({ text: w, at });
      at += 300;
    }
    at += 3_000;
  }
  const { transcript: t } = await read(file('auto.vtt', autoCaptions(timed)));
  assert.equal(t.unlabelled, true);
  assert.ok(t.turns.every((x) => x.speaker === 'Speaker'));
  // Every word once, in order; the pseudo-sentences are lines of the turn text.
  assert.deepEqual(t.turns.flatMap((x) => x.text.split(/\s+/)), timed.map((w) => w.text));
  for (const turn of t.turns) {
    assert.ok(countOf(turn.text) <= 200, `${countOf(turn.text)} words`);
    for (const line of turn.text.split('\n')) assert.ok(countOf(line) <= 30, `a line of ${countOf(line)} words`);
  }
  // A stretch after a pause starts a turn of its own, timed from its first word.
  for (const start of stretchStarts.slice(1)) assert.ok(t.turns.some((x) => x.startMs === start), `a turn starts at ${start} ms`);
  // Each turn starts at its first word's time and ends before the next begins.
  let word = 0;
  t.turns.forEach((turn, i) => {
    assert.equal(turn.startMs, timed[word]!.at, `turn ${i} starts with its first word`);
    word += countOf(turn.text);
    assert.ok(turn.endMs! > turn.startMs!);
    if (i > 0) assert.ok(turn.startMs! >= t.turns[i - 1]!.endMs!, `turn ${i} starts after turn ${i - 1} ends`);
  });
  // 450 words: not one turn, not forty.
  assert.ok(t.turns.length >= 4 && t.turns.length <= 8, `${t.turns.length} turns`);
});

test('unlabelled punctuated captions: a pause of 2 s starts a new turn once the turn has 20 words; shorter gaps merge', async () => {
  const srt = srtOf([
    ['00:00:01,000', '00:00:04,000', 'We started the project in March. It took a long time.'],
    ['00:00:06,500', '00:00:09,000', 'Then the funding came through.'],
    ['00:00:09,200', '00:00:12,000', 'We hired four engineers and built the first version.'],
    ['00:00:15,000', '00:00:17,000', 'The second year was different.'],
  ]);
  const { transcript: t } = await read(file('pauses.srt', srt));
  assert.deepEqual(t.turns, [
    // The 2.5 s gap after 11 words is not a turn: too little said yet.
    { speaker: 'Speaker', text: 'We started the project in March. It took a long time. Then the funding came through. We hired four engineers and built the first version.', startMs: 1000, endMs: 12000 },
    { speaker: 'Speaker', text: 'The second year was different.', startMs: 15000, endMs: 17000 },
  ]);
  assert.equal(t.unlabelled, true);
});

test('a labelled turn over 400 words is cut into near-equal parts at sentence ends, each timed from its cue', async () => {
  const sentence = (i: number) => `Sentence ${i} says ${'something quite long about the plan '.repeat(4).trim()} and then it ends here.`;
  const cues = ['WEBVTT', ''];
  for (let i = 0; i < 30; i++) cues.push(`${stamp(i * 10_000)} --> ${stamp(i * 10_000 + 9_000)}`, `<v Ann>${sentence(i)}`, '');
  cues.push(`${stamp(300_000)} --> ${stamp(302_000)}`, '<v Ben>Thank you, Ann.', '');
  const { transcript: t } = await read(file('monologue.vtt', cues.join('\n')));
  assert.equal(t.unlabelled, undefined);
  assert.deepEqual(t.turns.map((x) => x.speaker), ['Ann', 'Ann', 'Ann', 'Ben']);
  const words = countOf(sentence(0));
  assert.deepEqual(t.turns.slice(0, 3).map((x) => countOf(x.text)), [10 * words, 10 * words, 10 * words]);
  assert.deepEqual(t.turns.map((x) => [x.startMs, x.endMs]), [[0, 99_000], [100_000, 199_000], [200_000, 299_000], [300_000, 302_000]]);
  // The later parts continue the first: Ann did not stop speaking.
  assert.deepEqual(t.turns.map((x) => x.continues ?? false), [false, true, true, false]);
  assert.ok(t.turns[1]!.text.startsWith('Sentence 10 says'));
});

test('inline word timestamps time each word, a word split by a tag once', () => {
  const [seg] = cueTextSegments('gentle<00:00:01.400><c>men</c><00:00:02.000><c> welcome</c><00:00:02.500><c> &amp; hello</c>', 1_000);
  assert.deepEqual(seg, { text: 'gentlemen welcome & hello', times: [1_000, 2_000, 2_500, 2_500] });
  // Without inline timestamps there are no word times (the cue's own times are the turn's).
  assert.deepEqual(cueTextSegments('plain text', 1_000), [{ text: 'plain text' }]);
});

test('rolling auto-captions: the repeated lines are dropped and the kept words keep their times, so a pause still cuts', async () => {
  // Each sentence on two lines; 3 s of silence before the fourth sentence (37 words in).
  const lines = SENTENCES.flatMap((s) => {
    const w = s.split(' ');
    return [w.slice(0, 6).join(' '), w.slice(6).join(' ')];
  });
  const out = ['WEBVTT', 'Kind: captions', 'Language: en', ''];
  let t = 0;
  const starts: number[] = [];
  lines.forEach((line, i) => {
    if (i === 6) t += 3_000;
    starts.push(t);
    const words = line.split(' ');
    const timed = words.map((w, k) => (k === 0 ? w : `<${stamp(t + k * 200)}><c> ${w}</c>`)).join('');
    out.push(`${stamp(t)} --> ${stamp(t + 2000)} align:start position:0%`, i === 0 ? timed : `${lines[i - 1]}\n${timed}`, '');
    out.push(`${stamp(t + 2000)} --> ${stamp(t + 2010)} align:start position:0%`, line, '');
    t += 2010;
  });
  const { transcript } = await read(file('rolling-pause.vtt', out.join('\n')));
  assert.equal(transcript.turns.flatMap((x) => x.text.split(/\s+/)).join(' '), lines.join(' '), 'every word once');
  assert.deepEqual(transcript.turns.map((x) => x.startMs), [0, starts[6]]);
});
