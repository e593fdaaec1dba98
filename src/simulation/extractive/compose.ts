/**
 * Composing the answer from the person's own sentences. Nothing is paraphrased or invented:
 * the answer is a selection of sentences from the best-ranked turns, trimmed to the ones that
 * bear on the question, about as long as the person usually speaks.
 */
import type { MemoryTurn, PersonaCard } from '../types.ts';
import type { QueryTerm } from './query.ts';
import type { RankedTurn } from './rank.ts';
import { contentStems, sentences, words, type SentenceSpan } from './text.ts';

/** Turns scoring below this share of the best one are not drawn from. */
const MIN_RELATIVE_TURN_SCORE = 0.3;
/** At most this many turns contribute sentences. */
const MAX_SOURCE_TURNS = 5;
/** Weight of a sentence's own relevance against its turn's. */
const SENTENCE_RELEVANCE_WEIGHT = 0.6;
/** Share of its turn's score kept by a sentence that contains no query term. */
const OFF_TOPIC_FACTOR = 0.5;
/** People tend to lead with their point: the first sentence of a turn gets a small bonus. */
const LEAD_BONUS = 0.1;
/** Answer length bounds, in words, whatever the person's habits. */
const MIN_BUDGET = 12;
const MAX_BUDGET = 400;
/** A sentence may overshoot the remaining budget by this factor and still be taken. */
const OVERSHOOT = 1.5;

/** One sentence chosen for the answer. */
export interface UsedSentence {
  turn: MemoryTurn;
  span: SentenceSpan;
  /** Position of the sentence in its turn. */
  index: number;
}

export interface Composition {
  text: string;
  used: UsedSentence[];
}

/** Median of `xs` (0 for none). */
function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Cheap word count (whitespace-separated) for length statistics over many turns. */
function roughWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) <= 32;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/**
 * How many words the answer should have: between the person's usual words per turn (from the
 * persona, else the mean over memory, as the persona measures it) and how long they answered
 * the most similar questions (median of the best three), as a geometric mean so neither
 * dominates.
 */
export function wordBudget(persona: PersonaCard, memory: readonly MemoryTurn[], sources: readonly RankedTurn[]): number {
  const styled = persona.style.wordsPerTurn;
  const usual = typeof styled === 'number' && styled > 0 ? styled : mean(memory.map((t) => roughWords(t.text)));
  const similar = median(sources.slice(0, 3).map((r) => roughWords(r.turn.text)));
  const raw = usual > 0 && similar > 0 ? Math.sqrt(usual * similar) : usual || similar;
  return Math.round(Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, raw)));
}

interface Candidate extends UsedSentence {
  score: number;
  words: number;
  vocab: Set<string>;
}

/** The turns the answer may draw from: the best ones, within reach of the top score. */
export function sourceTurns(ranked: readonly RankedTurn[]): RankedTurn[] {
  const top = ranked[0]?.score ?? 0;
  return ranked.filter((r) => r.score >= top * MIN_RELATIVE_TURN_SCORE).slice(0, MAX_SOURCE_TURNS);
}

/**
 * Choose sentences for the answer: each sentence scored by its turn's rank score and by how
 * many query terms (idf-weighted) it contains itself; picked best-first until the word budget
 * is met; then laid out turn by turn, in the order the person said them.
 */
export function composeAnswer(
  sources: readonly RankedTurn[],
  query: readonly QueryTerm[],
  idf: ReadonlyMap<string, number>,
  budget: number,
): Composition {
  const weight = new Map(query.map((q) => [q.stem, q.weight * (idf.get(q.stem) ?? 0)]));
  const top = sources[0]?.score ?? 0;
  const candidates: Candidate[] = [];
  let maxRelevance = 0;
  const relevance: number[] = [];
  for (const r of sources) {
    sentences(r.turn.text).forEach((span, index) => {
      const stems = contentStems(span.text);
      if (stems.length === 0) return; // "Yeah." or "Right." carries nothing to answer with
      const vocab = new Set(stems);
      let rel = 0;
      for (const s of vocab) rel += weight.get(s) ?? 0;
      maxRelevance = Math.max(maxRelevance, rel);
      relevance.push(rel);
      candidates.push({ turn: r.turn, span, index, score: top > 0 ? r.score / top : 0, words: words(span.text).length, vocab });
    });
  }
  candidates.forEach((c, i) => {
    const rel = relevance[i]!;
    // A sentence naming nothing asked about only pads the answer: it counts half its turn.
    if (rel === 0) c.score *= OFF_TOPIC_FACTOR;
    else c.score += SENTENCE_RELEVANCE_WEIGHT * (rel / maxRelevance) + (c.index === 0 ? LEAD_BONUS : 0);
  });

  const order = candidates
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.score - a.c.score || a.i - b.i)
    .map(({ c }) => c);
  const chosen: Candidate[] = [];
  let total = 0;
  for (const c of order) {
    if (total >= budget) break;
    const remaining = budget - total;
    if (chosen.length > 0 && c.words > remaining * OVERSHOOT) continue;
    if (chosen.some((k) => overlap(k.vocab, c.vocab) >= 0.8)) continue; // said twice, use once
    chosen.push(c);
    total += c.words;
  }

  const turnRank = new Map(sources.map((r, i) => [r.turn.turnId, i]));
  chosen.sort((a, b) => turnRank.get(a.turn.turnId)! - turnRank.get(b.turn.turnId)! || a.index - b.index);
  const used = chosen.map(({ turn, span, index }) => ({ turn, span, index }));
  return { text: used.map((u) => u.span.text).join(' '), used };
}

/** Share of the smaller vocabulary found in the other. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 0;
  let inter = 0;
  for (const x of small) if (large.has(x)) inter++;
  return inter / small.size;
}

/**
 * Whether the person writes with contractions ("I'm", "don't"): the honest "I haven't
 * talked about that" is then phrased the way they would phrase it.
 */
export function usesContractions(memory: readonly MemoryTurn[]): boolean {
  let contractions = 0;
  let total = 0;
  for (const t of memory.slice(0, 200)) {
    for (const w of words(t.text)) {
      total++;
      if (/'(m|re|ve|ll|d|t)$/.test(w)) contractions++;
    }
  }
  // Spoken English runs at roughly 2–4 contractions per 100 words; formal speech near none.
  return total === 0 || contractions / total >= 0.005;
}

/**
 * The honest answer when memory holds nothing relevant: first person, in the person's
 * register, naming what was asked about, and pointing to what they have talked about.
 */
export function nothingRelevantAnswer(query: readonly QueryTerm[], persona: PersonaCard, informal: boolean): string {
  const asked = query.filter((q) => q.fromMessage).map((q) => q.word).slice(0, 3);
  const about = asked.length === 0 ? 'that' : asked.length === 1 ? asked[0]! : `${asked.slice(0, -1).join(', ')} and ${asked.at(-1)!}`;
  const subject = asked.length === 0 ? 'that' : `${about}`;
  const first = informal
    ? `I haven't really talked about ${subject}, so I'm not going to guess at what I'd say.`
    : `I have not spoken about ${subject}, so I will not guess at what I would say.`;
  const topics = persona.topics.map((t) => t.label).filter(Boolean).slice(0, 2);
  if (topics.length === 0) return first;
  const list = topics.length === 1 ? topics[0]! : `${topics[0]!} and ${topics[1]!}`;
  return `${first} ${informal ? "What I've talked about is" : 'What I have spoken about is'} ${list}.`;
}
