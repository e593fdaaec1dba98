/**
 * Full-text search in process: an inverted index of a mind's turns in scope, ranked with BM25.
 * In the database, testing and ts_ranking the ~2k matching turns of a 100-transcript mind took
 * 25 of a request's 32 ms on PGlite (PostgreSQL's full-text search in WebAssembly, on the
 * service's event loop) and 15 of 37 ms on a PostgreSQL server (bench/simulate.ts); here the
 * same candidates cost about a millisecond.
 *
 * What it matches is what the database's query matches: the person's turns whose text (or the
 * question they answered) contains any of the terms, a two-word term only as adjacent words.
 * Words are the engine's content stems (Porter; the database uses Snowball's English stemmer,
 * which agrees on nearly every word). How it ranks differs on purpose: ts_rank counts
 * occurrences and ignores how common a word is, so a turn saying "people" three times outranked
 * one naming the topic; BM25 weighs each word by its rarity in this mind's memory and saturates
 * repeats. The question a turn answered counts at 0.4 of its own words, as the stored tsvector's
 * weights B and A do.
 *
 * The index keeps the turns it was built from: retrieval then reads only the candidates' ids and
 * ranks from the database, not their text again (on PGlite, moving 300 turns' text through its
 * wire protocol cost more than ranking them).
 *
 * Indexes are cached per (mind, fingerprint of the snapshots in scope), like the vector indexes
 * (src/features/memory/vector-index.ts): a new or reprocessed snapshot changes the fingerprint.
 */
import { rawWords, termOf } from '../../lib/language/text.ts';
import type { MemoryTurn } from '../../engines/types.ts';
import * as bm25 from '../../lib/retrieval/bm25.ts';

/** What the index reads of a turn; it keeps the whole turn, so retrieval need not read it again. */
export type LexicalTurn = Pick<MemoryTurn, 'turnId' | 'text' | 'context' | 'mindsetDate' | 'seq'>;

export interface LexicalHit {
  turnId: string;
  /** 1-based. */
  rank: number;
  score: number;
}

/** The question a turn answered, against the turn's own words (the tsvector's B and A weights). */
const CONTEXT_WEIGHT = 0.4;

/** A field's content stems as term ids, every field of every turn in one array. */
interface Sequences {
  ids: Int32Array;
  /** Field i spans ids[start[i] .. start[i + 1]). */
  start: Int32Array;
}

function sequences(fields: readonly (string | null)[], termIds: Map<string, number>): Sequences {
  const ids: number[] = [];
  const start = new Int32Array(fields.length + 1);
  fields.forEach((field, i) => {
    start[i] = ids.length;
    if (!field) return;
    for (const raw of rawWords(field)) {
      const t = termOf(raw);
      if (!t) continue;
      let id = termIds.get(t);
      if (id === undefined) termIds.set(t, (id = termIds.size));
      ids.push(id);
    }
  });
  start[fields.length] = ids.length;
  return { ids: Int32Array.from(ids), start };
}

/** Occurrences of term `a` immediately followed by `b` in field `i`. */
function adjacent(seq: Sequences, i: number, a: number, b: number): number {
  let n = 0;
  for (let p = seq.start[i]!, end = seq.start[i + 1]! - 1; p < end; p++) if (seq.ids[p] === a && seq.ids[p + 1] === b) n++;
  return n;
}

export class LexicalIndex<T extends LexicalTurn = LexicalTurn> {
  readonly size: number;
  private readonly turns: T[];
  private readonly positions: Map<string, number>;
  private readonly textBytes: number;
  private readonly termIds = new Map<string, number>();
  private readonly text: Sequences;
  private readonly context: Sequences;
  private readonly avgText: number;
  private readonly avgContext: number;
  /** Term id → the turns holding it (ascending), with its count in the text and in the context. */
  private readonly postings: { turns: Int32Array; tfText: Int32Array; tfContext: Int32Array }[] = [];

  constructor(turns: readonly T[]) {
    // Sorted by id: ranks (and so tie-breaking) do not depend on the order rows were read in.
    const sorted = [...turns].sort((a, b) => (a.turnId < b.turnId ? -1 : a.turnId > b.turnId ? 1 : 0));
    this.turns = sorted;
    this.positions = new Map(sorted.map((t, i) => [t.turnId, i]));
    this.textBytes = sorted.reduce((n, t) => n + 2 * (t.text.length + (t.context?.length ?? 0)), 0);
    this.size = sorted.length;
    this.text = sequences(sorted.map((t) => t.text), this.termIds);
    this.context = sequences(sorted.map((t) => t.context), this.termIds);
    this.avgText = this.text.ids.length / Math.max(1, this.size);
    this.avgContext = this.context.ids.length / Math.max(1, this.size);

    const lists: { turns: number[]; tfText: number[]; tfContext: number[] }[] = Array.from({ length: this.termIds.size }, () => ({ turns: [], tfText: [], tfContext: [] }));
    const counts = new Map<number, [number, number]>();
    for (let i = 0; i < this.size; i++) {
      counts.clear();
      for (const [seq, slot] of [[this.text, 0], [this.context, 1]] as const) {
        for (let p = seq.start[i]!; p < seq.start[i + 1]!; p++) {
          const id = seq.ids[p]!;
          let c = counts.get(id);
          if (!c) counts.set(id, (c = [0, 0]));
          c[slot]++;
        }
      }
      for (const [id, [t, c]] of counts) {
        const list = lists[id]!;
        list.turns.push(i);
        list.tfText.push(t);
        list.tfContext.push(c);
      }
    }
    this.postings = lists.map((l) => ({ turns: Int32Array.from(l.turns), tfText: Int32Array.from(l.tfText), tfContext: Int32Array.from(l.tfContext) }));
  }

  get byteLength(): number {
    let postings = 0;
    for (const p of this.postings) postings += 3 * p.turns.byteLength;
    return this.textBytes + this.text.ids.byteLength + this.context.ids.byteLength + 8 * this.size + postings + this.termIds.size * 60 + this.size * 300;
  }

  /**
   * Turn ids in the order the database's retrieval lists them when it reads the scope: newest
   * conversation first, then transcript order (`seqDescending`: latest turn first), at most
   * `limit`, of the turns `keep` accepts. Retrieval's other per-scope lists (opening turns,
   * self-descriptions, the latest turns) come from here when the index holds the scope.
   */
  newest(limit: number, keep: (turn: T) => boolean = () => true, seqDescending = false): string[] {
    const kept = this.turns.filter(keep);
    kept.sort((a, b) => b.mindsetDate.getTime() - a.mindsetDate.getTime() || (seqDescending ? b.seq - a.seq : a.seq - b.seq) || (a.turnId < b.turnId ? -1 : 1));
    return kept.slice(0, Math.max(0, limit)).map((t) => t.turnId);
  }

  /** The indexed turn with this id (as it was read when the index was built). */
  turn(turnId: string): T | undefined {
    const at = this.positions.get(turnId);
    return at === undefined ? undefined : this.turns[at];
  }

  /**
   * The best `k` turns for `terms` (plain words, or two words separated by a space for a
   * phrase), best first: BM25 over the turn's words plus CONTEXT_WEIGHT × BM25 over its
   * question, then newest conversation, then transcript order.
   */
  search(terms: readonly string[], k: number): LexicalHit[] {
    const scores = new Map<number, number>();
    const n = this.size;
    const idf = (df: number) => bm25.idf(df, n);
    const saturate = (tf: number, length: number, avg: number) => bm25.saturate(bm25.normalisedTf(tf, length, avg));
    const add = (i: number, weight: number, tfText: number, tfContext: number) => {
      const lt = this.text.start[i + 1]! - this.text.start[i]!;
      const lc = this.context.start[i + 1]! - this.context.start[i]!;
      const s = weight * (saturate(tfText, lt, this.avgText) + CONTEXT_WEIGHT * saturate(tfContext, lc, this.avgContext));
      if (s > 0) scores.set(i, (scores.get(i) ?? 0) + s);
    };
    const seen = new Set<string>();
    for (const term of terms) {
      const parts = term.trim().split(/\s+/).map((w) => termOf(w));
      if (parts.some((p) => !p)) continue;
      const key = parts.join(' ');
      if (seen.has(key)) continue;
      seen.add(key);
      const ids = parts.map((p) => this.termIds.get(p));
      if (ids.some((id) => id === undefined)) continue;
      if (ids.length === 1) {
        const p = this.postings[ids[0]!]!;
        const w = idf(p.turns.length);
        for (let j = 0; j < p.turns.length; j++) add(p.turns[j]!, w, p.tfText[j]!, p.tfContext[j]!);
      } else if (ids.length === 2) {
        // A phrase: the turns holding both words, counted where they are adjacent.
        const [a, b] = ids as [number, number];
        const pa = this.postings[a]!;
        const inB = new Set(this.postings[b]!.turns);
        const found: [number, number, number][] = [];
        for (const i of pa.turns) {
          if (!inB.has(i)) continue;
          const t = adjacent(this.text, i, a, b);
          const c = adjacent(this.context, i, a, b);
          if (t + c > 0) found.push([i, t, c]);
        }
        const w = idf(found.length);
        for (const [i, t, c] of found) add(i, w, t, c);
      }
    }
    const ranked = [...scores].sort(([a, sa], [b, sb]) => {
      const ta = this.turns[a]!;
      const tb = this.turns[b]!;
      return sb - sa || tb.mindsetDate.getTime() - ta.mindsetDate.getTime() || ta.seq - tb.seq || a - b;
    });
    return ranked.slice(0, Math.max(0, k)).map(([i, score], r) => ({ turnId: this.turns[i]!.turnId, rank: r + 1, score }));
  }
}
