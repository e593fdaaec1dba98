/**
 * Matching what a user calls a speaker (`--speaker`, the upload's `speaker`, PUT …/speaker) to a
 * file's labels, and recognising an auto-caption track from its first bytes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { attributeSpeaker, isAutoCaptionTrack, matchSpeakerLabel, resolveSpeakerLabel, UnknownSpeakerError } from '../../../src/lib/ingest/index.ts';
import { fixturePath, sharedDataPath, skipUnlessSharedData } from '../../support/shared-data.ts';

/** The first 64 KB of a file as text: what the upload reads to recognise a caption track. */
const head = (file: string) => readFileSync(file).subarray(0, 64 * 1024).toString('utf8');

test('a label is matched ignoring case, accents, punctuation and spacing', () => {
  const labels = ['Jim Lehrer', 'Barack H Obama', 'W. Mitt Romney', 'José Díaz'];
  assert.deepEqual(matchSpeakerLabel(labels, 'jim lehrer'), { label: 'Jim Lehrer' });
  assert.deepEqual(matchSpeakerLabel(labels, '  BARACK  H. OBAMA '), { label: 'Barack H Obama' });
  assert.deepEqual(matchSpeakerLabel(labels, 'w mitt romney'), { label: 'W. Mitt Romney' });
  assert.deepEqual(matchSpeakerLabel(labels, 'jose diaz'), { label: 'José Díaz' });
});

test('a unique prefix names the label; the full name finds a label that is only the first name', () => {
  // The host is "Lenny" in one of the real podcast files and "Lenny Rachitsky" in the others.
  assert.deepEqual(matchSpeakerLabel(['Lenny Rachitsky', 'Jen Abel'], 'Lenny'), { label: 'Lenny Rachitsky' });
  assert.deepEqual(matchSpeakerLabel(['Lenny Rachitsky', 'Jen Abel'], 'len'), { label: 'Lenny Rachitsky' });
  assert.deepEqual(matchSpeakerLabel(['Lenny', 'Bob Moesta'], 'Lenny Rachitsky'), { label: 'Lenny' });
  assert.deepEqual(matchSpeakerLabel(['Lenny', 'Bob Moesta'], 'lenny'), { label: 'Lenny' });
  // A surname, or a titled label, names the person too.
  assert.deepEqual(matchSpeakerLabel(['PRESIDENT OBAMA', 'MR. ROMNEY'], 'Barack Obama'), { label: 'PRESIDENT OBAMA' });
  assert.deepEqual(matchSpeakerLabel(['Jim Lehrer', 'W Mitt Romney'], 'romney'), { label: 'W Mitt Romney' });
});

test('the exact label wins over a longer one it prefixes', () => {
  assert.deepEqual(matchSpeakerLabel(['Lenny', 'Lenny Rachitsky'], 'lenny'), { label: 'Lenny' });
});

test('an ambiguous prefix or name gives the candidates, and no label', () => {
  assert.deepEqual(matchSpeakerLabel(['Speaker 1', 'Speaker 2', 'Host'], 'speaker'), { label: null, candidates: ['Speaker 1', 'Speaker 2'] });
  assert.deepEqual(matchSpeakerLabel(['Barack Obama', 'Michelle Obama'], 'Obama'), { label: null, candidates: ['Barack Obama', 'Michelle Obama'] });
  assert.throws(() => resolveSpeakerLabel(['Speaker 1', 'Speaker 2'], 'Speaker'), (e: unknown) => {
    assert.ok(e instanceof UnknownSpeakerError);
    assert.deepEqual(e.candidates, ['Speaker 1', 'Speaker 2']);
    assert.equal(e.message, 'Speaker "Speaker" could be any of "Speaker 1", "Speaker 2" in this transcript; give the full label');
    return true;
  });
});

test('a name that is not there matches nothing, and another person of the same surname is not them', () => {
  assert.deepEqual(matchSpeakerLabel(['Michelle Obama', 'Jim Lehrer'], 'Barack Obama'), { label: null, candidates: [] });
  assert.deepEqual(matchSpeakerLabel(['Speaker 1', 'Speaker 2'], 'Speaker 3'), { label: null, candidates: [] });
  assert.deepEqual(matchSpeakerLabel(['Ann'], '  '), { label: null, candidates: [] });
  assert.throws(() => resolveSpeakerLabel(['Ann', 'Ben'], 'Zed'), { message: 'No speaker "Zed" in this transcript; the speakers are: Ann, Ben' });
});

test('attribution takes the requested speaker by prefix, and fails an ambiguous one with the candidates', () => {
  const transcript = { turns: [{ speaker: 'Lenny Rachitsky', text: 'Welcome to the show.' }, { speaker: 'Jen Abel', text: 'Thanks for having me, it is great to be here.' }] };
  const r = attributeSpeaker(transcript, { mindName: 'Someone Else', requestedSpeaker: 'lenny' });
  assert.equal(r.mindLabel, 'Lenny Rachitsky');
  assert.equal(r.attribution, 'requested');
  const two = { turns: [{ speaker: 'Speaker 1', text: 'Hello.' }, { speaker: 'Speaker 2', text: 'Hi.' }] };
  assert.throws(() => attributeSpeaker(two, { mindName: 'X', requestedSpeaker: 'speaker' }), (e: unknown) => e instanceof UnknownSpeakerError && e.candidates.length === 2);
});

const ASR = ['WEBVTT', 'Kind: captions', 'Language: en', '', '00:01:50.430 --> 00:02:20.620 align:start position:0%', 'gentlemen<00:02:18.230><c> welcome</c><00:02:19.040><c> to</c><00:02:19.340><c> you</c>', '', '00:02:20.620 --> 00:02:24.580', 'start<00:02:20.959><c> the</c><00:02:21.709><c> economy</c>', ''].join('\n');

test('a word-timed caption track with no speaker cue is recognised as auto-captions', () => {
  assert.equal(isAutoCaptionTrack(ASR), true);
  assert.equal(isAutoCaptionTrack(`\uFEFF${ASR}`), true);
});

test('captions that name a speaker, or are not word-timed, are not taken for auto-captions', () => {
  assert.equal(isAutoCaptionTrack(ASR.replace('gentlemen<', '<v Jim Lehrer>gentlemen<')), false, 'a voice span');
  assert.equal(isAutoCaptionTrack(ASR.replace('gentlemen<', '>> gentlemen<')), false, 'a change-of-speaker marker');
  assert.equal(isAutoCaptionTrack(ASR.replace('gentlemen<', 'LEHRER: gentlemen<')), false, 'a Name: prefix');
  assert.equal(isAutoCaptionTrack(ASR.replace(/<\d\d:\d\d:\d\d\.\d{3}>/g, '')), false, 'no word timings: typed captions');
  assert.equal(isAutoCaptionTrack('1\n00:00:01,000 --> 00:00:02,000\nhello<00:00:01.500> there'), false, 'not WebVTT');
});

test('the debate auto-captions are recognised from their first 64 KB; the labelled transcript is not', () => {
  assert.equal(isAutoCaptionTrack(head(fixturePath('transcripts/us-presidential-debates/2012-10-03.vtt'))), true);
  assert.equal(isAutoCaptionTrack(head(fixturePath('transcripts/us-presidential-debates/2012-10-03.said.txt'))), false);
});

test('every debate auto-caption track of the real data is recognised', skipUnlessSharedData, () => {
  for (const date of ['2012-10-03', '2012-10-16', '2012-10-22', '2016-09-26', '2016-10-09', '2016-10-19']) {
    assert.equal(isAutoCaptionTrack(head(sharedDataPath(`transcripts/us-presidential-debates/${date}.vtt`))), true, date);
  }
});
