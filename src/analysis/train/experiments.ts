/**
 * Model-selection experiments for the Big Five model, reproducible with
 * `node --import tsx scripts/train-big-five.ts --experiments`. Every choice a candidate makes
 * from data (vocabulary, standardisation, the ridge penalty λ per trait) is made inside the
 * training folds: λ by closed-form leave-one-out on the training rows only (nested selection).
 * The outer folds are the shipped protocol's (5-fold stratified, same seed).
 */
import { countTokens, addCounts, DIALOGUE_FEATURES, featureVector, FIXED_FEATURES, type Counts } from '../features.ts';
import { resetTokenizer, tokenize } from '../nlp.ts';
import { stratifiedFolds } from './logistic.ts';
import { crossValidate, selectVocabulary, type Row, type TrainingConfig } from './big-five-training.ts';
import { TRAITS, type LabelledText, type Trait } from './personality-data.ts';
import { fitRidge, linearKernel, predictRidge } from './ridge.ts';

/** Rows whose counts sum the counts of each line (a Friends line is one turn), so dialogue features see turns. */
export function prepareTurnRows(dataset: string, texts: LabelledText[]): Row[] {
  resetTokenizer();
  return texts.map((t) => {
    const counts: Counts = new Map();
    for (const line of t.text.split('\n')) if (line.trim()) addCounts(counts, countTokens(tokenize(line)));
    return { id: t.id, dataset, counts, labels: t.labels };
  });
}

export interface Candidate {
  name: string;
  /** Feature names from the training rows only. */
  features: (train: Row[]) => string[];
}

export const CANDIDATES: Candidate[] = [
  { name: 'categories (52)', features: () => [...FIXED_FEATURES] },
  { name: 'categories + dialogue (59)', features: () => [...FIXED_FEATURES, ...DIALOGUE_FEATURES] },
  { name: 'unigrams (2,000, df ≥ 3)', features: (tr) => selectVocabulary(tr, 2000, 3) },
  { name: 'categories + dialogue + unigrams (600)', features: (tr) => [...FIXED_FEATURES, ...DIALOGUE_FEATURES, ...selectVocabulary(tr, 600, 8)] },
];

export const LAMBDAS = [0.1, 0.3, 1, 3, 10, 30, 100, 300];

function standardise(train: Float64Array[], other: Float64Array[]): [Float64Array[], Float64Array[]] {
  const n = train.length;
  const d = train[0]?.length ?? 0;
  const mean = new Float64Array(d);
  const sd = new Float64Array(d);
  for (const r of train) for (let j = 0; j < d; j++) mean[j]! += r[j]! / n;
  for (const r of train) for (let j = 0; j < d; j++) sd[j]! += (r[j]! - mean[j]!) ** 2 / n;
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]!) || 1;
  const z = (r: Float64Array): Float64Array => Float64Array.from(r, (v, j) => (v - mean[j]!) / sd[j]!);
  return [train.map(z), other.map(z)];
}

export interface NestedResult {
  candidate: string;
  accuracy: Record<Trait, number>;
  mean: number;
  /** λ chosen in each outer fold, per trait. */
  lambdas: Record<Trait, number[]>;
}

/** Outer k-fold CV of kernel ridge on ±1 labels; λ per trait and fold by LOO accuracy on the training rows. */
export function nestedRidgeCv(rows: Row[], candidate: Candidate, folds = 5, seed = 20240607): NestedResult {
  const accuracy = {} as Record<Trait, number>;
  const lambdas = {} as Record<Trait, number[]>;
  for (const trait of TRAITS) {
    const fold = stratifiedFolds(rows.map((r) => r.labels[trait]), folds, seed);
    let correct = 0;
    lambdas[trait] = [];
    for (let f = 0; f < folds; f++) {
      const train = rows.filter((_, i) => fold[i] !== f);
      const test = rows.filter((_, i) => fold[i] === f);
      const names = candidate.features(train);
      const [Ztr, Zte] = standardise(
        train.map((r) => featureVector(r.counts, names)),
        test.map((r) => featureVector(r.counts, names)),
      );
      const K = linearKernel(Ztr, Ztr);
      const y = train.map((r) => (r.labels[trait] ? 1 : -1));
      let best = { lambda: LAMBDAS[0]!, score: -Infinity };
      for (const lambda of LAMBDAS) {
        const { loo } = fitRidge(K, train.length, y, lambda);
        const hits = loo.filter((v, i) => Math.sign(v) === y[i]).length / y.length;
        const mse = loo.reduce((s, v, i) => s + (v - y[i]!) ** 2, 0) / y.length;
        const score = hits - 1e-3 * mse; // accuracy first, squared error breaks ties
        if (score > best.score + 1e-12) best = { lambda, score };
      }
      lambdas[trait].push(best.lambda);
      const fit = fitRidge(K, train.length, y, best.lambda);
      const predicted = predictRidge(fit, linearKernel(Zte, Ztr), test.length);
      test.forEach((r, i) => {
        if ((predicted[i]! > 0 ? 1 : 0) === r.labels[trait]) correct++;
      });
    }
    accuracy[trait] = correct / rows.length;
  }
  const mean = TRAITS.reduce((s, t) => s + accuracy[t], 0) / TRAITS.length;
  return { candidate: candidate.name, accuracy, mean, lambdas };
}

/** Mean CV accuracy of the shipped configuration under other fold seeds: how much the estimate itself moves. */
export function seedSpread(rows: Row[], config: TrainingConfig, seeds: number[]): number[] {
  return seeds.map((seed) => crossValidate(rows, [], { ...config, seed }).mean);
}
