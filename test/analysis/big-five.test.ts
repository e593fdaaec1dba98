import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyseTurns, type AnalysisTurn, type PsychometricResult } from '../../src/analysis/index.ts';
import { loadBigFiveModel, percentileOf, scoreBigFive, traitLogit } from '../../src/analysis/big-five.ts';
import { prepareTurns } from '../../src/analysis/prepare.ts';
import { countTokens } from '../../src/analysis/features.ts';
import { tokenize } from '../../src/analysis/nlp.ts';
import { stratifiedFolds, fitLogistic, logit } from '../../src/analysis/train/logistic.ts';
import { characterLines, parseCsv, readEssays, readFriends, TRAITS, type Trait } from '../../src/analysis/train/personality-data.ts';
import { debate, fixtureDebate, lenny, lex, transcriptTurns } from './transcripts.ts';
import { SHARED_DATA_URL, skipUnlessSharedData } from '../support/shared-data.ts';

const PERSONALITY = new URL('personality/', SHARED_DATA_URL);

/** The first `n` words of Barack Obama's turns in the 2012 debate excerpts (test/fixtures), as one mind turn. */
async function mindSaying(n: number): Promise<AnalysisTurn[]> {
  const turns = (await Promise.all(['2012-10-03', '2012-10-16', '2012-10-22'].map((d) => transcriptTurns(fixtureDebate(d), 'Barack H Obama')))).flat();
  const words = turns
    .filter((t) => t.isMind)
    .flatMap((t) => t.text.split(/\s+/))
    .slice(0, n);
  assert.equal(words.length, n, 'enough words');
  return [{ turnId: 't0', speaker: 'Barack H Obama', text: words.join(' '), startMs: 0, isMind: true }];
}

const bigFive = (rows: PsychometricResult[]): PsychometricResult[] => rows.filter((r) => r.instrument === 'big_five');

test('under 100 words: no trait scores, and the note says why', async () => {
  const rows = bigFive(analyseTurns(await mindSaying(60)).psychometrics);
  assert.deepEqual(rows.map((r) => r.name), [...TRAITS]);
  for (const r of rows) {
    assert.equal(r.score, null);
    assert.equal(r.percentile, null);
    assert.match(r.note ?? '', /100 are needed/);
  }
});

test('under 600 words: scored but flagged low confidence; confidence grows with words', async () => {
  const small = bigFive(analyseTurns(await mindSaying(300)).psychometrics);
  const large = bigFive(analyseTurns(await mindSaying(5000)).psychometrics);
  for (const r of small) {
    assert.ok(r.score !== null && r.score > 0 && r.score < 1);
    assert.match(r.note ?? '', /^Low confidence/);
  }
  for (let i = 0; i < small.length; i++) {
    assert.ok(large[i]!.confidence > small[i]!.confidence);
    assert.doesNotMatch(large[i]!.note ?? '', /Low confidence/);
  }
});

test('the committed model still ranks its training texts by their labels', skipUnlessSharedData, () => {
  // Catches feature code changed without retraining: in-sample, texts labelled high must score higher.
  const model = loadBigFiveModel();
  const texts = [...readEssays(new URL('essays-train.csv', PERSONALITY)), ...readFriends(new URL('friends-train.csv', PERSONALITY))];
  const counts = texts.map((t) => countTokens(tokenize(t.text)));
  for (const trait of TRAITS) {
    const z = counts.map((c) => traitLogit(model.traits[trait], c));
    const mean = (label: number): number => {
      const idx = texts.map((t, i) => (t.labels[trait] === label ? i : -1)).filter((i) => i >= 0);
      return idx.reduce((s, i) => s + z[i]!, 0) / idx.length;
    };
    assert.ok(mean(1) > mean(0), `${trait}: high-labelled texts score ${mean(1)} vs low ${mean(0)}`);
  }
  // Cross-validated accuracy is recorded per data set, and is at least chance.
  assert.deepEqual(model.crossValidation.map((c) => c.dataset), ['essays', 'friends']);
  for (const cv of model.crossValidation) assert.ok(cv.mean > 0.5, `${cv.dataset}: ${cv.mean}`);
});

test('personality data: both files parse; Friends keeps only the labelled character', skipUnlessSharedData, () => {
  const essays = readEssays(new URL('essays-train.csv', PERSONALITY));
  const friends = readFriends(new URL('friends-train.csv', PERSONALITY));
  assert.equal(essays.length, 346);
  assert.equal(friends.length, 498);
  const [header, first] = parseCsv(readFileSync(new URL('friends-train.csv', PERSONALITY), 'utf8'));
  assert.ok(header && first);
  const html = first[header.indexOf('text')]!;
  const lines = characterLines(html, first[header.indexOf('character')]!);
  // The first scene is labelled for Phoebe: her lines only, and Chandler's "Peter Parker." is not among them.
  assert.ok(lines.includes('This is everybody. This is Ross.'));
  assert.ok(!lines.some((l) => l.includes('Peter Parker')));
  assert.ok(!lines.some((l) => l.includes('(entering)')));
});

test('percentiles are monotonic in the value and bounded; the median norm speaker is the 50th percentile', () => {
  const model = loadBigFiveModel();
  for (const trait of TRAITS) {
    const norm = model.traits[trait].norm;
    assert.equal(norm.length, model.normCorpus.speeches.length);
    assert.ok(norm.length >= 30, `${norm.length} norm speeches`);
    let last = -1;
    for (let z = -2; z <= 2; z += 0.01) {
      const p = percentileOf(z, norm);
      assert.ok(p >= last && p >= 0 && p <= 100);
      last = p;
    }
    // Centred on the median speaker: value 0 ⇔ score 0.5 ⇔ percentile 50.
    assert.equal(percentileOf(0, norm), 50);
  }
});

test('each model is weighted by its held-out skill; a model ranking held-out texts no better than chance is not used', () => {
  const model = loadBigFiveModel();
  for (const trait of TRAITS) {
    const t = model.traits[trait];
    const total = t.models.reduce((s, m) => s + m.weight, 0);
    assert.ok(Math.abs(total - 1) < 1e-3, `${trait}: weights sum to ${total}`);
    for (const m of t.models) {
      const cv = model.crossValidation.find((c) => c.dataset === m.dataset)!;
      assert.equal(m.auc, cv.auc[trait]);
      if (m.auc <= 0.5) assert.equal(m.weight, 0, `${trait}/${m.dataset}: AUC ${m.auc} but weight ${m.weight}`);
      else assert.ok(m.weight > 0 && m.slope > 0);
    }
    // The trait's skill is the weighted held-out skill, never more than the best model's.
    assert.ok(t.skill > 0 && t.skill <= Math.max(...t.models.map((m) => m.skill)) + 1e-9);
  }
  // Held-out AUC below chance: Friends on conscientiousness; essays on extraversion.
  assert.equal(model.traits.conscientiousness.models.find((m) => m.dataset === 'friends')!.weight, 0);
  assert.equal(model.traits.extraversion.models.find((m) => m.dataset === 'essays')!.weight, 0);
});

test('confidence = amount of speech × the model\'s held-out skill; a model without skill gives confidence 0', async () => {
  const model = loadBigFiveModel();
  const rows = bigFive(analyseTurns(await mindSaying(5000)).psychometrics);
  for (const r of rows) {
    const skill = model.traits[r.name as Trait].skill;
    assert.ok(Math.abs(r.confidence - (5000 / 5600) * skill) < 0.002, `${r.name}: ${r.confidence} vs skill ${skill}`);
    assert.match(r.note ?? '', /AUC/);
  }
  // The same words scored by a model whose every data set is at chance: no confidence at all.
  const blind = structuredClone(model);
  for (const t of TRAITS) {
    blind.traits[t].skill = 0;
    for (const m of blind.traits[t].models) m.weight = 0;
  }
  const mind = prepareTurns(await mindSaying(5000));
  for (const r of scoreBigFive(mind, 5000, blind)) {
    assert.equal(r.confidence, 0);
    assert.equal(r.score, 0.5);
    assert.match(r.note ?? '', /no model ranked held-out texts better than chance/);
  }
});

test('score and percentile agree on every real speaker: above the median speaker ⇔ score above 0.5', skipUnlessSharedData, async () => {
  for (const [file, speaker] of [[debate('2012-10-03'), 'Barack H Obama'], [lex('393-andrew-huberman.txt'), 'Andrew Huberman'], [lenny('bob-moesta'), 'Bob Moesta']] as const) {
    for (const r of bigFive(analyseTurns(await transcriptTurns(file, speaker)).psychometrics)) {
      assert.ok(r.score !== null && r.percentile !== null);
      assert.ok((r.score - 0.5) * (r.percentile - 50) >= 0, `${speaker} ${r.name}: score ${r.score} but percentile ${r.percentile}`);
      // A 55–60 %-accurate model cannot honestly be sure of anyone.
      assert.ok(r.score > 0.3 && r.score < 0.7, `${speaker} ${r.name}: ${r.score}`);
      assert.ok(r.confidence < 0.25, `${speaker} ${r.name}: confidence ${r.confidence}`);
    }
  }
});

test('training helpers: folds are deterministic and stratified; logistic regression separates a clear signal', () => {
  const y = Array.from({ length: 50 }, (_, i) => (i % 5 === 0 ? 1 : 0));
  const a = stratifiedFolds(y, 5, 7);
  assert.deepEqual(a, stratifiedFolds(y, 5, 7));
  for (let f = 0; f < 5; f++) assert.equal(y.filter((v, i) => v === 1 && a[i] === f).length, 2);
  const rows = Array.from({ length: 40 }, (_, i) => Float64Array.from([i % 2 ? 1 + (i % 7) / 10 : -1 - (i % 5) / 10, (i * 37) % 11]));
  const labels = rows.map((_, i) => i % 2);
  const m = fitLogistic(rows, labels, 0.01);
  assert.ok(rows.every((r, i) => (logit(m, r) > 0 ? 1 : 0) === labels[i]));
});

test('kernel ridge: closed-form leave-one-out equals refitting without the row', async () => {
  const { fitRidge, linearKernel, spdInverse } = await import('../../src/analysis/train/ridge.ts');
  const d = 3;
  const lambda = 0.5;
  const X = Array.from({ length: 12 }, (_, i) => Float64Array.from([Math.sin(i), Math.cos(2 * i), (i % 3) - 1]));
  for (let j = 0; j < d; j++) {
    const m = X.reduce((s, x) => s + x[j]!, 0) / X.length;
    for (const x of X) x[j]! -= m;
  }
  const y = X.map((x) => (x[0]! + 0.3 * x[2]! > 0 ? 1 : -1));
  const { loo } = fitRidge(linearKernel(X, X), X.length, y, lambda);
  // The same model in primal form: min Σ(y − b − x·w/√d)² + λ‖w‖², b unpenalised, refitted without row i.
  for (let i = 0; i < X.length; i++) {
    const A = new Float64Array(16);
    const rhs = new Float64Array(4);
    X.forEach((x, k) => {
      if (k === i) return;
      const a = [1, ...Array.from(x, (v) => v / Math.sqrt(d))];
      for (let p = 0; p < 4; p++) {
        rhs[p]! += a[p]! * y[k]!;
        for (let q = 0; q < 4; q++) A[p * 4 + q]! += a[p]! * a[q]!;
      }
    });
    for (let p = 1; p < 4; p++) A[p * 4 + p]! += lambda;
    const inv = spdInverse(A, 4);
    const beta = [0, 1, 2, 3].map((p) => [0, 1, 2, 3].reduce((s, q) => s + inv[p * 4 + q]! * rhs[q]!, 0));
    const direct = beta[0]! + [0, 1, 2].reduce((s, j) => s + (beta[j + 1]! * X[i]![j]!) / Math.sqrt(d), 0);
    assert.ok(Math.abs(direct - loo[i]!) < 1e-9, `row ${i}: ${direct} vs ${loo[i]}`);
  }
});

test('dialogue counts add up per turn: turns, questions, short turns', () => {
  const c = new Map<string, number>();
  for (const line of ['Hey Ross!', 'What are you doing here?', 'I just came by to see how the apartment is going.']) {
    for (const [k, v] of countTokens(tokenize(line))) c.set(k, (c.get(k) ?? 0) + v);
  }
  assert.equal(c.get('#turns'), 3);
  assert.equal(c.get('dlg:question'), 1);
  assert.equal(c.get('dlg:exclaim'), 1);
  assert.equal(c.get('dlg:short'), 1);
  assert.equal(c.get('dlg:vocative'), 1);
});
