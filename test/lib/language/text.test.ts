import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentStems, describeFeeling, feelingOf, sentences, spokenSentences, streamPieces, words } from '../../../src/engines/extractive/index.ts';
import { asksSomething, isQuestion } from '../../../src/lib/language/text.ts';

test('sentences are exact spans, and abbreviations or initials do not end them', () => {
  const text = 'Mr. Romney met George W. Bush in the U.S. Senate.  Really? Yes! It was 3.5 percent… then more';
  const spans = sentences(text);
  assert.deepEqual(
    spans.map((s) => s.text),
    ['Mr. Romney met George W. Bush in the U.S. Senate.', 'Really?', 'Yes!', 'It was 3.5 percent…', 'then more'],
  );
  for (const s of spans) assert.equal(text.slice(s.start, s.end), s.text);
});

test('a turn without punctuation (auto-captions) is read in its pseudo-sentences: its lines, long ones cut again', () => {
  const punctuated = 'We cut taxes. It worked! Did it? Yes.';
  assert.deepEqual(spokenSentences(punctuated), sentences(punctuated));
  const long = 'and what i want to do is continue the tax rates the tax cuts that we put into place for small businesses and families but i have said that for incomes over 250,000 a year';
  const caption = `let's just stay on taxes for a moment\nwell virtually everything he just said about my tax plan is inaccurate\n${long}`;
  const spans = spokenSentences(caption);
  assert.equal(sentences(caption).length, 1, 'no . ! ?: one "sentence" of 60 words by punctuation');
  assert.deepEqual(spans.slice(0, 2).map((s) => s.text), ["let's just stay on taxes for a moment", 'well virtually everything he just said about my tax plan is inaccurate']);
  assert.ok(spans.length >= 4, 'the 36-word line is cut again');
  for (const s of spans) {
    assert.equal(caption.slice(s.start, s.end), s.text);
    assert.ok(!s.text.includes('\n') && words(s.text).length <= 30, s.text);
  }
});

test('questions without a question mark: a caption line opened by a question word and an auxiliary, or "do you"', () => {
  for (const q of ['how would you go about creating jobs', 'and what are the differences between the two of you', 'now do you think in some places', 'which plan do you support', 'Really?']) assert.ok(isQuestion(q), q);
  for (const q of ["what i've said is i won't put in place a tax cut", 'how we got here matters', 'when i was governor we balanced the budget', 'What we need is jobs.']) assert.ok(!isQuestion(q), q);
  assert.ok(asksSomething('thank you both\nnow do you think you have a difference with your views'));
  assert.ok(!asksSomething('thank you both\nwe will come back to that in a minute'));
  assert.ok(asksSomething('Any thoughts?') && !asksSomething('Do you think so. I do.'), 'punctuated text asks with "?" only');
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

test('words that name Object methods ("constructor", "toString") carry no feeling, not NaN', () => {
  const f = feelingOf('The constructor said toString and valueOf, then hasOwnProperty.');
  assert.equal(f.valence, 0);
  assert.equal(f.ratedWords, 0);
  const mixed = feelingOf('A good constructor.');
  assert.ok(Number.isFinite(mixed.valence) && mixed.valence > 0);
  assert.match(describeFeeling(f), /^[A-Z]/);
});
