/**
 * Caption files in the wild: broken WebVTT headers are still read as cues (never as text whose
 * timing lines become speech), and `Name:` prefixes at the start of a cue name the speaker even
 * when each name occurs once.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeParserPool, parseTranscriptFile, sniffFile, type Transcript } from '../../src/ingest/index.ts';
import { dataPath, tempDir } from './helpers.ts';

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
  const edge = (name: string) => dataPath(`vtt-edge/mozilla-vtt.js/tests/file-layout/${name}`);
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
