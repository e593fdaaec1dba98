/**
 * Training and cross-validation of the Big Five model, shared by scripts/train-big-five.ts (which
 * writes the weight file) and bench/analysis.ts (which reports the accuracy).
 *
 * Protocol: k-fold cross-validation GROUPED by author or video (a First Impressions video's clips
 * are all in one fold), folds dealt per data set. Everything learned from data — each data set's
 * standardisation and intercept, the weights and the ridge penalty per trait — is learned on the
 * training folds only (λ by grouped inner k-fold error inside them), so
 * the held-out rows of a fold never influence the model that scores them.
 */
import { countTokens, EMBEDDING_FEATURES, featureVector, FIXED_FEATURES, type Counts } from '../features.ts';
import { resetTokenizer, tokenize } from '../nlp.ts';
import { addEmbeddingCounts } from '../text-embedding.ts';
import { fitRegisterRidge, groupFolds, predictRegisterRidge, type FittedRidge, type Register, type RidgeRow } from './register-ridge.ts';
import { TRAITS, type LabelledText, type Trait } from './personality-data.ts';

export type { Register } from './register-ridge.ts';

export interface TrainingConfig {
  /** Ridge penalties tried per trait (× the total row weight, on standardised features). */
  lambdas: number[];
  /** Outer folds (the reported cross-validation) and inner folds (the penalty's selection). */
  folds: number;
  innerFolds: number;
  seed: number;
  /**
   * Row weight per data set. The vlogs weigh 3: 224 full monologues, the text closest to what
   * users upload, would otherwise be a fifteenth of the essays' say in the shared weights. Fixed
   * on the development folds before the reported cross-validation (src/lib/analysis/README.md).
   */
  datasetWeights: Record<string, number>;
}

export const DEFAULT_CONFIG: TrainingConfig = {
  lambdas: [0.03, 0.1, 0.3, 1, 3, 10, 30],
  folds: 5,
  innerFolds: 3,
  seed: 20240607,
  datasetWeights: { vlogs: 3 },
};

export interface Row {
  id: string;
  dataset: string;
  register: Register;
  group: string;
  words: number;
  counts: Counts;
  /** 1 = above the data set's median on the trait. */
  labels: Record<Trait, number>;
  /** Regression target, > 0 = above the median: ±1 for high/low labels, (rating − median) / sd for ratings. */
  targets: Record<Trait, number>;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};

/** A data set's rows (lexical counts + sentence-embedding sums), tokenized from a pristine tokenizer. */
export function prepareRows(dataset: string, register: Register, texts: LabelledText[]): Row[] {
  resetTokenizer();
  const targets = {} as Record<Trait, number[]>;
  for (const trait of TRAITS) {
    const rated = texts.every((t) => t.scores);
    if (!rated) {
      targets[trait] = texts.map((t) => (t.labels[trait] ? 1 : -1));
      continue;
    }
    const s = texts.map((t) => t.scores![trait]);
    const m = median(s);
    const mean = s.reduce((a, b) => a + b, 0) / s.length;
    const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / s.length) || 1;
    targets[trait] = s.map((v) => (v - m) / sd);
  }
  return texts.map((t, i) => {
    const counts = countTokens(tokenize(t.text));
    addEmbeddingCounts(counts, t.text);
    return {
      id: t.id,
      dataset,
      register,
      group: t.group ?? t.id,
      words: t.text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length,
      counts,
      labels: t.labels,
      targets: Object.fromEntries(TRAITS.map((tr) => [tr, targets[tr][i]!])) as Record<Trait, number>,
    };
  });
}

/** The model's features: the lexical ones, then the sentence embedding. */
export const MODEL_FEATURES: readonly string[] = [...FIXED_FEATURES, ...EMBEDDING_FEATURES];

export interface TraitFits {
  names: string[];
  fits: Record<Trait, FittedRidge>;
}

/** One register-aware ridge model per trait on `rows` (any mix of data sets), its penalty chosen on these rows only. */
export function fitTraits(rows: Row[], config: TrainingConfig): TraitFits {
  const names = [...MODEL_FEATURES];
  const ridgeRows: RidgeRow[] = rows.map((r) => ({ dataset: r.dataset, group: r.group, x: featureVector(r.counts, names) }));
  const registerOf = Object.fromEntries(rows.map((r) => [r.dataset, r.register]));
  const fitted = fitRegisterRidge(
    ridgeRows,
    TRAITS.map((t) => rows.map((r) => r.targets[t])),
    names.map((_, j) => j),
    { registerOf, weightOf: config.datasetWeights, lambdas: config.lambdas, innerFolds: config.innerFolds, seed: config.seed },
  );
  return { names, fits: Object.fromEntries(TRAITS.map((t, i) => [t, fitted[i]!])) as Record<Trait, FittedRidge> };
}

export interface CvResult {
  dataset: string;
  rows: number;
  /** Accuracy per trait (share of held-out texts whose high/low label the model got right). */
  accuracy: Record<Trait, number>;
  /** Share of the majority label per trait: what always guessing the commoner label scores. */
  majority: Record<Trait, number>;
  /**
   * Area under the ROC curve of the held-out predictions per trait: the chance that a held-out
   * text labelled high gets a higher prediction than one labelled low (0.5 = chance).
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
    for (let k = i; k <= j; k++)
      if (labels[idx[k]!]! > 0) {
        rankSumHigh += midRank;
        nHigh++;
      }
    i = j + 1;
  }
  const nLow = scores.length - nHigh;
  return nHigh && nLow ? (rankSumHigh - (nHigh * (nHigh + 1)) / 2) / (nHigh * nLow) : 0.5;
}

const avg = (r: Record<Trait, number>): number => TRAITS.reduce((s, t) => s + r[t], 0) / TRAITS.length;

/** Accuracy (prediction > 0 ⇔ high), majority baseline and AUC of held-out predictions. */
export function scoreHeldOut(dataset: string, rows: Row[], predictions: Record<Trait, number[]>): CvResult {
  const accuracy = {} as Record<Trait, number>;
  const majority = {} as Record<Trait, number>;
  const auc = {} as Record<Trait, number>;
  for (const t of TRAITS) {
    const y = rows.map((r) => r.labels[t]);
    const z = predictions[t];
    accuracy[t] = z.filter((v, i) => (v > 0 ? 1 : 0) === y[i]).length / rows.length;
    auc[t] = rocAuc(z, y);
    const ones = y.filter((v) => v === 1).length;
    majority[t] = Math.max(ones, rows.length - ones) / rows.length;
  }
  return { dataset, rows: rows.length, accuracy, majority, auc, mean: avg(accuracy), majorityMean: avg(majority), aucMean: avg(auc) };
}

export interface CrossValidation {
  /** Per data set. */
  results: CvResult[];
  /** Every row's held-out prediction per trait (aligned with the input rows). */
  heldOut: Record<Trait, number[]>;
  /** What the inner selection chose in each fold, per trait: `λ`. */
  choices: Record<Trait, string[]>;
}

/**
 * Grouped k-fold cross-validation of the model trained on `rows` (all data sets together, or one):
 * each fold's model is fitted on the other folds (λ, standardisation, intercepts all chosen
 * there) and predicts the held-out rows with their data set's training-fold standardisation.
 */
export function crossValidate(rows: Row[], config: TrainingConfig): CrossValidation {
  const folds = groupFolds(rows, config.folds, config.seed);
  const heldOut = Object.fromEntries(TRAITS.map((t) => [t, new Array<number>(rows.length).fill(0)])) as Record<Trait, number[]>;
  const choices = Object.fromEntries(TRAITS.map((t) => [t, [] as string[]])) as Record<Trait, string[]>;
  for (let f = 0; f < config.folds; f++) {
    const model = fitTraits(
      rows.filter((_, i) => folds[i] !== f),
      config,
    );
    for (const t of TRAITS) choices[t].push(`λ=${model.fits[t].lambda}`);
    rows.forEach((r, i) => {
      if (folds[i] !== f) return;
      const x = featureVector(r.counts, model.names);
      for (const t of TRAITS) heldOut[t][i] = predictRegisterRidge(model.fits[t], x, r.dataset);
    });
  }
  const datasets = [...new Set(rows.map((r) => r.dataset))];
  const results = datasets.map((ds) => {
    const idx = rows.map((r, i) => (r.dataset === ds ? i : -1)).filter((i) => i >= 0);
    return scoreHeldOut(
      ds,
      idx.map((i) => rows[i]!),
      Object.fromEntries(TRAITS.map((t) => [t, idx.map((i) => heldOut[t][i]!)])) as Record<Trait, number[]>,
    );
  });
  return { results, heldOut, choices };
}

/**
 * Platt scaling through the origin: the slope a of P(high | p) = σ(a·p) fitted by maximum
 * likelihood on held-out predictions p. The threshold stays at p = 0 (so the cross-validated
 * accuracy is the accuracy of the shipped score > 0.5); a says how many log-odds one unit of
 * prediction is really worth on unseen texts. Clipped at 0.
 */
export function plattSlope(heldOut: number[], labels: number[]): number {
  let a = 0;
  for (let it = 0; it < 100; it++) {
    let g = 0;
    let h = 0;
    for (let i = 0; i < heldOut.length; i++) {
      const p = heldOut[i]!;
      const s = 1 / (1 + Math.exp(-a * p));
      g += (labels[i]! - s) * p;
      h += s * (1 - s) * p * p;
    }
    if (h <= 0) break;
    const step = g / h;
    a += step;
    if (Math.abs(step) < 1e-10) break;
  }
  return Math.max(0, a);
}
