import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns, type AnalysisTurn, type FindingResult } from '../../src/analysis/index.ts';
import { debate, transcriptTurns } from './transcripts.ts';

/** Findings of one sentence said by the mind (with an interviewer turn before it as context). */
function findingsOf(sentence: string): FindingResult[] {
  const turns: AnalysisTurn[] = [
    { turnId: 'q', speaker: 'Host', text: 'What do you make of it?', startMs: 0, isMind: false },
    { turnId: 'a', speaker: 'Guest', text: sentence, startMs: 1000, isMind: true },
  ];
  return analyseTurns(turns).findings;
}

function only(sentence: string): FindingResult {
  const f = findingsOf(sentence);
  assert.equal(f.length, 1, `expected one finding from "${sentence}", got ${JSON.stringify(f)}`);
  return f[0]!;
}

test('"I don\'t think…" is a negated belief', () => {
  const f = only("I don't think the plan will ever work.");
  assert.equal(f.kind, 'belief');
  assert.equal(f.polarity, 'negative');
  assert.match(f.statement, /^Does not think that the plan will ever work/);
  assert.equal(f.quote, "I don't think the plan will ever work.");
  assert.equal(f.turnId, 'a');
  assert.equal(f.startMs, 1000);
});

test('"I\'d never…" is a value held against something', () => {
  const f = only("Honestly, I'd never cheat on my taxes.");
  assert.equal(f.kind, 'value');
  assert.equal(f.polarity, 'negative');
  assert.match(f.statement, /^Would never cheat on their taxes/);
});

test('"maybe I…" is kept but hedged: lower confidence than the plain statement', () => {
  const hedged = only('Maybe I want to write a book about the jungle.');
  const plain = only('I want to write a book about the jungle.');
  assert.equal(hedged.kind, 'goal');
  assert.match(hedged.statement, /^Maybe: Wants to write a book about the jungle/);
  assert.ok(hedged.confidence < plain.confidence, `${hedged.confidence} !< ${plain.confidence}`);
  const caveat = only('I could be wrong, but I think the odds of that are quite low.');
  assert.equal(caveat.kind, 'belief');
  assert.ok(caveat.confidence < only('I think the odds of that are quite low.').confidence);
  const should = only('Maybe I should move closer to my family.');
  assert.match(should.statement, /^Maybe: Thinks they should move closer to their family/);
});

test('negated preferences and plans are against, affirmed ones for', () => {
  assert.equal(only("I don't like crowded places at all.").polarity, 'negative');
  assert.equal(only('I love surfing early in the morning.').polarity, 'positive');
  const notGoing = only("I'm not going to raise taxes on the middle class.");
  assert.equal(notGoing.kind, 'goal');
  assert.equal(notGoing.polarity, 'negative');
  assert.match(notGoing.statement, /^Is not going to raise taxes/);
});

test('kinds: experience, habit, fact', () => {
  assert.equal(only('I grew up in a small town in Hawaii.').kind, 'experience');
  const habit = only('I always do the same workout on Mondays.');
  assert.equal(habit.kind, 'habit');
  assert.match(habit.statement, /^Always does the same workout/);
  assert.equal(only("I'm a neuroscientist at Stanford.").kind, 'fact');
});

test('questions, conditionals, reported speech and other speakers are not findings', () => {
  assert.deepEqual(findingsOf('Do I think the plan will work?'), []);
  assert.deepEqual(findingsOf('If I think about it long enough, it changes.'), []);
  assert.deepEqual(findingsOf('He told me, "I love this country more than anything."'), []);
  const turns: AnalysisTurn[] = [
    { turnId: 'q', speaker: 'Host', text: "I don't think you believe that at all.", startMs: 0, isMind: false },
    { turnId: 'a', speaker: 'Guest', text: 'Well, it was a long day.', startMs: 1, isMind: true },
  ];
  assert.deepEqual(analyseTurns(turns).findings, []);
});

test('real debate: negated and hedged statements are read as such', async () => {
  const turns = await transcriptTurns(debate('2012-10-03'), 'W Mitt Romney');
  const findings = analyseTurns(turns).findings;
  const negated = findings.filter((f) => /\b(don't|do not|never|not going to|won't)\b/i.test(f.quote.split(/[,;]/)[0] ?? ''));
  assert.ok(negated.length > 0, 'some negated first-person statements are found');
  for (const f of negated) if (/^I (don't|do not) (think|want|like|believe)/.test(f.quote)) assert.equal(f.polarity, 'negative', f.quote);
  // "I don't want to cost jobs" is said by Romney in this debate.
  assert.ok(findings.some((f) => f.polarity === 'negative' && /^Does not want to/.test(f.statement)));
});
