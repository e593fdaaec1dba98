/**
 * The 50-item IPIP Big-Five Factor Markers and their scoring: the item file against the published
 * key (hand-checked counts and items), scoring through the key with reverse-keyed items, the
 * abstention rules, and reading answers out of whatever a model returns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkInstrument,
  ipipBfm50,
  notAdministeredRows,
  parseAnswers,
  questionnaireRows,
  scoreQuestionnaire,
  type Instrument,
  type ItemAnswer,
} from '../../../src/lib/analysis/questionnaire.ts';

const inst = ipipBfm50();
const all = inst.items.map((i) => i.n);
const answered = (n: number, value: number, excerpt: number | null = null): ItemAnswer => ({ n, status: 'answered', value, excerpt });
const byName = (scores: ReturnType<typeof scoreQuestionnaire>, name: string) => scores.find((s) => s.factor.reportedAs === name)!;

test('the item file is the published 50-item key: 10 items per factor, the published mix of + and − keys', () => {
  assert.equal(inst.id, 'ipip-bfm-50');
  assert.equal(inst.items.length, 50);
  // Counts of + / − keyed items per factor in Goldberg's key (ipip.ori.org): I 5/5, II 6/4, III 6/4, IV 2/8, V 7/3.
  const expected: Record<string, [number, number]> = { I: [5, 5], II: [6, 4], III: [6, 4], IV: [2, 8], V: [7, 3] };
  for (const [code, [plus, minus]] of Object.entries(expected)) {
    const items = inst.items.filter((i) => i.factor === code);
    assert.equal(items.length, 10, code);
    assert.equal(items.filter((i) => i.key === '+').length, plus, `${code} + keyed`);
    assert.equal(items.filter((i) => i.key === '-').length, minus, `${code} − keyed`);
  }
  // The administration order cycles I, II, III, IV, V.
  inst.items.forEach((i, k) => assert.equal(i.factor, ['I', 'II', 'III', 'IV', 'V'][k % 5], `item ${i.n}`));
  const spot: [number, string, string][] = [
    [1, '+', 'Am the life of the party.'],
    [2, '-', 'Feel little concern for others.'],
    [4, '-', 'Get stressed out easily.'],
    [9, '+', 'Am relaxed most of the time.'],
    [10, '-', 'Have difficulty understanding abstract ideas.'],
    [19, '+', 'Seldom feel blue.'],
    [38, '-', 'Shirk my duties.'],
    [42, '+', "Feel others' emotions."],
    [48, '+', 'Am exacting in my work.'],
    [50, '+', 'Am full of ideas.'],
  ];
  for (const [n, key, text] of spot) assert.deepEqual([inst.items[n - 1]!.key, inst.items[n - 1]!.text], [key, text], `item ${n}`);
  assert.deepEqual(
    inst.factors.map((f) => [f.label, f.reportedAs, f.reflected]),
    [
      ['Extraversion', 'extraversion', false],
      ['Agreeableness', 'agreeableness', false],
      ['Conscientiousness', 'conscientiousness', false],
      ['Emotional Stability', 'neuroticism', true],
      ['Intellect/Imagination', 'openness', false],
    ],
  );
});

test('a malformed instrument is refused', () => {
  const broken = (change: (i: Instrument) => void) => {
    const copy = structuredClone(inst);
    change(copy);
    return () => checkInstrument(copy);
  };
  assert.throws(broken((i) => (i.items[3]!.n = 7)), /item 4 is numbered 7/);
  assert.throws(broken((i) => (i.items[0]!.key = '?' as '+')), /key/);
  assert.throws(broken((i) => (i.items[0]!.factor = 'VI')), /unknown factor/);
  assert.throws(broken((i) => i.items.forEach((x) => x.factor === 'IV' && (x.key = '-'))), /factor IV needs items of both keys/);
});

test('scoring follows the key: answering "Very Accurate" to everything is not a high score everywhere', () => {
  // Hand-checked: E (5 +, 5 −) → (25 + 5) / 10 = 3.0 → 0.5; A and C (6 +, 4 −) → 3.4 → 0.6;
  // Emotional Stability (2 +, 8 −) → 1.8, neuroticism = 6 − 1.8 = 4.2 → 0.8; Intellect (7 +, 3 −) → 3.8 → 0.7.
  const scores = scoreQuestionnaire(inst, all.map((n) => answered(n, 5)));
  assert.deepEqual(
    scores.map((s) => [s.factor.reportedAs, s.score, s.publishedMean]),
    [
      ['extraversion', 0.5, 3],
      ['agreeableness', 0.6, 3.4],
      ['conscientiousness', 0.6, 3.4],
      ['neuroticism', 0.8, 1.8],
      ['openness', 0.7, 3.8],
    ],
  );
});

test('a keyed pattern scores at the ends of the scale; reverse-keyed items count 6 − x', () => {
  // An extravert who is calm: + keyed E items 5, − keyed E items 1; Emotional Stability + items 5, − items 1.
  const answers = inst.items.map((i) => (i.factor === 'I' || i.factor === 'IV' ? answered(i.n, i.key === '+' ? 5 : 1) : answered(i.n, 3)));
  const scores = scoreQuestionnaire(inst, answers);
  assert.equal(byName(scores, 'extraversion').score, 1);
  assert.equal(byName(scores, 'neuroticism').score, 0, 'calm = Emotional Stability 5 = neuroticism 0');
  assert.equal(byName(scores, 'agreeableness').score, 0.5);
  // One hand-worked mixed factor: Intellect items 5,10,15,20,25,30,35,40,45,50 answered 4,2,5,1,3,2,4,4,5,3.
  const values = [4, 2, 5, 1, 3, 2, 4, 4, 5, 3];
  const mixed = scoreQuestionnaire(inst, [5, 10, 15, 20, 25, 30, 35, 40, 45, 50].map((n, k) => answered(n, values[k]!)));
  // Keyed: 4, 6−2=4, 5, 6−1=5, 3, 6−2=4, 4, 4, 5, 3 → 41 / 10 = 4.1 → (4.1 − 1) / 4 = 0.775.
  assert.equal(byName(mixed, 'openness').publishedMean, 4.1);
  assert.equal(byName(mixed, 'openness').score, 0.775);
  assert.equal(byName(mixed, 'extraversion').score, null, 'unanswered factors abstain');
});

test('a factor abstains with too few answers or answers of one key direction only', () => {
  const seven = [1, 6, 11, 16, 21, 26, 31]; // 4 +, 3 −
  const six = seven.slice(0, 6);
  const base = all.filter((n) => inst.items[n - 1]!.factor !== 'I').map((n) => answered(n, 4));
  const withE = (ns: number[], rest: ItemAnswer[] = []) => scoreQuestionnaire(inst, [...base, ...ns.map((n) => answered(n, 4)), ...rest]);
  const e7 = byName(withE(seven), 'extraversion');
  assert.equal(e7.abstained, null);
  assert.equal(e7.answered, 7);
  const e6 = byName(withE(six, [{ n: 31, status: 'refused' }]), 'extraversion');
  assert.equal(e6.score, null);
  assert.match(e6.abstained!, /only 6 of 10 items answered \(7 needed\)/);
  assert.equal(e6.refused, 1);
  assert.equal(e6.unparseable, 3, 'items never answered count as unparseable');
  // Emotional Stability: all 8 − keyed items answered, neither + keyed one: abstains (acquiescence cannot be told apart).
  const es = scoreQuestionnaire(inst, inst.items.filter((i) => i.factor === 'IV' && i.key === '-').map((i) => answered(i.n, 2)));
  assert.equal(byName(es, 'neuroticism').score, null);
  assert.match(byName(es, 'neuroticism').abstained!, /all keyed the same way/);
});

test('answers are read from the shapes models return', () => {
  const anchors = inst.anchors;
  const asked = [1, 2, 3, 4];
  const statuses = (r: ItemAnswer[]) => r.map((a) => (a.status === 'answered' ? a.value : a.status));
  assert.deepEqual(statuses(parseAnswers({ answers: [{ item: 'Q1', answer: 4 }, { item: 'Q2', answer: null }, { item: 'q3', answer: '2' }, { item: 4, answer: 'moderately accurate' }] }, asked, anchors)), [4, 'refused', 2, 4]);
  assert.deepEqual(statuses(parseAnswers('Sure! ```json\n{"Q1": 5, "Q2": "Very Inaccurate", "Q3": "4 - Moderately Accurate", "Q4": "cannot say"}\n```', asked, anchors)), [5, 1, 4, 'refused']);
  assert.deepEqual(statuses(parseAnswers('[{"id":"#1","rating":1},{"id":"item 2","value":5}]', asked, anchors)), [1, 5, 'unparseable', 'unparseable']);
  // Out of range, fractional, prose, an entry without an answer, an unasked item, and a contradiction.
  const odd = parseAnswers({ answers: [{ item: 'Q1', answer: 6 }, { item: 'Q2', answer: 3.5 }, { item: 'Q3', answer: 'I love parties' }, { item: 'Q4' }, { item: 'Q9', answer: 3 }] }, asked, anchors);
  assert.deepEqual(statuses(odd), ['unparseable', 'unparseable', 'unparseable', 'unparseable']);
  assert.deepEqual(odd.map((a) => (a.status === 'unparseable' ? a.raw : '')), ['6', '3.5', '"I love parties"', 'no answer']);
  const twice = parseAnswers({ answers: [{ item: 'Q1', answer: 2 }, { item: 'Q1', answer: 4 }, { item: 'Q2', answer: 3 }, { item: 'Q2', answer: 3 }] }, [1, 2], anchors);
  assert.deepEqual(twice.map((a) => a.status), ['unparseable', 'answered']);
  const garbage = parseAnswers('I am sorry, I cannot take personality tests.', asked, anchors);
  assert.deepEqual(garbage.map((a) => (a.status === 'unparseable' ? a.raw : a.status)), Array(4).fill('no JSON in the reply'));
  const cited = parseAnswers({ answers: [{ item: 'Q1', answer: 4, excerpt: 2 }, { item: 'Q2', answer: 4, excerpt: 0 }] }, [1, 2], anchors);
  assert.deepEqual(cited.map((a) => (a.status === 'answered' ? a.excerpt : null)), [2, null]);
});

test('rows: one per factor, scores with confidence from completeness and material, cited excerpts as evidence, an auditable note', () => {
  const excerpts = [
    { turnId: 't1', quote: 'I love meeting people.', startMs: 0 },
    { turnId: 't2', quote: 'I plan everything.', startMs: 1000 },
  ];
  const answers = all.map((n) => answered(n, n % 2 ? 4 : 2, inst.items[n - 1]!.factor === 'I' ? 1 : null));
  const rows = questionnaireRows(inst, scoreQuestionnaire(inst, answers), { respondent: 'fake-model role-playing Ada', excerpts, materialWords: 600 });
  assert.deepEqual(rows.map((r) => [r.instrument, r.name]), inst.factors.map((f) => ['ipip-bfm-50', f.reportedAs]));
  const e = rows[0]!;
  // Odd items 4, even 2: E + items are 1,11,21,31,41 (4) and − items 6,16,26,36,46 (2 → 4): mean 4 → 0.75.
  assert.equal(e.score, 0.75);
  assert.equal(e.percentile, null);
  assert.equal(e.confidence, 0.5, '10/10 answered × 600 / (600 + 600)');
  assert.deepEqual(e.evidence, [excerpts[0]]);
  assert.deepEqual(rows[1]!.evidence, []);
  assert.match(e.note!, /not the person's own/);
  assert.match(e.note!, /#6 \(−\) "Don't talk a lot\." 2→4/);
  assert.match(e.note!, /#1 \(\+\) "Am the life of the party\." 4/);
  assert.match(rows[3]!.note!, /Emotional Stability, reported reflected \(6 − mean\) as neuroticism/);
  const none = notAdministeredRows(inst, 'The provider refused.');
  assert.equal(none.length, 5);
  assert.ok(none.every((r) => r.score === null && r.confidence === 0 && /not administered\. The provider refused\./.test(r.note!)));
});
