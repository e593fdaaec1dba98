/**
 * Big Five scoring with the learned models in models/big-five.json (written by
 * scripts/train-big-five.ts). Per trait, each data set's logistic model is calibrated on its
 * held-out (cross-validated) logits and weighted by its held-out skill; the combined value is
 * centred on the median speaker of a norm corpus of real speech. Score = σ(value), the calibrated
 * chance that the person is above that median speaker; percentile = rank of the same value among
 * the norm speeches, so score > 0.5 exactly when percentile > 50. README.md has the formulas.
 */
import { readFileSync } from 'node:fs';
import { addCounts, featureVector, featureVectorWithout, type Counts } from './features.ts';
import { quoteSentences } from './evidence.ts';
import type { PreparedTurn } from './prepare.ts';
import { TRAITS, type Trait } from './train/personality-data.ts';
import type { TrainingConfig, CvResult } from './train/big-five-training.ts';
import type { PsychometricResult } from './types.ts';

/** One logistic model, trained on one data set, with its calibration. */
export interface LinearWeights {
  dataset: string;
  features: string[];
  mean: number[];
  sd: number[];
  weights: number[];
  bias: number;
  /** Held-out AUC of this data set's model on this trait (k-fold CV). */
  auc: number;
  /** max(0, 2·AUC − 1): ranking skill above chance, 0 (none) … 1 (perfect). */
  skill: number;
  /** Platt slope on the held-out logits: log-odds of "high" per unit of this model's logit. */
  slope: number;
  /** Share of the trait's value from this model: skill / Σ skill. */
  weight: number;
}

/**
 * A trait's value = Σ weight·slope·logit − centre (log-odds that the person is above the median
 * norm speaker; the intercepts drop out, as they only encode each data set's label balance).
 */
export interface BigFiveTraitWeights {
  models: LinearWeights[];
  /** Median of Σ weight·slope·logit over the norm speeches. */
  centre: number;
  /** Σ weight·skill: the trait model's held-out skill (0 … 1), a factor of every confidence. */
  skill: number;
  /** The norm speeches' values, sorted: percentile = interpolated rank among them. */
  norm: number[];
}

export interface BigFiveModelFile {
  version: 2;
  description: string;
  config: TrainingConfig;
  training: { dataset: string; rows: number }[];
  /** The norm corpus for percentiles (train/norm-corpus.ts). */
  normCorpus: { description: string; minWords: number; speeches: { name: string; words: number }[] };
  /** k-fold accuracy and AUC of each data set's own model on that data set. */
  crossValidation: CvResult[];
  /** Accuracy of the model trained on one data set, tested on all of the other. */
  transfer: { trainedOn: string; testedOn: string; accuracy: Record<Trait, number>; mean: number }[];
  traits: Record<Trait, BigFiveTraitWeights>;
}

/** Below this many words there is too little text to score; below LOW_CONFIDENCE_WORDS, scores are flagged. */
export const MIN_WORDS = 100;
export const LOW_CONFIDENCE_WORDS = 600;
/** Words at which the amount-of-evidence factor of the confidence reaches 0.5: n / (n + HALF_CONFIDENCE_WORDS). */
const HALF_CONFIDENCE_WORDS = 600;
const EVIDENCE_TURNS = 3;
/** Turns shorter than this are not offered as evidence: too little to read a trait from. */
const MIN_EVIDENCE_WORDS = 25;

export const MODEL_URL = new URL('./models/big-five.json', import.meta.url);
let cached: BigFiveModelFile | undefined;
export function loadBigFiveModel(): BigFiveModelFile {
  cached ??= JSON.parse(readFileSync(MODEL_URL, 'utf8')) as BigFiveModelFile;
  return cached;
}

/** A feature without a value (NaN: e.g. the question rate of unpunctuated captions) counts as the training mean. */
export function linearLogit(m: Pick<LinearWeights, 'weights' | 'mean' | 'sd' | 'bias'>, x: Float64Array): number {
  let s = m.bias;
  for (let j = 0; j < m.weights.length; j++) if (!Number.isNaN(x[j]!)) s += (m.weights[j]! * (x[j]! - m.mean[j]!)) / m.sd[j]!;
  return s;
}

/**
 * Feature vectors already computed for one text, by feature list: every trait's model of a data
 * set uses the same features, so a text's vector is computed once per data set, not per trait.
 */
export type VectorCache = Map<string, Float64Array>;
const featureKeys = new WeakMap<string[], string>();
function featureKey(features: string[]): string {
  let k = featureKeys.get(features);
  if (k === undefined) {
    k = features.join('\u0000');
    featureKeys.set(features, k);
  }
  return k;
}

/** Σ weight·slope·logit over a trait's models, before centring. */
export function uncentredValue(models: LinearWeights[], total: Counts, without?: Counts, cache?: VectorCache): number {
  let s = 0;
  for (const m of models) {
    if (m.weight === 0 || m.slope === 0) continue;
    const key = cache ? featureKey(m.features) : '';
    let x = cache?.get(key);
    if (!x) {
      x = without ? featureVectorWithout(total, without, m.features) : featureVector(total, m.features);
      cache?.set(key, x);
    }
    s += m.weight * m.slope * linearLogit(m, x);
  }
  return s;
}

/** A trait's calibrated value (log-odds of being above the median norm speaker) for counts `total` (minus `without`). */
export function traitLogit(t: BigFiveTraitWeights, total: Counts, without?: Counts, cache?: VectorCache): number {
  return uncentredValue(t.models, total, without, cache) - t.centre;
}

/** Percentile (0–100) of `z` within sorted quantiles, linearly interpolated. */
export function percentileOf(z: number, quantiles: number[]): number {
  const q = quantiles;
  if (q.length < 2 || z <= q[0]!) return 0;
  if (z >= q[q.length - 1]!) return 100;
  let i = 1;
  while (q[i]! < z) i++;
  const lo = q[i - 1]!;
  const hi = q[i]!;
  const frac = hi > lo ? (z - lo) / (hi - lo) : 0.5;
  return ((i - 1 + frac) / (q.length - 1)) * 100;
}

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** A Big Five confidence: the amount of speech (n / (n + 600)) × the trait model's held-out skill. */
export function bigFiveConfidence(trait: Trait, words: number, model = loadBigFiveModel()): number {
  return words < MIN_WORDS ? 0 : (words / (words + HALF_CONFIDENCE_WORDS)) * model.traits[trait].skill;
}

/** What the note says about the model behind a trait: held-out skill per data set. */
function modelNote(t: BigFiveTraitWeights): string {
  const used = t.models.filter((m) => m.weight > 0);
  if (used.length === 0) return 'In cross-validation no model ranked held-out texts better than chance on this trait, so the score carries no information (confidence 0).';
  const parts = used.map((m) => `${m.dataset} ${m.auc.toFixed(2)}`).join(', ');
  const dropped = t.models.filter((m) => m.weight === 0).map((m) => m.dataset);
  return `Held-out AUC (chance 0.50): ${parts}${dropped.length ? `; the ${dropped.join(', ')} model is not used (no better than chance on this trait)` : ''}. A weak signal: the score stays near 0.5 by design; the percentile ranks the person among ${t.norm.length} real speakers.`;
}

export function scoreBigFive(turns: PreparedTurn[], mindWords: number, model = loadBigFiveModel()): PsychometricResult[] {
  if (mindWords < MIN_WORDS) {
    return TRAITS.map((name) => ({
      instrument: 'big_five',
      name,
      score: null,
      percentile: null,
      confidence: 0,
      evidence: [],
      note: `Not scored: only ${mindWords} words of the mind's own speech; at least ${MIN_WORDS} are needed to estimate personality traits.`,
    }));
  }
  const total: Counts = new Map();
  for (const t of turns) addCounts(total, t.counts);
  const totalVectors: VectorCache = new Map();
  const evidenceTurns = turns.filter((t) => t.words >= MIN_EVIDENCE_WORDS);
  const withoutVectors = evidenceTurns.map((): VectorCache => new Map());
  return TRAITS.map((name) => {
    const m = model.traits[name];
    // Without a model that has held-out skill the value says nothing: the median speaker's.
    const informative = m.skill > 0;
    const z = informative ? traitLogit(m, total, undefined, totalVectors) : 0;
    const direction = z >= 0 ? 1 : -1;
    // Evidence: the turns whose removal would move the value furthest back toward the median
    // speaker, i.e. the turns that pushed it to where it is.
    const pushes = (informative ? evidenceTurns : [])
      .map((t, i) => ({ t, push: direction * (z - traitLogit(m, total, t.counts, withoutVectors[i])) }))
      .filter((p) => p.push > 0)
      .sort((a, b) => b.push - a.push || a.t.position - b.t.position)
      .slice(0, EVIDENCE_TURNS);
    const base = `Estimated from ${mindWords} words. ${modelNote(m)}`;
    return {
      instrument: 'big_five',
      name,
      score: round(1 / (1 + Math.exp(-z))),
      percentile: informative ? round(percentileOf(z, m.norm), 1) : 50,
      // How far to trust it: the amount of the person's speech × the model's held-out skill.
      confidence: round(bigFiveConfidence(name, mindWords, model)),
      evidence: pushes.map(({ t }) => ({
        turnId: t.turn.turnId,
        quote: quoteSentences(t.turn.text, t.tokens.sentences),
        startMs: t.turn.startMs,
      })),
      note: mindWords < LOW_CONFIDENCE_WORDS ? `Low confidence: fewer than ${LOW_CONFIDENCE_WORDS} words. ${base}` : base,
    };
  });
}
