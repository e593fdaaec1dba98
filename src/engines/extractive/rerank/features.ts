/**
 * Candidates for the reply and what the reranker knows about each: the best turns by BM25F (what
 * was said and the question it answered) fused with the best by meaning (sentence embeddings of
 * the message against the turn and against the question it answered), each with its passage
 * (the run of sentences the answer would quote, src/engines/extractive/passage.ts) and
 * features: lexical and semantic similarity of the new message to the asked question and to
 * the reply, the reply's length against the budget and its place in the conversation, filler,
 * and how typical it is of what the person answers with (its similarity to the centroid of
 * their turns in memory).
 *
 * The same function feeds the engine and the training script (scripts/train-reranker.ts), so
 * the shipped model scores exactly the features it was trained on.
 */
import type { MemoryTurn } from '../../types.ts';
import { fillerShareOf, passageOf, type Passage, type PassageOptions } from '../passage.ts';
import type { RankedTurn } from '../rank.ts';
import { contentStems } from '../../../lib/language/text.ts';
import { indexTurn, turnEntry } from '../turn-index.ts';

/** Bump with any change of what a feature means (the model file must be retrained). */
export const FEATURE_VERSION = 1;

export const FEATURES = [
  'bm25', // BM25F score relative to the best candidate's (0 when it matches no query term)
  'bm25Rank', // 1 / rank in the BM25F list (0 when absent)
  'coverage', // share of the query's idf mass the turn matches
  'semText', // cosine of the message with the turn
  'semContext', // cosine of the message with the question the turn answered (0 without one)
  'semTextGap', // semText minus the best candidate's
  'semContextGap', // semContext minus the best candidate's
  'contextOverlap', // Jaccard of the content stems of the message and the turn's question
  'passageRelevance', // query weight in the passage, relative to the best candidate's
  'typical', // cosine of the turn with the centroid of the person's turns in memory
  'answers', // the turn answered a question (its context asks something)
  'fill', // passage words / budget (capped at 1)
  'filler', // share of the turn's words in filler sentences
  'opening', // among the first turns of its transcript
  'unlabelled', // from a file without speaker labels
  'recency', // mindset date, 0 = oldest in memory, 1 = newest
] as const;

export type Embed = (text: string) => Float32Array;

export interface Candidate {
  turn: MemoryTurn;
  passage: Passage;
  features: number[];
}

export interface CandidateInput {
  message: string;
  memory: readonly MemoryTurn[];
  ranked: readonly RankedTurn[];
  passage: PassageOptions;
  /** Sentence embeddings (unit vectors, one space for message and turns). */
  embed: Embed;
  /** Unit vector of the message (or of the conversation-widened query). */
  messageVector: Float32Array;
  /** How many of each list are fused. */
  depth?: number;
}

/** Per-memory statistics, computed once per request. */
interface MemoryStats {
  centroid: Float32Array;
  oldest: number;
  span: number;
  /** Memory by snapshot and seq (built on first need: only a reply cut in parts looks its next part up). */
  bySeq: () => ReadonlyMap<string, MemoryTurn>;
  /** Cosine of the message with each turn's text and with its question (first occurrence of an id). */
  semOf: Map<string, { text: number; context: number }>;
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/**
 * The sentence vectors of a turn's text and context under `embed`, kept with the turn's cache
 * entry (for one embedding function at a time): looking a long text up in a cache keyed by the
 * text hashes all of it, on every request, for each of hundreds of candidates.
 */
export function turnVectors(turn: MemoryTurn, embed: Embed): { text: Float32Array; context: Float32Array | null } {
  const facts = turnEntry(turn).facts;
  let v = facts.vectors;
  if (!v || v.embed !== embed) {
    v = { embed, text: embed(turn.text), context: turn.context ? embed(turn.context) : null };
    facts.vectors = v;
  }
  return v;
}

/** Distinct content stems of the question a turn answered (cached with the turn). */
function contextStemsOf(turn: MemoryTurn): ReadonlySet<string> {
  const facts = turnEntry(turn).facts;
  return (facts.contextStems ??= turn.context ? new Set(contentStems(turn.context)) : new Set<string>());
}

/** One pass over memory: the centroid, the dates, and the message's similarity to each turn. */
function stats(memory: readonly MemoryTurn[], embed: Embed, messageVector: Float32Array): MemoryStats {
  let centroid: Float32Array | null = null;
  let oldest = Infinity;
  let newest = -Infinity;
  const semOf = new Map<string, { text: number; context: number }>();
  for (const t of memory) {
    const vectors = turnVectors(t, embed);
    const v = vectors.text;
    centroid ??= new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) centroid[i]! += v[i]!;
    if (!semOf.has(t.turnId)) semOf.set(t.turnId, { text: dot(messageVector, v), context: vectors.context ? dot(messageVector, vectors.context) : 0 });
    const ms = t.mindsetDate.getTime();
    if (ms < oldest) oldest = ms;
    if (ms > newest) newest = ms;
  }
  const c = centroid ?? new Float32Array(0);
  const norm = Math.sqrt(dot(c, c));
  if (norm > 0) for (let i = 0; i < c.length; i++) c[i]! /= norm;
  let bySeq: Map<string, MemoryTurn> | undefined;
  const parts = () => {
    if (!bySeq) {
      bySeq = new Map();
      for (const t of memory) bySeq.set(`${t.snapshotId}\u0000${t.seq}`, t);
    }
    return bySeq;
  };
  return { centroid: c, oldest, span: newest > oldest ? newest - oldest : 0, bySeq: parts, semOf };
}

/** The next part of the same reply (ingest cut it in parts), when it is in memory. */
export function nextPart(turn: MemoryTurn, bySeq: ReadonlyMap<string, MemoryTurn>): MemoryTurn | undefined {
  if (turn.replyWords === undefined) return undefined;
  const next = bySeq.get(`${turn.snapshotId}\u0000${turn.seq + 1}`);
  return next && next.replyWords === turn.replyWords ? next : undefined;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * The `depth` turns most similar to the message (by text or by the question answered), best
 * first; ties by transcript order, then by order in memory (the last occurrence of a repeated
 * id). The same order as sorting all of memory, without sorting all of it.
 */
function semanticTop(memory: readonly MemoryTurn[], semOf: ReadonlyMap<string, { text: number; context: number }>, depth: number): MemoryTurn[] {
  if (depth <= 0) return [];
  // Memory order of each distinct id as a Map keeps it: first insertion's place, last value.
  const last = new Map<string, { t: MemoryTurn; at: number }>();
  for (const t of memory) {
    const seen = last.get(t.turnId);
    last.set(t.turnId, { t, at: seen ? seen.at : last.size });
  }
  const top: { t: MemoryTurn; s: number; at: number }[] = [];
  const before = (a: { t: MemoryTurn; s: number; at: number }, b: { t: MemoryTurn; s: number; at: number }) => b.s - a.s || a.t.seq - b.t.seq || a.at - b.at;
  for (const { t, at } of last.values()) {
    const sem = semOf.get(t.turnId)!;
    const x = { t, s: Math.max(sem.text, sem.context), at };
    if (top.length === depth && before(x, top[depth - 1]!) >= 0) continue;
    let i = Math.min(top.length, depth - 1);
    if (top.length < depth) top.push(x);
    while (i > 0 && before(x, top[i - 1]!) < 0) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = x;
  }
  return top.map((x) => x.t);
}

/** Candidates (BM25F ∪ semantic, each list `depth` deep) with their passages and features. */
export function candidatesFor(input: CandidateInput): Candidate[] {
  const depth = input.depth ?? 12;
  const st = stats(input.memory, input.embed, input.messageVector);
  const msgStems = new Set(contentStems(input.message));
  const semOf = st.semOf;
  const bm25Rank = new Map<string, number>();
  input.ranked.forEach((r, i) => {
    if (!bm25Rank.has(r.turn.turnId)) bm25Rank.set(r.turn.turnId, i + 1);
  });
  const byId = new Map<string, { turn: MemoryTurn; ranked?: RankedTurn }>();
  for (const r of input.ranked.slice(0, depth)) byId.set(r.turn.turnId, { turn: r.turn, ranked: r });
  const rankedById = new Map(input.ranked.map((r) => [r.turn.turnId, r]));
  for (const t of semanticTop(input.memory, semOf, depth)) if (!byId.has(t.turnId)) byId.set(t.turnId, { turn: t, ranked: rankedById.get(t.turnId) });

  const rows: { turn: MemoryTurn; passage: Passage; raw: Record<(typeof FEATURES)[number], number> }[] = [];
  for (const { turn, ranked } of byId.values()) {
    const passage = passageOf(turn, input.passage, turn.replyWords === undefined ? undefined : nextPart(turn, st.bySeq()));
    if (passage.used.length === 0) continue;
    const sem = semOf.get(turn.turnId)!;
    const ctxStems = contextStemsOf(turn);
    const rank = bm25Rank.get(turn.turnId);
    rows.push({
      turn,
      passage,
      raw: {
        bm25: ranked?.score ?? 0,
        bm25Rank: rank ? 1 / rank : 0,
        coverage: ranked?.coverage ?? 0,
        semText: sem.text,
        semContext: sem.context,
        semTextGap: sem.text,
        semContextGap: sem.context,
        contextOverlap: jaccard(msgStems, ctxStems),
        passageRelevance: passage.relevance,
        typical: st.centroid.length ? dot(st.centroid, turnVectors(turn, input.embed).text) : 0,
        answers: indexTurn(turn).context.asks ? 1 : 0,
        fill: Math.min(1, passage.words / Math.max(1, input.passage.budget)),
        filler: fillerShareOf(turn),
        opening: turn.seq < 6 ? 1 : 0,
        unlabelled: turn.unlabelled ? 1 : 0,
        recency: st.span > 0 ? (turn.mindsetDate.getTime() - st.oldest) / st.span : 0,
      },
    });
  }
  const maxBm25 = Math.max(0, ...rows.map((r) => r.raw.bm25));
  const maxRel = Math.max(0, ...rows.map((r) => r.raw.passageRelevance));
  const maxText = Math.max(-1, ...rows.map((r) => r.raw.semText));
  const maxContext = Math.max(-1, ...rows.map((r) => r.raw.semContext));
  return rows.map((r) => {
    r.raw.bm25 = maxBm25 > 0 ? r.raw.bm25 / maxBm25 : 0;
    r.raw.passageRelevance = maxRel > 0 ? r.raw.passageRelevance / maxRel : 0;
    r.raw.semTextGap = r.raw.semText - maxText;
    r.raw.semContextGap = r.raw.semContext - maxContext;
    return { turn: r.turn, passage: r.passage, features: FEATURES.map((f) => r.raw[f]) };
  });
}
