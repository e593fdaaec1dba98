/**
 * Big Five scoring with the learned model in models/big-five.json (written by
 * scripts/train-big-five.ts). Score = P(trait above the median | the person's words); percentile
 * = rank of the person's logit among the training texts' logits (the norm corpus).
 */
import { readFileSync } from 'node:fs';
import { addCounts, featureVector, featureVectorWithout, type Counts } from './features.ts';
import { quoteSentences } from './evidence.ts';
import type { PreparedTurn } from './prepare.ts';
import { TRAITS, type Trait } from './train/personality-data.ts';
import type { TrainingConfig, CvResult } from './train/big-five-training.ts';
import type { PsychometricResult } from './types.ts';

/** One logistic model, trained on one data set. */
export interface LinearWeights {
  dataset: string;
  features: string[];
  mean: number[];
  sd: number[];
  weights: number[];
  bias: number;
}

/** A trait is scored by the mean logit of its per-data-set models (essays, Friends). */
export interface BigFiveTraitWeights {
  models: LinearWeights[];
  /** Quantiles (0, 1, …, 100 %) of the ensemble logit over all training texts: the norm corpus. */
  normQuantiles: number[];
}

export interface BigFiveModelFile {
  version: 1;
  description: string;
  config: TrainingConfig;
  training: { dataset: string; rows: number }[];
  /** k-fold accuracy of each data set's own model on that data set. */
  crossValidation: CvResult[];
  /** Accuracy of the model trained on one data set, tested on all of the other. */
  transfer: { trainedOn: string; testedOn: string; accuracy: Record<Trait, number>; mean: number }[];
  traits: Record<Trait, BigFiveTraitWeights>;
}

/** Below this many words there is too little text to score; below LOW_CONFIDENCE_WORDS, scores are flagged. */
export const MIN_WORDS = 100;
export const LOW_CONFIDENCE_WORDS = 600;
/** Words at which the Big Five confidence reaches 0.5 (confidence = n / (n + HALF_CONFIDENCE_WORDS)). */
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

function linearLogit(m: LinearWeights, x: Float64Array): number {
  let s = m.bias;
  for (let j = 0; j < m.weights.length; j++) s += (m.weights[j]! * (x[j]! - m.mean[j]!)) / m.sd[j]!;
  return s;
}

/** The ensemble logit of a trait for counts `total` (minus `without`, when given). */
export function traitLogit(t: BigFiveTraitWeights, total: Counts, without?: Counts): number {
  let s = 0;
  for (const m of t.models) {
    const x = without ? featureVectorWithout(total, without, m.features) : featureVector(total, m.features);
    s += linearLogit(m, x);
  }
  return s / Math.max(1, t.models.length);
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

export function scoreBigFive(turns: PreparedTurn[], mindWords: number, model = loadBigFiveModel()): PsychometricResult[] {
  const meanAccuracy = (t: Trait): number =>
    model.crossValidation.reduce((s, cv) => s + cv.accuracy[t], 0) / Math.max(1, model.crossValidation.length);
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
  const confidence = round(mindWords / (mindWords + HALF_CONFIDENCE_WORDS));
  return TRAITS.map((name) => {
    const m = model.traits[name];
    const z = traitLogit(m, total);
    const direction = z >= 0 ? 1 : -1;
    // Evidence: the turns whose removal would move the score furthest back toward the middle,
    // i.e. the turns that pushed it to where it is.
    const pushes = turns
      .filter((t) => t.words >= MIN_EVIDENCE_WORDS)
      .map((t) => ({ t, push: direction * (z - traitLogit(m, total, t.counts)) }))
      .filter((p) => p.push > 0)
      .sort((a, b) => b.push - a.push || a.t.position - b.t.position)
      .slice(0, EVIDENCE_TURNS);
    const accuracy = meanAccuracy(name);
    const base = `Estimated from ${mindWords} words; in cross-validation the model labels ${Math.round(accuracy * 100)}% of held-out texts correctly (chance: 50%).`;
    return {
      instrument: 'big_five',
      name,
      score: round(1 / (1 + Math.exp(-z))),
      percentile: round(percentileOf(z, m.normQuantiles), 1),
      confidence,
      evidence: pushes.map(({ t }) => ({
        turnId: t.turn.turnId,
        quote: quoteSentences(t.turn.text, t.tokens.sentences),
        startMs: t.turn.startMs,
      })),
      note: mindWords < LOW_CONFIDENCE_WORDS ? `Low confidence: fewer than ${LOW_CONFIDENCE_WORDS} words. ${base}` : base,
    };
  });
}
