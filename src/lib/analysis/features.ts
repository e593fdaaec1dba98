/**
 * Lexical features for the Big Five model. A text is reduced to additive counts (so the counts
 * of a person's turns sum to the counts of their whole speech, and "the speech without this
 * turn" is a subtraction), then counts become a feature vector by rates per word.
 * Training (scripts/train-big-five.ts) and inference (bigFive.ts) share this file, so the model
 * always sees features computed the same way.
 */
import { CATEGORIES, EMOTIONS, EMOTION_WORDS, VALENCE } from './lexicons.ts';
import type { TurnTokens } from './nlp.ts';
import { EMBEDDING_DIMENSIONS, embeddingFromCounts } from './text-embedding.ts';

export type Counts = Map<string, number>;

/** Fixed (non-vocabulary) count keys; vocabulary counts are stored as `u:<word>`. */
const CATEGORY_NAMES = Object.keys(CATEGORIES);
const POS_TAGS = ['NOUN', 'VERB', 'ADJ', 'ADV', 'PRON', 'PROPN', 'ADP', 'DET', 'NUM', 'INTJ', 'AUX', 'CCONJ', 'SCONJ', 'PART'];

export const FIXED_FEATURES: readonly string[] = [
  ...CATEGORY_NAMES.map((c) => `cat:${c}`),
  ...POS_TAGS.map((p) => `pos:${p}`),
  'sent:positive',
  'sent:negative',
  ...EMOTIONS.map((e) => `emo:${e}`),
  'sty:longWord',
  'sty:question',
  'sty:exclaim',
  'sty:wordsPerSentence',
];

/**
 * The text's GloVe-SIF sentence embedding (unit vector, 100 dimensions; `text-embedding.ts`), from
 * the additive `e:<k>` sums that the preparation step adds to the counts (`addEmbeddingCounts`).
 */
export const EMBEDDING_FEATURES: readonly string[] = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, k) => `emb:${k}`);

/**
 * Dialogue-behaviour features (per turn: log turns, log words per turn, share of turns that are
 * short (≤ 3 words), ask a question, exclaim, address someone by name, open with an interjection).
 * Computed for every text but not used by the shipped model: in nested cross-validation on the
 * Friends scenes they did not beat the majority baseline (src/lib/analysis/README.md).
 */
export const DIALOGUE_FEATURES: readonly string[] = [
  'dlg:turns',
  'dlg:wordsPerTurn',
  'dlg:short',
  'dlg:question',
  'dlg:exclaim',
  'dlg:vocative',
  'dlg:interjection',
];

/**
 * Count key set (by the analyser, never in training) on the counts of text without sentence
 * punctuation. Features read from punctuation then have no value (NaN), and the models give them
 * no weight: the text is read as an average training text on them (linearLogit), not as one that
 * never asks a question and speaks in 16,000-word sentences.
 */
export const UNPUNCTUATED = '#unpunctuated';
export const PUNCTUATION_FEATURES: ReadonlySet<string> = new Set(['sty:question', 'sty:exclaim', 'sty:wordsPerSentence', 'dlg:question', 'dlg:exclaim']);

function add(c: Counts, key: string, n = 1): void {
  c.set(key, (c.get(key) ?? 0) + n);
}

/** Counts of one tokenized text. Keys: `#words`, `#sentences`, feature numerators, `u:<word>`. */
export function countTokens(t: TurnTokens): Counts {
  const c: Counts = new Map();
  add(c, '#words', t.wordCount);
  add(c, '#sentences', Math.max(1, t.sentences.length));
  add(c, '#turns');
  if (t.wordCount <= 3) add(c, 'dlg:short');
  if (t.normal.includes('?')) add(c, 'dlg:question');
  if (t.normal.includes('!')) add(c, 'dlg:exclaim');
  const n = t.pos.length;
  if (t.pos[0] === 'PROPN' || (n >= 2 && t.pos[n - 2] === 'PROPN' && t.type[n - 1] === 'punctuation')) add(c, 'dlg:vocative');
  if (t.pos[0] === 'INTJ') add(c, 'dlg:interjection');
  for (let i = 0; i < t.normal.length; i++) {
    const w = t.normal[i]!;
    const type = t.type[i];
    if (type === 'punctuation') {
      if (w === '?') add(c, 'sty:question');
      else if (w === '!') add(c, 'sty:exclaim');
      continue;
    }
    if (type !== 'word') continue;
    add(c, `u:${w}`);
    add(c, `pos:${t.pos[i]}`);
    if (w.length > 6) add(c, 'sty:longWord');
    for (const name of CATEGORY_NAMES) if (CATEGORIES[name]!.has(w)) add(c, `cat:${name}`);
    const v = VALENCE[w];
    if (v !== undefined) {
      // Inside a negation's scope the valence flips ("not good" counts as negative).
      const signed = t.negated[i] ? -v : v;
      add(c, signed > 0 ? 'sent:positive' : 'sent:negative', Math.abs(signed));
    }
    const lemma = t.lemma[i]!;
    if (!t.negated[i]) for (const e of EMOTIONS) if (EMOTION_WORDS[e].has(lemma)) add(c, `emo:${e}`);
  }
  return c;
}

export function addCounts(into: Counts, from: Counts, sign = 1): Counts {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + sign * v);
  return into;
}

/**
 * One feature's value from counts. Rates are per word, square-rooted (a variance-stabilising
 * transform for counts, so rare words do not dominate); sentence length is logged.
 */
function valueOf(get: (key: string) => number, name: string, embedding?: () => Float64Array | null): number {
  if (name.startsWith('emb:')) {
    // No known word: unknown (the model reads it as its training mean), not a zero vector.
    const e = embedding ? embedding() : embeddingFromCounts(get);
    return e ? e[Number(name.slice(4))]! : NaN;
  }
  if (get(UNPUNCTUATED) > 0 && PUNCTUATION_FEATURES.has(name)) return NaN;
  const words = Math.max(1, get('#words'));
  const sentences = Math.max(1, get('#sentences'));
  if (name === 'sty:wordsPerSentence') return Math.log1p(words / sentences);
  if (name.startsWith('dlg:')) {
    const turns = Math.max(1, get('#turns'));
    if (name === 'dlg:turns') return Math.log(turns);
    if (name === 'dlg:wordsPerTurn') return Math.log1p(words / turns);
    return Math.sqrt(Math.max(0, get(name)) / turns);
  }
  if (name === 'sty:question' || name === 'sty:exclaim') return Math.sqrt(Math.max(0, get(name)) / sentences);
  return Math.sqrt(Math.max(0, get(name)) / words);
}

export function featureValue(c: Counts, name: string): number {
  return valueOf((k) => c.get(k) ?? 0, name);
}

/** The embedding of `get`'s counts, computed at most once however many `emb:` features are read. */
function lazyEmbedding(get: (key: string) => number): () => Float64Array | null {
  let e: Float64Array | null | undefined;
  return () => (e === undefined ? (e = embeddingFromCounts(get)) : e);
}

export function featureVector(c: Counts, names: readonly string[]): Float64Array {
  const get = (k: string): number => c.get(k) ?? 0;
  const embedding = lazyEmbedding(get);
  const v = new Float64Array(names.length);
  for (let j = 0; j < names.length; j++) v[j] = valueOf(get, names[j]!, embedding);
  return v;
}

/** Features of `total` minus `part` (e.g. a person's speech without one turn), without copying counts. */
export function featureVectorWithout(total: Counts, part: Counts, names: readonly string[]): Float64Array {
  const get = (k: string): number => (total.get(k) ?? 0) - (part.get(k) ?? 0);
  const embedding = lazyEmbedding(get);
  const v = new Float64Array(names.length);
  for (let j = 0; j < names.length; j++) v[j] = valueOf(get, names[j]!, embedding);
  return v;
}
