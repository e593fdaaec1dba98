import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyseTurns, type AnalysisTurn, type PsychometricResult } from '../../../src/lib/analysis/index.ts';
import { loadBigFiveModel, modelVector, percentileOf, scoreBigFive, traitSkill, traitValue, writtenProbability } from '../../../src/lib/analysis/big-five.ts';
import { prepareTurns } from '../../../src/lib/analysis/prepare.ts';
import { countTokens, EMBEDDING_FEATURES, featureVector, featureVectorWithout } from '../../../src/lib/analysis/features.ts';
import { tokenize } from '../../../src/lib/analysis/nlp.ts';
import { prepareRows } from '../../../src/lib/analysis/train/big-five-training.ts';
import { stratifiedFolds, fitLogistic, logit } from '../../../src/lib/analysis/train/logistic.ts';
import { fitRegisterRidge, groupFolds, predictRegisterRidge } from '../../../src/lib/analysis/train/register-ridge.ts';
import { spdInverse } from '../../../src/lib/analysis/train/ridge.ts';
import { characterLines, parseCsv, readEssays, readFirstImpressions, readFriends, readVlogs, TRAITS, type Trait } from '../../../src/lib/analysis/train/personality-data.ts';
import { debate, fixtureDebate, lenny, lex, transcriptTurns } from './transcripts.ts';
import { SHARED_DATA_URL, skipUnlessSharedData } from '../../support/shared-data.ts';

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
  const sets = [
    prepareRows('essays', 'written', readEssays(new URL('essays-full-train.csv', PERSONALITY)).slice(0, 400)),
    prepareRows('vlogs', 'spoken', readVlogs(new URL('youtube-vlogs-train.csv', PERSONALITY))),
  ];
  for (const rows of sets) {
    const x = rows.map((r) => modelVector(model, r.counts));
    for (const trait of TRAITS) {
      const z = x.map((v) => traitValue(model.traits[trait], v, writtenProbability(model, v)));
      const mean = (label: number): number => {
        const idx = rows.map((r, i) => (r.labels[trait] === label ? i : -1)).filter((i) => i >= 0);
        return idx.reduce((s, i) => s + z[i]!, 0) / idx.length;
      };
      assert.ok(mean(1) > mean(0), `${rows[0]!.dataset} ${trait}: high-labelled texts score ${mean(1)} vs low ${mean(0)}`);
    }
  }
  // Grouped cross-validated accuracy is recorded per data set, and is above chance.
  assert.deepEqual(model.crossValidation.map((c) => c.dataset), ['essays', 'vlogs', 'first-impressions']);
  for (const cv of model.crossValidation) assert.ok(cv.mean > 0.5 && cv.aucMean > 0.5, `${cv.dataset}: ${cv.mean} / ${cv.aucMean}`);
});

test('personality data: every file parses; rated data is split at its median; clips are grouped by video', skipUnlessSharedData, () => {
  const essays = readEssays(new URL('essays-train.csv', PERSONALITY));
  const full = readEssays(new URL('essays-full-train.csv', PERSONALITY));
  const friends = readFriends(new URL('friends-train.csv', PERSONALITY));
  const vlogs = readVlogs(new URL('youtube-vlogs-train.csv', PERSONALITY));
  const clips = readFirstImpressions(new URL('first-impressions-train.csv', PERSONALITY));
  assert.equal(essays.length, 346);
  assert.equal(full.length, 2319);
  assert.equal(friends.length, 498);
  assert.equal(vlogs.length, 224);
  assert.equal(clips.length, 776);
  for (const rows of [vlogs, clips])
    for (const t of TRAITS) {
      const high = rows.filter((r) => r.labels[t] === 1).length;
      // Ratings tied at the median count as low, so at most half are high.
      assert.ok(high <= rows.length / 2 && high >= rows.length * 0.4, `${t}: ${high} of ${rows.length} high`);
      assert.ok(rows.every((r) => (r.labels[t] === 1) === (r.scores![t] > Math.min(...rows.filter((x) => x.labels[t] === 1).map((x) => x.scores![t])) - 1e-12)));
    }
  const videos = new Set(clips.map((c) => c.group));
  assert.ok(videos.size < clips.length, 'several clips share a video');
  // Grouped folds never split a video.
  const rows = clips.map((c) => ({ dataset: 'fi', group: c.group! }));
  const folds = groupFolds(rows, 5, 1);
  const foldOf = new Map<string, number>();
  rows.forEach((r, i) => {
    assert.equal(foldOf.get(r.group) ?? folds[i], folds[i]);
    foldOf.set(r.group, folds[i]!);
  });
  const [header, first] = parseCsv(readFileSync(new URL('friends-train.csv', PERSONALITY), 'utf8'));
  assert.ok(header && first);
  const lines = characterLines(first[header.indexOf('text')]!, first[header.indexOf('character')]!);
  assert.ok(lines.includes('This is everybody. This is Ross.'));
  assert.ok(!lines.some((l) => l.includes('Peter Parker')));
});

test('percentiles are monotonic in the value and bounded; the median norm speaker is the 50th percentile', () => {
  const model = loadBigFiveModel();
  for (const trait of TRAITS) {
    const norm = model.traits[trait].norm;
    assert.equal(norm.length, model.normCorpus.speeches.length);
    assert.ok(norm.length >= 30, `${norm.length} norm speeches`);
    let last = -1;
    for (let z = -3; z <= 3; z += 0.01) {
      const p = percentileOf(z, norm);
      assert.ok(p >= last && p >= 0 && p <= 100);
      last = p;
    }
    const mid = (norm[(norm.length - 1) >> 1]! + norm[norm.length >> 1]!) / 2;
    assert.ok(Math.abs(percentileOf(mid, norm) - 50) < 1e-9);
  }
});

test('each register reading carries its data set\'s held-out skill; a reading no better than chance has skill 0', () => {
  const model = loadBigFiveModel();
  for (const trait of TRAITS)
    for (const reg of ['written', 'spoken'] as const) {
      const r = model.traits[trait].registers[reg];
      const cv = model.crossValidation.find((c) => c.dataset === r.dataset)!;
      assert.equal(r.auc, cv.auc[trait]);
      if (r.auc <= 0.5 || r.slope === 0) assert.equal(r.skill, 0, `${trait}/${reg}`);
      else assert.ok(Math.abs(r.skill - (2 * r.auc - 1)) < 1e-3 && r.slope > 0, `${trait}/${reg}`);
    }
  assert.ok(model.register.accuracy > 0.9, `register classifier ${model.register.accuracy}`);
});

test('confidence = amount of text × the model\'s held-out skill on its register; a model without skill gives confidence 0', async () => {
  const model = loadBigFiveModel();
  const mind = prepareTurns(await mindSaying(5000));
  const total = new Map<string, number>();
  for (const t of mind) for (const [k, v] of t.counts) total.set(k, (total.get(k) ?? 0) + v);
  const pWritten = writtenProbability(model, modelVector(model, total));
  assert.ok(pWritten < 0.5, `a debate is speech: P(written) ${pWritten}`);
  const rows = bigFive(analyseTurns(await mindSaying(5000)).psychometrics);
  for (const r of rows) {
    const skill = traitSkill(model.traits[r.name as Trait], pWritten);
    assert.ok(Math.abs(r.confidence - (5000 / 5600) * skill) < 0.002, `${r.name}: ${r.confidence} vs skill ${skill}`);
    assert.match(r.note ?? '', /AUC/);
    assert.match(r.note ?? '', /Read as spoken text/);
  }
  const blind = structuredClone(model);
  for (const t of TRAITS) for (const reg of ['written', 'spoken'] as const) blind.traits[t].registers[reg].skill = 0;
  for (const r of scoreBigFive(mind, 5000, blind)) {
    assert.equal(r.confidence, 0);
    assert.equal(r.score, 0.5);
    assert.equal(r.percentile, 50);
  }
});

test('an essay is read as written, a transcript as spoken; real speakers spread across the norm', skipUnlessSharedData, async () => {
  const model = loadBigFiveModel();
  const essay = readEssays(new URL('essays-full-train.csv', PERSONALITY))[0]!.text;
  const rows = bigFive(analyseTurns([{ turnId: 'e', speaker: 'A', text: essay, startMs: null, isMind: true }]).psychometrics);
  for (const r of rows) assert.match(r.note ?? '', /Read as written text/);
  const percentiles: number[] = [];
  for (const [file, speaker] of [[debate('2012-10-03'), 'Barack H Obama'], [lex('393-andrew-huberman.txt'), 'Andrew Huberman'], [lenny('bob-moesta'), 'Bob Moesta']] as const) {
    for (const r of bigFive(analyseTurns(await transcriptTurns(file, speaker)).psychometrics)) {
      assert.ok(r.score !== null && r.percentile !== null);
      // A debate and a conversational podcast read as speech; a lecture-like guest (Huberman) is near 50/50.
      if (speaker !== 'Andrew Huberman') assert.match(r.note ?? '', /Read as spoken text \(P = [89]\d %\)/);
      // Mixed by P(written): never above the better register's held-out skill.
      const reg = model.traits[r.name as Trait].registers;
      const skill = Math.max(reg.spoken.skill, reg.written.skill);
      assert.ok(r.confidence <= skill + 1e-9, `${speaker} ${r.name}: confidence ${r.confidence} above the skill ${skill}`);
      percentiles.push(r.percentile);
    }
  }
  // Not every trait of every speaker in the middle: the percentiles use the range.
  assert.ok(Math.max(...percentiles) - Math.min(...percentiles) > 50, percentiles.join(', '));
});

test('register ridge: shared + register weights equal a weighted ridge on the expanded design', () => {
  // Two data sets of different registers, one weighted 2 and with groups of two rows.
  const rows = Array.from({ length: 30 }, (_, i) => ({
    dataset: i < 16 ? 'a' : 'b',
    group: i < 16 ? `a${i}` : `b${Math.floor(i / 2)}`,
    x: Float64Array.from([Math.sin(i), Math.cos(3 * i), (i % 4) - 1.5]),
  }));
  const y = rows.map((r, i) => (r.dataset === 'a' ? 1 : -0.5) * r.x[0]! - 0.5 * r.x[2]! + 0.3 * Math.sin(7 * i));
  const weightOf = { b: 2 };
  const [fit] = fitRegisterRidge(rows, [y], [0, 1, 2], { registerOf: { a: 'written', b: 'spoken' }, weightOf, lambdas: [0.2], innerFolds: 3, seed: 1 });
  assert.equal(fit!.lambda, 0.2);
  // The same model written out: each row's standardised features three times (all, written only,
  // spoken only), weighted least squares on targets centred per data set, penalty λ × total weight.
  const std = (r: (typeof rows)[number]): number[] => [0, 1, 2].map((j) => (r.x[j]! - fit!.datasets[r.dataset]!.standardiser.mean[j]!) / fit!.datasets[r.dataset]!.standardiser.sd[j]!);
  const mean = (ds: string): number => y.filter((_, i) => rows[i]!.dataset === ds).reduce((s, v) => s + v, 0) / rows.filter((r) => r.dataset === ds).length;
  const A = new Float64Array(81);
  const rhs = new Float64Array(9);
  let total = 0;
  rows.forEach((r, i) => {
    const z = std(r);
    const written = r.dataset === 'a' ? 1 : 0;
    const e = [...z, ...z.map((v) => v * written), ...z.map((v) => v * (1 - written))];
    const w = r.dataset === 'b' ? 2 : 1;
    total += w;
    for (let p = 0; p < 9; p++) {
      rhs[p]! += w * e[p]! * (y[i]! - mean(r.dataset));
      for (let q = 0; q < 9; q++) A[p * 9 + q]! += w * e[p]! * e[q]!;
    }
  });
  for (let p = 0; p < 9; p++) A[p * 9 + p]! += 0.2 * total;
  const inv = spdInverse(A, 9);
  const beta = Array.from({ length: 9 }, (_, p) => rhs.reduce((s, v, q) => s + inv[p * 9 + q]! * v, 0));
  for (let j = 0; j < 3; j++) {
    assert.ok(Math.abs(fit!.weights.written[j]! - (beta[j]! + beta[3 + j]!)) < 1e-9, `written ${j}`);
    assert.ok(Math.abs(fit!.weights.spoken[j]! - (beta[j]! + beta[6 + j]!)) < 1e-9, `spoken ${j}`);
  }
  // The registers' data disagree on feature 0, and the register weights follow their own data.
  assert.ok(fit!.weights.written[0]! > 0 && fit!.weights.spoken[0]! < 0, `${fit!.weights.written[0]} / ${fit!.weights.spoken[0]}`);
  // The median-split cut: half of each data set's training rows predicted high.
  for (const ds of ['a', 'b']) {
    const mine = rows.filter((r) => r.dataset === ds);
    const high = mine.filter((r) => predictRegisterRidge(fit!, r.x, ds) > 0).length;
    assert.ok(Math.abs(high - mine.length / 2) <= 1, `${ds}: ${high} of ${mine.length}`);
  }
});

test('register ridge: the penalty is chosen by inner cross-validation (pure noise → the strongest penalty)', () => {
  const rows = Array.from({ length: 60 }, (_, i) => ({ dataset: i % 2 ? 'a' : 'b', group: `g${i}`, x: Float64Array.from([Math.sin(i * 1.7), Math.cos(i * 2.3), Math.sin(i * 0.9 + 1)]) }));
  const noise = rows.map((_, i) => Math.sin(i * 12.9898) * 43758.5453 - Math.floor(Math.sin(i * 12.9898) * 43758.5453) - 0.5);
  const signal = rows.map((r) => 2 * r.x[0]!);
  const lambdas = [0.001, 0.1, 100];
  const [onNoise, onSignal] = fitRegisterRidge(rows, [noise, signal], [0, 1, 2], { registerOf: { a: 'spoken', b: 'spoken' }, lambdas, innerFolds: 3, seed: 5 });
  assert.equal(onNoise!.lambda, 100);
  assert.notEqual(onSignal!.lambda, 100);
});

test('sentence-embedding counts are additive: the speech without a turn reads like the other turns alone', () => {
  const a = prepareTurns([
    { turnId: '1', speaker: 'A', text: 'I love hiking in the mountains with my friends every summer.', startMs: null, isMind: true },
    { turnId: '2', speaker: 'A', text: 'The budget deficit worries me, and taxes should be fair.', startMs: null, isMind: true },
  ]);
  const total = new Map<string, number>();
  for (const t of a) for (const [k, v] of t.counts) total.set(k, (total.get(k) ?? 0) + v);
  const names = [...EMBEDDING_FEATURES];
  const without = featureVectorWithout(total, a[0]!.counts, names);
  const alone = featureVector(a[1]!.counts, names);
  for (let j = 0; j < names.length; j++) assert.ok(Math.abs(without[j]! - alone[j]!) < 1e-5);
  // A unit vector, and different texts point different ways.
  assert.ok(Math.abs(alone.reduce((s, v) => s + v * v, 0) - 1) < 1e-6);
  const first = featureVector(a[0]!.counts, names);
  assert.ok(first.reduce((s, v, j) => s + v * alone[j]!, 0) < 0.9);
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
  const { fitRidge, linearKernel, spdInverse } = await import('../../../src/lib/analysis/train/ridge.ts');
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
