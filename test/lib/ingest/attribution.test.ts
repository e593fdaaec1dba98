import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attributeSpeaker, countWords, UnknownSpeakerError, type Transcript } from '../../../src/lib/ingest/index.ts';

const transcript = (...turns: [string, string][]): Transcript => ({ turns: turns.map(([speaker, text]) => ({ speaker, text })) });

test('countWords counts words, not punctuation; contractions and hyphenated words are one word', () => {
  assert.equal(countWords(''), 0);
  assert.equal(countWords(' -- ... ! '), 0);
  assert.equal(countWords("I don't think so -- well-known facts, 2024."), 7);
  assert.equal(countWords('Ça va? Très bien, merci.'), 5);
  assert.equal(countWords('line one\nline two'), 4);
});

test('the mind is found by full name, first name, last name, titles and initials ignored', () => {
  const debate = transcript(['Jim Lehrer', 'Welcome.'], ['Barack H Obama', 'Thank you, Jim.'], ['W Mitt Romney', 'Thank you.']);
  assert.equal(attributeSpeaker(debate, { mindName: 'Barack Obama' }).mindLabel, 'Barack H Obama');
  assert.equal(attributeSpeaker(debate, { mindName: 'Mitt Romney' }).mindLabel, 'W Mitt Romney');
  const caps = transcript(['PRESIDENT OBAMA', 'Four more years.'], ['MODERATOR', 'Time.']);
  assert.equal(attributeSpeaker(caps, { mindName: 'Barack Obama' }).mindLabel, 'PRESIDENT OBAMA');
  const podcast = transcript(['Lex Fridman', 'Hello.'], ['HUBERMAN', 'Hi.']);
  const r = attributeSpeaker(podcast, { mindName: 'Andrew Huberman' });
  assert.deepEqual([r.mindLabel, r.attribution], ['HUBERMAN', 'name']);
  assert.equal(attributeSpeaker(transcript(['Andrew Huberman', 'x'], ['Lex Fridman', 'y']), { mindName: 'Andrew Huberman' }).mindLabel, 'Andrew Huberman');
  assert.equal(attributeSpeaker(transcript(['Lenny', 'x'], ['Bob Moesta', 'y']), { mindName: 'Lenny Rachitsky' }).mindLabel, 'Lenny');
});

test('name matching ignores case and accents, and does not confuse people who share a name', () => {
  assert.equal(attributeSpeaker(transcript(['Interviewer', 'q'], ['José Martí', 'a']), { mindName: 'jose marti' }).mindLabel, 'José Martí');
  assert.equal(attributeSpeaker(transcript(['ZOË KRAVITZ', 'a'], ['Host', 'q']), { mindName: 'Zoe Kravitz' }).mindLabel, 'ZOË KRAVITZ');
  // Michelle Obama is not Barack Obama; with no label naming him, the biggest talker is taken.
  const r = attributeSpeaker(transcript(['Michelle Obama', 'A short answer.'], ['Host', 'A much longer question than the answer was.']), { mindName: 'Barack Obama' });
  assert.deepEqual([r.mindLabel, r.attribution], ['Host', 'inferred']);
  // When both a full-name label and a surname-only label exist, the full name wins.
  assert.equal(attributeSpeaker(transcript(['OBAMA', 'a'], ['Barack Obama', 'b']), { mindName: 'Barack Obama' }).mindLabel, 'Barack Obama');
});

test('a requested speaker is matched ignoring case and spacing; an unknown one lists the labels', () => {
  const t = transcript(['Speaker 1', 'Hello there.'], ['Speaker 2', 'Hi! How are you doing today?'], ['Speaker 1', 'Fine.']);
  const r = attributeSpeaker(t, { mindName: 'Anyone', requestedSpeaker: '  speaker   1 ' });
  assert.deepEqual([r.mindLabel, r.attribution], ['Speaker 1', 'requested']);
  assert.deepEqual(r.speakers, [
    { label: 'Speaker 1', turns: 2, words: 3, isMind: true },
    { label: 'Speaker 2', turns: 1, words: 6, isMind: false },
  ]);
  assert.throws(() => attributeSpeaker(t, { mindName: 'Anyone', requestedSpeaker: 'Speaker 3' }), (err: unknown) => {
    assert.ok(err instanceof UnknownSpeakerError);
    assert.deepEqual(err.labels, ['Speaker 1', 'Speaker 2']);
    return true;
  });
  // A null or blank request falls back to the name, then to the most words.
  const inferred = attributeSpeaker(t, { mindName: 'Anyone', requestedSpeaker: null });
  assert.deepEqual([inferred.mindLabel, inferred.attribution], ['Speaker 2', 'inferred']);
  assert.equal(inferred.speakers.filter((s) => s.isMind).length, 1);
});
