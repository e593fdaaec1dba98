import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns, styleMap, type AnalysisTurn, type PsychometricResult } from '../../../src/lib/analysis/index.ts';

function mind(...texts: string[]): AnalysisTurn[] {
  return texts.map((text, i) => ({ turnId: `m${i}`, speaker: 'Ann', text, startMs: i * 1000, isMind: true }));
}
const row = (rows: PsychometricResult[], instrument: string, name: string): PsychometricResult => {
  const r = rows.find((x) => x.instrument === instrument && x.name === name);
  assert.ok(r, `${instrument}.${name} missing`);
  return r;
};

test('every style measure a simulation engine reads is present', () => {
  const style = styleMap(analyseTurns(mind('I think we should go. Do you agree?')).psychometrics);
  for (const name of ['wordsPerTurn', 'questionRate', 'hedging', 'certainty', 'formality', 'lexicalDiversity', 'readability', 'pronounI', 'pronounWe', 'pronounYou', 'sentiment'])
    assert.equal(typeof style[name], 'number', name);
});

test('words per turn, question rate and pronoun focus follow their definitions', () => {
  const rows = analyseTurns(mind('Why would I do that? I would not.', 'We went home. Did you see us?')).psychometrics;
  assert.equal(row(rows, 'communication_style', 'wordsPerTurn').score, 7.5); // 8 and 7 words
  assert.equal(row(rows, 'communication_style', 'questionRate').score, 0.5);
  const i = row(rows, 'communication_style', 'pronounI').score!;
  const we = row(rows, 'communication_style', 'pronounWe').score!;
  const you = row(rows, 'communication_style', 'pronounYou').score!;
  assert.ok(i > you && we > 0 && you > 0, `I ${i}, we ${we}, you ${you}`);
});

test('hedging and certainty separate a tentative speaker from an assertive one', () => {
  const tentative = analyseTurns(mind('Maybe it could work, I guess. Perhaps we might sort of try it, probably next year.')).psychometrics;
  const assertive = analyseTurns(mind('It will definitely work. We absolutely must do it, and of course it is clearly right.')).psychometrics;
  const h = (rows: PsychometricResult[], name: string): number => row(rows, 'communication_style', name).score!;
  assert.ok(h(tentative, 'hedging') > h(assertive, 'hedging'));
  assert.ok(h(assertive, 'certainty') > h(tentative, 'certainty'));
});

test('sentiment reads negation; readability prefers short plain sentences', () => {
  const happy = analyseTurns(mind('I love this. It is a wonderful, happy day.')).psychometrics;
  const negated = analyseTurns(mind('I do not love this. It is not a wonderful or happy day.')).psychometrics;
  assert.ok(row(happy, 'communication_style', 'sentiment').score! > 0);
  assert.ok(row(negated, 'communication_style', 'sentiment').score! < 0);
  const plain = analyseTurns(mind('The dog ran. The cat sat. We had fun.')).psychometrics;
  const dense = analyseTurns(mind('Institutional considerations notwithstanding, comprehensive macroeconomic stabilization necessitates multilateral coordination.')).psychometrics;
  assert.ok(row(plain, 'communication_style', 'readability').score! > row(dense, 'communication_style', 'readability').score!);
  assert.ok(row(dense, 'communication_style', 'formality').score! > row(plain, 'communication_style', 'formality').score!);
});

test('emotions count lexicon words outside negation, with the turns behind them as evidence', () => {
  const rows = analyseTurns(
    mind('I was so happy and full of joy when we won, a real celebration.', 'The plan is fine and the schedule is set for the year.', 'I am not afraid of anything.'),
  ).psychometrics;
  const joy = row(rows, 'emotion', 'joy');
  assert.ok(joy.score! > 0);
  assert.deepEqual(joy.evidence.map((e) => e.turnId), ['m0']);
  assert.equal(row(rows, 'emotion', 'fear').score, 0, 'negated "afraid" is not fear');
  for (const r of rows) {
    assert.ok(r.confidence >= 0 && r.confidence <= 1);
    const lex = rows.find((x) => x.name === 'lexicalDiversity')!;
    assert.ok(lex.score! > 0 && lex.score! <= 1);
  }
});

test('no mind words: measures are null, not zero', () => {
  const r = analyseTurns([{ turnId: 'x', speaker: 'Host', text: 'Hello there, how are you?', startMs: null, isMind: false }]);
  assert.equal(r.mindWords, 0);
  assert.deepEqual(r.keyTopics, []);
  assert.deepEqual(r.findings, []);
  for (const p of r.psychometrics) assert.equal(p.score, null);
});

test('cognitive verbs, hedges and speech acts are not emotions: "I believe…" is not trust', () => {
  const rows = analyseTurns(
    mind("I believe it's true, my friend, and I promise you I'm confident it depends on our plan for the future. I'll wait and expect it tomorrow."),
  ).psychometrics;
  assert.equal(row(rows, 'emotion', 'trust').score, 0);
  assert.equal(row(rows, 'emotion', 'anticipation').score, 0);
  const felt = analyseTurns(mind('I trust him completely and I am so hopeful and eager about what comes next.')).psychometrics;
  assert.ok(row(felt, 'emotion', 'trust').score! > 0);
  assert.ok(row(felt, 'emotion', 'anticipation').score! > 0);
});
