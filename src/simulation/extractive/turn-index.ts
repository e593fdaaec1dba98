/**
 * Tokenised turns, cached. A snapshot's turns never change, and the same mind's turns come
 * back request after request, so each turn's content stems are computed once and kept as a
 * sorted array of interned term ids: counting a query term in a turn is then a binary search,
 * and ranking hundreds of candidates costs well under a millisecond once they are cached.
 * The cache is keyed by turn id and checked against the text, so a changed turn is re-read.
 * A turn's sentences are cached the same way (composing and introducing split the same turns
 * request after request).
 */
import type { MemoryTurn } from '../types.ts';
import { asksSomething, rawWords, spokenSentences, termOf, type SentenceSpan } from './text.ts';

/** One field of a turn: its content-term ids, sorted (repeats kept), and its content length. */
export interface FieldIndex {
  terms: Uint32Array;
  length: number;
  /** Word tokens in all (content or not): the field's length as spoken. */
  words: number;
  /** Whether the field asks something (contains "?", or a question-shaped caption line: `asksSomething`). */
  asks: boolean;
}

interface Entry {
  text: string;
  context: string | null;
  textIndex: FieldIndex;
  contextIndex: FieldIndex;
}

/** Turns kept (about 150 terms each, 4 bytes a term: ~20 MB at the limit). */
const CACHE_LIMIT = 30_000;
/** Distinct stems interned before the vocabulary (and with it the cache) starts afresh. */
const VOCABULARY_LIMIT = 500_000;

const termIds = new Map<string, number>();
const cache = new Map<string, Entry>();
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

/**
 * The entry of `id` in an LRU map when `fresh` says it still matches its turn, else one made
 * anew (evicting the least recently used entry when the map is full).
 */
function cachedFor<E>(map: Map<string, E>, id: string, fresh: (e: E) => boolean, make: () => E): E {
  const hit = map.get(id);
  if (hit && fresh(hit)) {
    // Refresh its place so the least recently used turns are the ones evicted.
    map.delete(id);
    map.set(id, hit);
    return hit;
  }
  const entry = make();
  if (map.size >= CACHE_LIMIT) map.delete(map.keys().next().value!);
  map.set(id, entry);
  return entry;
}

/** The indexed text and context of `turn`, from the cache when the text is unchanged. */
export function indexTurn(turn: MemoryTurn): { text: FieldIndex; context: FieldIndex } {
  const entry = cachedFor(
    cache,
    turn.turnId,
    (e) => e.text === turn.text && e.context === turn.context,
    (): Entry => ({ text: turn.text, context: turn.context, textIndex: indexField(turn.text), contextIndex: indexField(turn.context) }),
  );
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

const sentenceCache = new Map<string, { text: string; spans: readonly SentenceSpan[] }>();

/** The sentences of `turn` (`spokenSentences`), from the cache when its text is unchanged. */
export function sentencesOf(turn: MemoryTurn): readonly SentenceSpan[] {
  return cachedFor(sentenceCache, turn.turnId, (e) => e.text === turn.text, () => ({ text: turn.text, spans: spokenSentences(turn.text) })).spans;
}
