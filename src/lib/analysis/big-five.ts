/**
 * Big Five scoring with the learned model in models/big-five.json (written by
 * scripts/train-big-five.ts). Per trait, one ridge model learned from written essays and spoken
 * vlogs and clips together — weights shared by both registers plus each register's own — each
 * register read against its own population (standardised on it, centred on its median); a text is
 * read as written and as spoken, mixed by a register classifier.
 * Score = σ(value), the calibrated chance of being rated above the median of that population;
 * percentile = rank of the same value among a norm corpus of real speakers. README.md has the details.
 */
import { readFileSync } from 'node:fs';
import { addCounts, featureVector, featureVectorWithout, type Counts } from './features.ts';
import { quoteSentences } from './evidence.ts';
import type { PreparedTurn } from './prepare.ts';
import { TRAITS, type Trait } from './train/personality-data.ts';
import type { CvResult, Register, TrainingConfig } from './train/big-five-training.ts';
import type { PsychometricResult } from './types.ts';

/** How a trait's model reads a text of one register (standardisation and calibration from that register's data set). */
export interface RegisterReading {
  /** The data set that stands for the register (essays: written; vlogs: spoken). */
  dataset: string;
  intercept: number;
  /** Weights on the standardised columns: the trait's shared weights + this register's own. */
  weights: number[];
  /** Standardisation of the model's columns on the data set's rows. */
  mean: number[];
  sd: number[];
  /** Platt slope on the held-out predictions: log-odds of "above the median" per unit of prediction. */
  slope: number;
  /** Held-out AUC on that data set (grouped cross-validation). */
  auc: number;
  /** max(0, 2·AUC − 1): ranking skill above chance, 0 (none) … 1 (perfect). */
  skill: number;
}

export interface BigFiveTraitModel {
  /** Ridge penalty chosen by grouped inner cross-validation on the training rows. */
  lambda: number;
  /** Indices into the model file's `features`. */
  columns: number[];
  registers: Record<Register, RegisterReading>;
  /** Values of the norm speeches, sorted: percentile = interpolated rank among them. */
  norm: number[];
  /**
   * Measurement noise: the standard deviation of the value between 1,000-word stretches of the same
   * speech, × √1000 (so the value's standard error at n words is noise / √n). From the norm corpus.
   */
  noise: number;
}

export interface BigFiveModelFile {
  version: 4;
  description: string;
  /** Training data and the terms they come under. */
  terms: string;
  config: TrainingConfig;
  features: string[];
  training: { dataset: string; register: Register; rows: number }[];
  /** Grouped k-fold accuracy and AUC on each data set of the shipped (pooled) model. */
  crossValidation: CvResult[];
  /** The same held-out predictions on outer fold 0 only: the rows no design choice of this version looked at. */
  untouchedFold: { dataset: string; rows: number; accuracy: Record<Trait, number>; auc: Record<Trait, number>; mean: number; aucMean: number }[];
  /** Logistic written-vs-spoken classifier on the lexical features not read from punctuation (`columns` of `features`). */
  register: { columns: number[]; mean: number[]; sd: number[]; weights: number[]; bias: number; accuracy: number };
  normCorpus: { description: string; minWords: number; speeches: { name: string; words: number }[] };
  traits: Record<Trait, BigFiveTraitModel>;
}

/** Below this many words there is too little text to score; below LOW_CONFIDENCE_WORDS, scores are flagged. */
export const MIN_WORDS = 100;
export const LOW_CONFIDENCE_WORDS = 600;
/** Words at which the amount-of-evidence factor of the confidence reaches 0.5: n / (n + HALF_CONFIDENCE_WORDS). */
export const HALF_CONFIDENCE_WORDS = 600;
const EVIDENCE_TURNS = 3;
/** Turns shorter than this are not offered as evidence: too little to read a trait from. */
const MIN_EVIDENCE_WORDS = 25;

export const MODEL_URL = new URL('./models/big-five.json', import.meta.url);
let cached: BigFiveModelFile | undefined;
export function loadBigFiveModel(): BigFiveModelFile {
  cached ??= JSON.parse(readFileSync(MODEL_URL, 'utf8')) as BigFiveModelFile;
  return cached;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** P(written) of a feature vector (unknown features count as the mean). */
export function writtenProbability(model: BigFiveModelFile, x: Float64Array): number {
  const r = model.register;
  let s = r.bias;
  r.columns.forEach((j, k) => {
    const v = x[j]!;
    if (!Number.isNaN(v)) s += (r.weights[k]! * (v - r.mean[k]!)) / r.sd[k]!;
  });
  return sigmoid(s);
}

/** The trait model's calibrated prediction for a text read as `register` (log-odds of being above that population's median). */
export function registerValue(t: BigFiveTraitModel, register: Register, x: Float64Array): number {
  const r = t.registers[register];
  let s = r.intercept;
  t.columns.forEach((j, k) => {
    const v = x[j]!;
    if (!Number.isNaN(v)) s += (r.weights[k]! * (v - r.mean[k]!)) / r.sd[k]!;
  });
  return r.slope * s;
}

/** A trait's value: the written and spoken readings mixed by P(written). */
export function traitValue(t: BigFiveTraitModel, x: Float64Array, pWritten: number): number {
  return pWritten * registerValue(t, 'written', x) + (1 - pWritten) * registerValue(t, 'spoken', x);
}

/** The trait's held-out skill for a text with P(written) = pWritten. */
export function traitSkill(t: BigFiveTraitModel, pWritten: number): number {
  return pWritten * t.registers.written.skill + (1 - pWritten) * t.registers.spoken.skill;
}

/** The model's feature vector of counts (minus `without`). */
export function modelVector(model: BigFiveModelFile, total: Counts, without?: Counts): Float64Array {
  return without ? featureVectorWithout(total, without, model.features) : featureVector(total, model.features);
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

/** A Big Five confidence: the amount of text (n / (n + 600)) × the trait model's held-out skill. */
export function bigFiveConfidence(words: number, skill: number): number {
  return words < MIN_WORDS ? 0 : (words / (words + HALF_CONFIDENCE_WORDS)) * skill;
}

/** Standard error of a trait value measured on `words` words (from the norm corpus's within-speech spread). */
export function valueStandardError(t: BigFiveTraitModel, words: number): number {
  return t.noise / Math.sqrt(Math.max(1, words));
}

const pct = (x: number): string => `${Math.round(x * 100)} %`;

/** What the note says about the model behind a trait and the register it read. */
function modelNote(t: BigFiveTraitModel, pWritten: number): string {
  const register = pWritten >= 0.5 ? 'written' : 'spoken';
  const r = t.registers[register];
  const population = register === 'written' ? 'student essay writers (Pennebaker & King)' : 'rated YouTube vloggers (Biel & Gatica-Perez)';
  const skill =
    r.skill > 0
      ? `held-out AUC ${r.auc.toFixed(2)} on ${r.dataset} (chance 0.50)`
      : `no better than chance on held-out ${r.dataset} (AUC ${r.auc.toFixed(2)}), so the score carries no information`;
  return `Read as ${register} text (P = ${pct(register === 'written' ? pWritten : 1 - pWritten)}): the score is the calibrated chance of being rated above the median of ${population}; ${skill}. The percentile ranks the value among ${t.norm.length} real speakers (podcasts and debates).`;
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
      note: `Not scored: only ${mindWords} words of the mind's own speech; at least ${MIN_WORDS} are needed to estimate personality traits (below that, held-out accuracy is at chance).`,
    }));
  }
  const total: Counts = new Map();
  for (const t of turns) addCounts(total, t.counts);
  const x = modelVector(model, total);
  const pWritten = writtenProbability(model, x);
  // Evidence: the turns whose removal would move the value furthest back toward the centre.
  const evidenceTurns = turns.filter((t) => t.words >= MIN_EVIDENCE_WORDS);
  const without = evidenceTurns.map((t) => modelVector(model, total, t.counts));
  return TRAITS.map((name) => {
    const m = model.traits[name];
    const skill = traitSkill(m, pWritten);
    // Without held-out skill the value says nothing: the median's.
    const informative = skill > 0;
    const z = informative ? traitValue(m, x, pWritten) : 0;
    const direction = z >= 0 ? 1 : -1;
    const pushes = (informative ? evidenceTurns : [])
      .map((t, i) => ({ t, push: direction * (z - traitValue(m, without[i]!, pWritten)) }))
      .filter((p) => p.push > 0)
      .sort((a, b) => b.push - a.push || a.t.position - b.t.position)
      .slice(0, EVIDENCE_TURNS);
    const base = `Estimated from ${mindWords} words. ${modelNote(m, pWritten)}`;
    return {
      instrument: 'big_five',
      name,
      score: round(sigmoid(z), 4),
      percentile: informative ? round(percentileOf(z, m.norm), 1) : 50,
      // How far to trust it: the amount of text × the model's held-out skill on that register.
      confidence: round(bigFiveConfidence(mindWords, skill)),
      evidence: pushes.map(({ t }) => ({
        turnId: t.turn.turnId,
        quote: quoteSentences(t.turn.text, t.tokens.sentences),
        startMs: t.turn.startMs,
      })),
      note: mindWords < LOW_CONFIDENCE_WORDS ? `Low confidence: fewer than ${LOW_CONFIDENCE_WORDS} words. ${base}` : base,
    };
  });
}
