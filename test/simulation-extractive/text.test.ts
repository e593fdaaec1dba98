import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentStems, describeFeeling, feelingOf, sentences, streamPieces, words } from '../../src/simulation/extractive/index.ts';

test('sentences are exact spans, and abbreviations or initials do not end them', () => {
  const text = 'Mr. Romney met George W. Bush in the U.S. Senate.  Really? Yes! It was 3.5 percent… then more';
  const spans = sentences(text);
  assert.deepEqual(
    spans.map((s) => s.text),
    ['Mr. Romney met George W. Bush in the U.S. Senate.', 'Really?', 'Yes!', 'It was 3.5 percent…', 'then more'],
  );
  for (const s of spans) assert.equal(text.slice(s.start, s.end), s.text);
});

test('words fold curly apostrophes and keep contractions whole; content stems drop fillers', () => {
  assert.deepEqual(words('I’m sure Romney’s plan—isn’t it?'), ["i'm", 'sure', "romney's", 'plan', "isn't", 'it']);
  assert.deepEqual(contentStems('Yeah, you know, the taxes and the taxed jobs, like, really'), ['tax', 'tax', 'job']);
});

test('feeling comes from the lexicon, with negation, and names its evidence', () => {
  const happy = feelingOf('I love this, it is wonderful and I am so happy.');
  assert.ok(happy.valence > 1);
  assert.equal(happy.emotions[0]?.emotion, 'joy');
  assert.match(describeFeeling(happy), /^Positive .*"love"/);
  const negated = feelingOf('This is not good.');
  assert.ok(negated.valence < 0, 'not good is negative');
  assert.match(describeFeeling(feelingOf('The table is in the room.')), /^Neutral/);
});

test('stream pieces rebuild the text exactly', () => {
  const text = 'Well,  I think so.\nAnd then - more. ';
  assert.equal(streamPieces(text).join(''), text);
  assert.deepEqual(streamPieces(''), []);
});
