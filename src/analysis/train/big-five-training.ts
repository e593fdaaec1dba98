/**
 * Training and cross-validation of the Big Five model, shared by scripts/train-big-five.ts (which
 * writes the weight file) and bench/analysis.ts (which reports the accuracy).
 */
import { countTokens, featureVector, FIXED_FEATURES, type Counts } from '../features.ts';
import { tokenize } from '../nlp.ts';
import { fitLogistic, logit, stratifiedFolds } from './logistic.ts';
import { TRAITS, type LabelledText, type Trait } from './personality-data.ts';

export interface TrainingConfig {
  /** Unigrams kept as features: the most document-frequent in the training rows. */
  vocabularySize: number;
  /** Minimum number of training documents a unigram must occur in. */
  minDocumentFrequency: number;
  /** L2 penalty on standardised weights. */
  lambda: number;
  iterations: number;
  /** Keep only this many features per trait, those most correlated with the label in the training rows (0: keep all). */
  selectTop: number;
  folds: number;
  seed: number;
}

export const DEFAULT_CONFIG: TrainingConfig = {
  vocabularySize: 600,
  minDocumentFrequency: 8,
  lambda: 3,
  iterations: 250,
  selectTop: 0,
  folds: 5,
  seed: 20240607,
};

export interface Row {
  id: string;
  dataset: string;
  counts: Counts;
  labels: Record<Trait, number>;
}

export function prepareRows(dataset: string, texts: LabelledText[]): Row[] {
  return texts.map((t) => ({ id: t.id, dataset, counts: countTokens(tokenize(t.text)), labels: t.labels }));
}

/** The most document-frequent unigrams among `rows` (ties broken alphabetically, so it is deterministic). */
export function selectVocabulary(rows: Row[], size: number, minDf: number): string[] {
  const df = new Map<string, number>();
  for (const r of rows) for (const k of r.counts.keys()) if (k.startsWith('u:')) df.set(k, (df.get(k) ?? 0) + 1);
  return [...df.entries()]
    .filter(([, n]) => n >= minDf)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, size)
    .map(([k]) => k);
}

export function featureNames(rows: Row[], config: TrainingConfig): string[] {
  return [...FIXED_FEATURES, ...selectVocabulary(rows, config.vocabularySize, config.minDocumentFrequency)];
}

export interface TraitModel {
  features: string[];
  mean: number[];
  sd: number[];
  weights: number[];
  bias: number;
  /** Sorted logits of the training texts: the norm corpus for percentiles. */
  normLogits: number[];
}

/** Indices of the `k` features most correlated (in absolute value) with the label; ties by index. */
function mostCorrelated(X: Float64Array[], y: number[], k: number): number[] {
  const n = X.length;
  const d = X[0]?.length ?? 0;
  const my = y.reduce((s, v) => s + v, 0) / n;
  const score: [number, number][] = [];
  for (let j = 0; j < d; j++) {
    let mx = 0;
    for (const x of X) mx += x[j]! / n;
    let sxy = 0;
    let sxx = 0;
    for (let i = 0; i < n; i++) {
      const dx = X[i]![j]! - mx;
      sxy += dx * (y[i]! - my);
      sxx += dx * dx;
    }
    score.push([sxx > 0 ? Math.abs(sxy) / Math.sqrt(sxx) : 0, j]);
  }
  return score
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, k)
    .map(([, j]) => j)
    .sort((a, b) => a - b);
}

export function fitTrait(rows: Row[], candidates: string[], trait: Trait, config: TrainingConfig): TraitModel {
  const y = rows.map((r) => r.labels[trait]);
  let names = candidates;
  let X = rows.map((r) => featureVector(r.counts, names));
  if (config.selectTop > 0 && config.selectTop < names.length) {
    const keep = mostCorrelated(X, y, config.selectTop);
    names = keep.map((j) => candidates[j]!);
    X = X.map((x) => Float64Array.from(keep, (j) => x[j]!));
  }
  const m = fitLogistic(X, y, config.lambda, config.iterations);
  const normLogits = X.map((x) => logit(m, x)).sort((a, b) => a - b);
  return { features: names, ...m, normLogits };
}

export interface CvResult {
  dataset: string;
  rows: number;
  /** Accuracy per trait (share of held-out texts whose high/low label the model got right). */
  accuracy: Record<Trait, number>;
  /** Share of the majority label per trait: what always guessing the commoner label scores. */
  majority: Record<Trait, number>;
  mean: number;
  majorityMean: number;
}

/**
 * k-fold CV on `target`; each fold's model is trained on the other folds plus all of `extra`
 * (the other data set), mirroring how the shipped model is trained on both.
 */
export function crossValidate(target: Row[], extra: Row[], config: TrainingConfig): CvResult {
  const accuracy = {} as Record<Trait, number>;
  const majority = {} as Record<Trait, number>;
  for (const trait of TRAITS) {
    const y = target.map((r) => r.labels[trait]);
    const folds = stratifiedFolds(y, config.folds, config.seed);
    let correct = 0;
    for (let f = 0; f < config.folds; f++) {
      const train = [...target.filter((_, i) => folds[i] !== f), ...extra];
      const test = target.filter((_, i) => folds[i] === f);
      const names = featureNames(train, config);
      const model = fitTrait(train, names, trait, config);
      for (const r of test) {
        const predicted = logit(model, featureVector(r.counts, model.features)) > 0 ? 1 : 0;
        if (predicted === r.labels[trait]) correct++;
      }
    }
    accuracy[trait] = correct / target.length;
    const ones = y.filter((v) => v === 1).length;
    majority[trait] = Math.max(ones, target.length - ones) / target.length;
  }
  const avg = (r: Record<Trait, number>): number => TRAITS.reduce((s, t) => s + r[t], 0) / TRAITS.length;
  return { dataset: target[0]?.dataset ?? '', rows: target.length, accuracy, majority, mean: avg(accuracy), majorityMean: avg(majority) };
}

/** Accuracy of models trained on all of `train`, tested on all of `test` (another data set). */
export function transferAccuracy(
  train: Row[],
  test: Row[],
  config: TrainingConfig,
): { trainedOn: string; testedOn: string; accuracy: Record<Trait, number>; mean: number } {
  const accuracy = {} as Record<Trait, number>;
  const names = featureNames(train, config);
  for (const trait of TRAITS) {
    const model = fitTrait(train, names, trait, config);
    let correct = 0;
    for (const r of test) if ((logit(model, featureVector(r.counts, model.features)) > 0 ? 1 : 0) === r.labels[trait]) correct++;
    accuracy[trait] = correct / test.length;
  }
  const mean = TRAITS.reduce((s, t) => s + accuracy[t], 0) / TRAITS.length;
  return { trainedOn: train[0]?.dataset ?? '', testedOn: test[0]?.dataset ?? '', accuracy, mean };
}
