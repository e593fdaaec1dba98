/**
 * Tokenised turns, cached. A snapshot's turns never change, and the same mind's turns come
 * back request after request, so each turn's content stems are computed once and kept as a
 * sorted array of interned term ids: counting a query term in a turn is then a binary search,
 * and ranking hundreds of candidates costs well under a millisecond once they are cached.
 * The cache is keyed by turn id and checked against the text and context, so a changed turn is
 * re-read; it is a bounded LRU. The same entry holds the rest of what is derived from the turn
 * alone — its sentences, their words and stems, filler share, sentence vectors — computed once
 * per turn rather than once per request (the passage and reranker code fill those slots).
 */
import type { MemoryTurn } from '../types.ts';
import { asksSomething, rawWords, spokenSentences, termOf, type SentenceSpan } from '../../lib/language/text.ts';

/** One field of a turn: its content-term ids, sorted (repeats kept), and its content length. */
export interface FieldIndex {
  terms: Uint32Array;
  length: number;
  /** Word tokens in all (content or not): the field's length as spoken. */
  words: number;
  /** Whether the field asks something (contains "?", or a question-shaped caption line: `asksSomething`). */
  asks: boolean;
}

/**
 * Everything derived from one turn's text and context that requests reuse: the field indexes,
 * its sentences, and slots the passage and reranker code fill on first use (`TurnFacts`).
 */
export interface TurnEntry {
  /**
   * The text and context it was derived from. Once a turn is found equal, its own strings take
   * their place: the next lookups of the same request compare the same strings, which is a
   * pointer comparison rather than one of a thousand characters.
   */
  text: string;
  context: string | null;
  readonly generation: number;
  readonly textIndex: FieldIndex;
  readonly contextIndex: FieldIndex;
  /** When it was last looked up by id (a tick of `clock`): the least recently used are evicted. */
  used: number;
  /** Filled on first use by their owners (sentences here; the rest in passage.ts and rerank/). */
  facts: TurnFacts;
}

/** Lazily computed facts of a turn; each belongs to the module that fills it. */
export interface TurnFacts {
  sentences?: readonly SentenceSpan[];
  /** Distinct content-term ids of the text (for near-duplicate detection). */
  vocabulary?: ReadonlySet<number>;
  /** Content stems of the context (the question the turn answered), distinct. */
  contextStems?: ReadonlySet<string>;
  fillerShare?: number;
  /** Words (whitespace-separated) and contractions of the text: the person's register. */
  register?: { words: number; contractions: number };
  /** Sentence vectors of the text and the context, for the embedding function `embed` (one at a time). */
  vectors?: { embed: unknown; text: Float32Array; context: Float32Array | null };
}

/** Turns kept (about 150 terms each, 4 bytes a term, with their sentences: a few tens of MB at the limit). */
export const CACHE_LIMIT = 30_000;
/** Distinct stems interned before the vocabulary (and with it the cache) starts afresh. */
const VOCABULARY_LIMIT = 500_000;

const termIds = new Map<string, number>();
const cache = new Map<string, TurnEntry>();
/** Share of the cache evicted at once when it is full (least recently used first). */
const EVICT_SHARE = 0.1;
let clock = 0;
let generation = 0;

/** Changes whenever the vocabulary starts afresh: indexes from before are then stale. */
export function vocabularyGeneration(): number {
  return generation;
}

/** The id of a stem, interning it if new. */
export function termId(stem: string): number {
  let id = termIds.get(stem);
  if (id === undefined) {
    if (termIds.size >= VOCABULARY_LIMIT) {
      termIds.clear();
      cache.clear(); // cached ids would no longer mean the same stems
      generation++;
    }
    id = termIds.size;
    termIds.set(stem, id);
  }
  return id;
}

/** The id of a stem if it was ever seen, else -1 (then no turn can contain it). */
export function knownTermId(stem: string): number {
  return termIds.get(stem) ?? -1;
}

function indexField(text: string | null): FieldIndex {
  if (!text) return { terms: new Uint32Array(0), length: 0, words: 0, asks: false };
  const ids: number[] = [];
  const raws = rawWords(text);
  for (const raw of raws) {
    const s = termOf(raw);
    if (s) ids.push(termId(s));
  }
  const terms = Uint32Array.from(ids).sort();
  return { terms, length: terms.length, words: raws.length, asks: asksSomething(text) };
}

function fresh(e: TurnEntry, turn: MemoryTurn): boolean {
  if (e.generation !== generation || e.text !== turn.text || e.context !== turn.context) return false;
  e.text = turn.text;
  e.context = turn.context;
  return true;
}

/**
 * The cached entry of `turn`: made anew when its text or context differs from the cached one (or
 * the vocabulary started afresh), evicting the least recently used turns when the cache is full.
 */
export function turnEntry(turn: MemoryTurn): TurnEntry {
  let entry = cache.get(turn.turnId);
  if (entry && fresh(entry, turn)) {
    // Stamped rather than moved to the end of the map: thousands of hits per request, and
    // deleting and re-inserting each one costs more than the rare eviction's sort.
    entry.used = ++clock;
    return entry;
  }
  for (;;) {
    const before = generation;
    const textIndex = indexField(turn.text);
    const contextIndex = indexField(turn.context);
    // Interning may have started the vocabulary afresh midway: then index again.
    if (generation !== before) continue;
    entry = { text: turn.text, context: turn.context, generation, textIndex, contextIndex, used: ++clock, facts: {} };
    break;
  }
  if (!cache.has(turn.turnId) && cache.size >= CACHE_LIMIT) evictLeastRecentlyUsed();
  cache.set(turn.turnId, entry);
  return entry;
}

/** Drops the least recently used tenth of the cache. */
function evictLeastRecentlyUsed(): void {
  const stamps = [...cache.values()].map((e) => e.used).sort((a, b) => a - b);
  const below = stamps[Math.max(1, Math.floor(cache.size * EVICT_SHARE)) - 1]!;
  for (const [id, e] of cache) if (e.used <= below) cache.delete(id);
}

/** How many turns the cache holds now (for tests of its bound). */
export function cachedTurns(): number {
  return cache.size;
}

/** The indexed text and context of `turn`, from the cache when the text is unchanged. */
export function indexTurn(turn: MemoryTurn): { text: FieldIndex; context: FieldIndex } {
  const entry = turnEntry(turn);
  return { text: entry.textIndex, context: entry.contextIndex };
}

/** How many times term `id` occurs in `field` (binary search over the sorted ids). */
export function countOf(field: FieldIndex, id: number): number {
  if (id < 0) return 0;
  const a = field.terms;
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < a.length && a[end] === id) end++;
  return end - lo;
}

/** The sentences of `turn` (`spokenSentences`), from the cache when its text is unchanged. */
export function sentencesOf(turn: MemoryTurn): readonly SentenceSpan[] {
  const facts = turnEntry(turn).facts;
  return (facts.sentences ??= spokenSentences(turn.text));
}
