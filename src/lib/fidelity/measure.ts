/**
 * Fidelity of a simulated answer, measured against what the person really answered (issue 22).
 *
 * Token overlap with the real answer rewards long generic passages: "I think", "people" and
 * the person's usual vocabulary are in every answer. What matters is whether the simulated
 * answer is about *this* question, so the measure is a ranking one: the simulated answer s_i
 * should be closer to its own real answer a_i than to the person's other real answers a_j
 * (the other held-out questions of the same conversation set).
 *
 *  - specificity AUC: the share of the other real answers a_j with cos(s_i, a_i) > cos(s_i, a_j)
 *    (a tie counts half, so an empty or topic-free answer scores 0.5 = "no more about this
 *    question than about any other");
 *  - beyond the question: the same with the question's own words removed from the simulated
 *    answer and from every reference (echoing the question back then scores 0.5);
 *  - persona win: whether this mind's answer is closer to the real answer than another
 *    person's mind's answer to the same question.
 *
 * Vectors are TF-IDF of content-word stems, the IDF taken over the mind's memory turns, so a word
 * the person says everywhere weighs little. The stems are the project's one definition,
 * `contentStems` of src/lib/language/text.ts, passed in by the caller (from when it lived in
 * engines/, which lib may not import; both are lib now, so the parameter could go).
 *
 * Pure: strings and turn lists in, numbers out; no database, no feature imports, so the
 * benchmark (bench/fidelity.ts) and a per-mind fidelity job can share it.
 */

/** Content-word stems of a text, in order (`contentStems`). */
export type Stems = (text: string) => string[];

/** Sparse TF-IDF vector, unit length (empty when the text has no content word). */
export type Vector = ReadonlyMap<string, number>;

/** The IDF of a memory: how rare each stem is among the person's turns. */
export interface Space {
  readonly stems: Stems;
  readonly idf: ReadonlyMap<string, number>;
  /** IDF of a stem no turn uses (the rarest possible). */
  readonly unseen: number;
}

/** Smoothed IDF (as scikit-learn's): ln((1 + N) / (1 + df)) + 1, positive for every stem. */
export function tfidfSpace(turns: readonly string[], stems: Stems): Space {
  const df = new Map<string, number>();
  for (const t of turns) for (const s of new Set(stems(t))) df.set(s, (df.get(s) ?? 0) + 1);
  const n = turns.length;
  const idf = new Map<string, number>();
  for (const [s, d] of df) idf.set(s, Math.log((1 + n) / (1 + d)) + 1);
  return { stems, idf, unseen: Math.log(1 + n) + 1 };
}

/** The unit TF-IDF vector of `text`, leaving out the stems in `without` (the question's, for "beyond the question"). */
export function vectorOf(space: Space, text: string, without?: ReadonlySet<string>): Vector {
  const tf = new Map<string, number>();
  for (const s of space.stems(text)) if (!without?.has(s)) tf.set(s, (tf.get(s) ?? 0) + 1);
  let norm = 0;
  const v = new Map<string, number>();
  for (const [s, n] of tf) {
    const w = n * (space.idf.get(s) ?? space.unseen);
    v.set(s, w);
    norm += w * w;
  }
  if (norm === 0) return v;
  const k = 1 / Math.sqrt(norm);
  for (const [s, w] of v) v.set(s, w * k);
  return v;
}

export function cosine(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let d = 0;
  for (const [s, w] of small) d += w * (large.get(s) ?? 0);
  return d;
}

/** The content stems of a question (removed from every text for "beyond the question"). */
export function questionStems(space: Space, question: string): Set<string> {
  return new Set(space.stems(question));
}

/**
 * Specificity AUC of one simulated answer: the share of `others` (the person's other real
 * answers) that `simulated` is less close to than to `real`; ties count half. Null without others.
 */
export function specificity(space: Space, simulated: string, real: string, others: readonly string[], without?: ReadonlySet<string>): number | null {
  if (others.length === 0) return null;
  const s = vectorOf(space, simulated, without);
  const own = cosine(s, vectorOf(space, real, without));
  let wins = 0;
  for (const o of others) {
    const c = cosine(s, vectorOf(space, o, without));
    wins += own > c ? 1 : own === c ? 0.5 : 0;
  }
  return wins / others.length;
}

/** One held-out question of a conversation set: what was asked, what the person said, what the mind said. */
export interface HeldOut {
  question: string;
  real: string;
  simulated: string;
}

export interface ItemFidelity {
  /** Specificity AUC (null when the set has one question only). */
  specificity: number | null;
  /** The same, the question's words removed from the answer and every reference. */
  beyond: number | null;
}

/**
 * Specificity of every simulated answer of a conversation set, each against the other questions'
 * real answers of the same set.
 */
export function setFidelity(space: Space, items: readonly HeldOut[]): ItemFidelity[] {
  return items.map((it, i) => {
    const others = items.filter((_, j) => j !== i).map((o) => o.real);
    return {
      specificity: specificity(space, it.simulated, it.real, others),
      beyond: specificity(space, it.simulated, it.real, others, questionStems(space, it.question)),
    };
  });
}

/** Persona win of one question: 1 when `mine` is closer to `real` than `theirs` (another person's mind's answer), 0.5 on a tie. */
export function personaWin(space: Space, mine: string, theirs: string, real: string): number {
  const r = vectorOf(space, real);
  const a = cosine(vectorOf(space, mine), r);
  const b = cosine(vectorOf(space, theirs), r);
  return a > b ? 1 : a === b ? 0.5 : 0;
}

/** Index of the turn closest to `text` (first on a tie); -1 when none shares a content stem. */
function closest(space: Space, text: string, turns: readonly string[]): number {
  const q = vectorOf(space, text);
  let best = -1;
  let bestSim = 0;
  turns.forEach((t, i) => {
    const c = cosine(q, vectorOf(space, t));
    if (c > bestSim) {
      best = i;
      bestSim = c;
    }
  });
  return best;
}

/** Baseline: the person's turn most like the question (plain TF-IDF top-1); '' when none shares a word. */
export function tfidfTop1(space: Space, question: string, turns: readonly string[]): string {
  const i = closest(space, question, turns);
  return i < 0 ? '' : turns[i]!;
}

/** Ceiling: the person's single turn most like the real answer (chosen knowing it). */
export function oracleTurn(space: Space, real: string, turns: readonly string[]): string {
  const i = closest(space, real, turns);
  return i < 0 ? '' : turns[i]!;
}
