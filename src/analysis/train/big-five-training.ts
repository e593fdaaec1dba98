/**
 * Training and cross-validation of the Big Five model, shared by scripts/train-big-five.ts (which
 * writes the weight file) and bench/analysis.ts (which reports the accuracy).
 */
import { countTokens, featureVector, FIXED_FEATURES, type Counts } from '../features.ts';
import { resetTokenizer, tokenize } from '../nlp.ts';
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

/** A data set's rows, tokenized from a pristine tokenizer (so the rows do not depend on what was read before). */
export function prepareRows(dataset: string, texts: LabelledText[]): Row[] {
  resetTokenizer();
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
  /**
   * Area under the ROC curve of the held-out logits per trait: the chance that a held-out text
   * labelled high gets a higher logit than one labelled low (0.5 = chance). Unlike accuracy it does
   * not depend on the threshold or on how unbalanced the labels are.
   */
  auc: Record<Trait, number>;
  mean: number;
  majorityMean: number;
  aucMean: number;
}

/** AUC by the Mann–Whitney count (ties count half). */
export function rocAuc(scores: number[], labels: number[]): number {
  const idx = scores.map((_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let rankSumHigh = 0;
  let nHigh = 0;
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1]!] === scores[idx[i]!]) j++;
    const midRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (labels[idx[k]!]! > 0) {
      rankSumHigh += midRank;
      nHigh++;
    }
    i = j + 1;
  }
  const nLow = scores.length - nHigh;
  return nHigh && nLow ? (rankSumHigh - (nHigh * (nHigh + 1)) / 2) / (nHigh * nLow) : 0.5;
}

/**
 * k-fold CV on `target`; each fold's model is trained on the other folds plus all of `extra`
 * (the other data set). Also returns every row's held-out logit (for calibration).
 */
export function crossValidateWithLogits(target: Row[], extra: Row[], config: TrainingConfig): { cv: CvResult; heldOut: Record<Trait, number[]> } {
  const accuracy = {} as Record<Trait, number>;
  const majority = {} as Record<Trait, number>;
  const auc = {} as Record<Trait, number>;
  const heldOut = {} as Record<Trait, number[]>;
  for (const trait of TRAITS) {
    const y = target.map((r) => r.labels[trait]);
    const folds = stratifiedFolds(y, config.folds, config.seed);
    const z = new Array<number>(target.length).fill(0);
    for (let f = 0; f < config.folds; f++) {
      const train = [...target.filter((_, i) => folds[i] !== f), ...extra];
      const model = fitTrait(train, featureNames(train, config), trait, config);
      target.forEach((r, i) => {
        if (folds[i] === f) z[i] = logit(model, featureVector(r.counts, model.features));
      });
    }
    accuracy[trait] = z.filter((v, i) => (v > 0 ? 1 : 0) === y[i]).length / target.length;
    auc[trait] = rocAuc(z, y);
    heldOut[trait] = z;
    const ones = y.filter((v) => v === 1).length;
    majority[trait] = Math.max(ones, target.length - ones) / target.length;
  }
  const avg = (r: Record<Trait, number>): number => TRAITS.reduce((s, t) => s + r[t], 0) / TRAITS.length;
  const cv = { dataset: target[0]?.dataset ?? '', rows: target.length, accuracy, majority, auc, mean: avg(accuracy), majorityMean: avg(majority), aucMean: avg(auc) };
  return { cv, heldOut };
}

export function crossValidate(target: Row[], extra: Row[], config: TrainingConfig): CvResult {
  return crossValidateWithLogits(target, extra, config).cv;
}

/**
 * Platt scaling without intercept: the slope a of P(high | z) = σ(a·(z − median z) + b) fitted by
 * maximum likelihood on held-out logits z. It says how much a unit of the model's logit is worth
 * in real (held-out) evidence; a model without skill gets a ≈ 0. Clipped at 0: a model whose
 * held-out logits run against the labels says nothing.
 */
export function plattSlope(heldOut: number[], labels: number[]): number {
  const sorted = [...heldOut].sort((a, b) => a - b);
  const mid = (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
  const m = fitLogistic(heldOut.map((z) => Float64Array.from([z - mid])), labels, 0, 500);
  return Math.max(0, m.weights[0]! / m.sd[0]!);
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
