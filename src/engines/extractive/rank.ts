/**
 * Ranking the candidate memory for a query: BM25F over two fields of each turn — what the
 * person said (`text`) and the question they were answering (`context`) — so a new question
 * finds old answers both by their words and by the old question's words. A mild boost for
 * recent mindsets, and near-duplicate turns suppressed so one thing said twice is used once.
 */
import type { MemoryTurn } from '../types.ts';
import * as bm25 from '../../lib/retrieval/bm25.ts';
import { splitsOf, type QueryTerm } from '../../lib/language/understand.ts';
import { stem } from '../../lib/language/text.ts';
import { countOf, indexTurn, knownTermId, turnEntry, vocabularyGeneration, type FieldIndex } from './turn-index.ts';

/** Length normalisation of the old question: a question is short and its length says little. */
const B_CONTEXT = 0.5;
/**
 * A match in the old question counts half as much as one in the answer: a turn found only through
 * its question ("…and where can people learn more about jobs to be done?" → "LinkedIn is probably
 * the best place") is less often an answer than one that says the words itself.
 */
const W_TEXT = 1;
const W_CONTEXT = 0.5;
/** The newest mindset gets at most this much more score than the oldest. */
const RECENCY_BOOST = 0.1;
/** Turns sharing this much of their content vocabulary with a better one are duplicates. */
const DUPLICATE_JACCARD = 0.7;
/** How deep in the ranking duplicates are looked for (the rest is never used anyway). */
const DEDUP_DEPTH = 40;

export interface RankedTurn {
  turn: MemoryTurn;
  score: number;
  /** Share (0–1) of the query's idf-weighted mass that this turn matches, in text or context. */
  coverage: number;
  /** Stems of query terms the turn matches. */
  matched: string[];
}

export interface Ranking {
  ranked: RankedTurn[];
  /** Inverse document frequency of each query stem over the candidates. */
  idf: Map<string, number>;
  /** The query as ranked: with the parts of compounds the memory writes as two words. */
  query: QueryTerm[];
  /** A message stem the memory never uses as one word → the two stems it writes instead. */
  splits: Map<string, [string, string]>;
}

/** Each part of a split compound counts this share of the compound's weight. */
const SPLIT_PART_WEIGHT = 0.7;

/**
 * Compounds written apart: a message word that no candidate uses ("healthcare") but whose two
 * halves some candidate uses together ("health care") is searched as those halves. The split
 * chosen is the one the most candidates use together; generic, with no word list.
 */
function expandCompounds(
  query: readonly QueryTerm[],
  indexed: readonly { text: FieldIndex; context: FieldIndex }[],
): { query: QueryTerm[]; splits: Map<string, [string, string]> } {
  const splits = new Map<string, [string, string]>();
  const has = (i: number, id: number) => countOf(indexed[i]!.text, id) > 0 || countOf(indexed[i]!.context, id) > 0;
  const out = [...query];
  for (const term of query) {
    if (!term.fromMessage) continue;
    const id = knownTermId(term.stem);
    if (id >= 0 && indexed.some((_, i) => has(i, id))) continue;
    let best: { a: string; b: string; together: number } | null = null;
    for (const pair of splitsOf(term.word)) {
      const [a, b] = pair.split(' ').map((w) => stem(w)) as [string, string];
      const ia = knownTermId(a);
      const ib = knownTermId(b);
      if (ia < 0 || ib < 0) continue;
      let together = 0;
      for (let i = 0; i < indexed.length; i++) if (has(i, ia) && has(i, ib)) together++;
      if (together > 0 && (!best || together > best.together)) best = { a, b, together };
    }
    if (!best) continue;
    splits.set(term.stem, [best.a, best.b]);
    for (const [part, word] of [[best.a, best.a], [best.b, best.b]] as const) {
      const weight = term.weight * SPLIT_PART_WEIGHT;
      const at = out.findIndex((q) => q.stem === part);
      if (at < 0) out.push({ stem: part, word, weight, fromMessage: true });
      else if (out[at]!.weight < weight) out[at] = { ...out[at]!, weight, fromMessage: true };
    }
  }
  return { query: out, splits };
}

/** Index every turn; if the shared vocabulary was reset meanwhile, index them again. */
function indexAll(turns: readonly MemoryTurn[]): { text: FieldIndex; context: FieldIndex }[] {
  for (;;) {
    const before = vocabularyGeneration();
    const indexed = turns.map((t) => {
      const e = turnEntry(t);
      return { text: e.textIndex, context: e.contextIndex };
    });
    if (vocabularyGeneration() === before) return indexed;
  }
}


/**
 * Rank `memory` for `query`. `coverageTerms` limits which query stems count for
 * `coverage` (the message's own terms unless the message is a follow-up).
 */
export function rankMemory(memory: readonly MemoryTurn[], asked: readonly QueryTerm[], coverageTerms?: ReadonlySet<string>): Ranking {
  const unique = dedupeById(memory);
  const n = unique.length;
  const indexed = indexAll(unique);
  const { query, splits } = expandCompounds(asked, indexed);
  const byStem = new Map(query.map((q) => [q.stem, q]));
  // Counts of each query stem (in byStem's order) in each turn's text and context: flat arrays,
  // turn-major, rather than a map per turn and field.
  const stems = [...byStem.keys()];
  const terms = [...byStem.values()];
  const ids = stems.map((q) => knownTermId(q));
  const nq = stems.length;
  const tfText = new Uint32Array(n * nq);
  const tfContext = new Uint32Array(n * nq);
  const textLength = new Uint32Array(n);
  const contextLength = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const { text, context } = indexed[i]!;
    textLength[i] = text.length;
    contextLength[i] = context.length;
    for (let k = 0; k < nq; k++) {
      if (text.length > 0) tfText[i * nq + k] = countOf(text, ids[k]!);
      if (context.length > 0) tfContext[i * nq + k] = countOf(context, ids[k]!);
    }
  }

  let textTotal = 0;
  let contextTotal = 0;
  let withContext = 0;
  for (let i = 0; i < n; i++) {
    textTotal += textLength[i]!;
    if (contextLength[i]! > 0) {
      withContext++;
      contextTotal += contextLength[i]!;
    }
  }
  const avgText = Math.max(1, textTotal / Math.max(1, n));
  const avgContext = Math.max(1, contextTotal / Math.max(1, withContext));

  const df = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < nq; k++) if (tfText[i * nq + k]! > 0 || tfContext[i * nq + k]! > 0) df.set(stems[k]!, (df.get(stems[k]!) ?? 0) + 1);
  }
  const idf = new Map<string, number>();
  for (const q of byStem.keys()) idf.set(q, bm25.idf(df.get(q) ?? 0, n));
  // A preamble's word never counts for more than a word of the main ask, however rare it is.
  const mainIdf = query.filter((q) => q.fromMessage && !q.preamble && !q.joined).map((q) => idf.get(q.stem)!);
  if (mainIdf.length > 0) {
    const floor = Math.min(...mainIdf);
    for (const q of query) if (q.preamble) idf.set(q.stem, Math.min(idf.get(q.stem)!, floor));
  }
  // A phrase written as one word ("middleclass") is the same idea as the two words: it is worth no
  // more than they are, however rare that spelling.
  for (const q of query) {
    if (!q.joined) continue;
    const parts = q.joined.map((p) => idf.get(p) ?? bm25.idf(0, n));
    idf.set(q.stem, Math.min(idf.get(q.stem)!, Math.max(...parts)));
  }

  const coverageSet = coverageTerms && coverageTerms.size > 0 ? coverageTerms : new Set(byStem.keys());
  let coverageMass = 0;
  for (const q of coverageSet) coverageMass += (byStem.get(q)?.weight ?? 0) * (idf.get(q) ?? 0);

  let oldest = Infinity;
  let newest = -Infinity;
  for (const t of unique) {
    const ms = t.mindsetDate.getTime();
    if (ms < oldest) oldest = ms;
    if (ms > newest) newest = ms;
  }
  const span = n > 0 ? newest - oldest : 0;

  const idfOfTerm = stems.map((q) => idf.get(q)!);
  const inCoverage = stems.map((q) => coverageSet.has(q));
  const ranked: RankedTurn[] = [];
  for (let i = 0; i < n; i++) {
    let score = 0;
    let covered = 0;
    const matched: string[] = [];
    for (let k = 0; k < nq; k++) {
      const inText = tfText[i * nq + k]!;
      const inContext = tfContext[i * nq + k]!;
      if (inText === 0 && inContext === 0) continue;
      const tf =
        W_TEXT * bm25.normalisedTf(inText, textLength[i]!, avgText) + W_CONTEXT * bm25.normalisedTf(inContext, contextLength[i]!, avgContext, B_CONTEXT);
      const w = idfOfTerm[k]!;
      score += terms[k]!.weight * w * bm25.saturate(tf);
      if (inCoverage[k]) covered += terms[k]!.weight * w;
      matched.push(stems[k]!);
    }
    if (score <= 0) continue;
    const turn = unique[i]!;
    const recency = span > 0 ? (turn.mindsetDate.getTime() - oldest) / span : 0;
    ranked.push({
      turn,
      score: score * (1 + RECENCY_BOOST * recency),
      coverage: coverageMass > 0 ? covered / coverageMass : 0,
      matched,
    });
  }
  // Ties broken by recency, then by transcript order and id, so the order never depends on input order.
  ranked.sort(
    (a, b) =>
      b.score - a.score ||
      b.turn.mindsetDate.getTime() - a.turn.mindsetDate.getTime() ||
      a.turn.seq - b.turn.seq ||
      (a.turn.turnId < b.turn.turnId ? -1 : a.turn.turnId > b.turn.turnId ? 1 : 0),
  );
  return { ranked: suppressDuplicates(ranked), idf, query, splits };
}

function dedupeById(memory: readonly MemoryTurn[]): MemoryTurn[] {
  const seen = new Set<string>();
  const out: MemoryTurn[] = [];
  for (const t of memory) {
    if (seen.has(t.turnId)) continue;
    seen.add(t.turnId);
    out.push(t);
  }
  return out;
}

/** Drop turns that repeat a better-ranked one (same content vocabulary, Jaccard ≥ 0.7). */
function suppressDuplicates(ranked: RankedTurn[]): RankedTurn[] {
  const kept: { r: RankedTurn; vocab: ReadonlySet<number> }[] = [];
  const out: RankedTurn[] = [];
  for (let i = 0; i < ranked.length; i++) {
    const r = ranked[i]!;
    if (i >= DEDUP_DEPTH) {
      out.push(r);
      continue;
    }
    const facts = turnEntry(r.turn).facts;
    const vocab = (facts.vocabulary ??= new Set(indexTurn(r.turn).text.terms));
    if (kept.some((k) => jaccard(k.vocab, vocab) >= DUPLICATE_JACCARD)) continue;
    kept.push({ r, vocab });
    out.push(r);
  }
  return out;
}

export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}
