/**
 * One coherent passage of a turn: the person's own reply, as a contiguous run of its sentences,
 * cut at sentence ends to about the answer's word budget. It starts at the turn's first sentence
 * on the question (at its first sentence when none names it), or — when what follows is much
 * longer than the budget — at the window of sentences that says most on the question.
 * A long reply that ingest cut in parts continues into its next part when the first one is short.
 *
 * Left out, and ending a run: sentences that belonged to their setting (usableSpan), filler
 * (greetings, outros, sponsor reads) and what the conversation already quoted. Very short
 * sentences ("Yeah.", "No, no.") do not open a passage but ride along inside one.
 */
import type { MemoryTurn } from '../types.ts';
import type { AlreadySaid, Addressees, UsedSentence } from './compose.ts';
import { BACK_REFERENCE, usableSpan } from './compose.ts';
import { isFiller } from './filler.ts';
import { contentStems, quotesBalanced, words, type SentenceSpan } from '../../lib/language/text.ts';
import { sentencesOf, turnEntry } from './turn-index.ts';
import { LRUCache } from 'lru-cache';

/** A sentence this short does not open a passage (it rides along inside one). */
const MIN_OPENING_WORDS = 4;
/** A turn this many times longer than the budget may start later than its first sentence. */
const LATE_START_FACTOR = 1.5;
/** A passage this short (share of the budget) continues into the next part of the same reply. */
const CONTINUE_BELOW = 0.6;

export interface Passage {
  turn: MemoryTurn;
  /** The sentences used, in order (contiguous runs; a second run only after a left-out sentence). */
  used: UsedSentence[];
  words: number;
  /** Sum of the query weight of the distinct stems in the passage. */
  relevance: number;
}

export interface PassageOptions {
  budget: number;
  /** Query stem → weight (idf × term weight). */
  weight: ReadonlyMap<string, number>;
  addressees: Addressees;
  saidBefore: AlreadySaid;
}

interface Sentence {
  raw: SentenceSpan;
  span: SentenceSpan | null;
  /** Content stems of `span`, distinct, in order of first use (when there is a span). */
  spanStems: readonly string[] | null;
  words: number;
  relevance: number;
  /** Usable inside a run (possibly too short to open one). */
  inside: boolean;
  /** Usable to open a run. */
  opens: boolean;
}

/** What each sentence of a turn is, whatever the question: computed once per turn (cached with its sentences). */
interface Basics {
  words: number[];
  /** Distinct content stems of each sentence, in order of first use. */
  stems: string[][];
  /** The same as sets (what AlreadySaid compares), made on first need. */
  stemSets: (Set<string> | undefined)[];
  filler: boolean[];
  /** Whether a sentence too short to stand alone may still sit inside a run (its quotes balanced, not ending cut off). */
  shortInside: boolean[];
}

const distinct = (xs: readonly string[]): string[] => [...new Set(xs)];

const sentenceCache = new WeakMap<readonly SentenceSpan[], Basics>();
/** usableSpan of each sentence of a turn and its distinct stems, per set of addressees (the same mind's, request after request). */
const usableCache = new LRUCache<string, WeakMap<readonly SentenceSpan[], { spans: (SentenceSpan | null)[]; stems: (string[] | null)[]; addressed: boolean[] }>>({ max: 64 });

function usableSpans(spans: readonly SentenceSpan[], addressees: Addressees): { spans: (SentenceSpan | null)[]; stems: (string[] | null)[]; addressed: boolean[] } {
  let byTurn = usableCache.get(addressees.key);
  if (!byTurn) {
    byTurn = new WeakMap();
    usableCache.set(addressees.key, byTurn);
  }
  let out = byTurn.get(spans);
  if (!out) {
    const usable = spans.map((s) => usableSpan(s, addressees));
    out = { spans: usable, stems: usable.map((u) => (u ? distinct(contentStems(u.text)) : null)), addressed: spans.map((s) => addressees.addressed(s.text)) };
    byTurn.set(spans, out);
  }
  return out;
}

function basics(spans: readonly SentenceSpan[]): Basics {
  let b = sentenceCache.get(spans);
  if (!b) {
    b = {
      words: spans.map((s) => words(s.text).length),
      stems: spans.map((s) => distinct(contentStems(s.text))),
      stemSets: [],
      filler: spans.map((s) => isFiller(s.text)),
      shortInside: spans.map((s) => quotesBalanced(s.text) && !/[-\u2013\u2014]\s*$/.test(s.text)),
    };
    sentenceCache.set(spans, b);
  }
  return b;
}

/** Whether a turn's sentences are mostly filler (share of words, 0–1). */
export function fillerShareOf(turn: MemoryTurn): number {
  const facts = turnEntry(turn).facts;
  if (facts.fillerShare !== undefined) return facts.fillerShare;
  const b = basics(sentencesOf(turn));
  let total = 0;
  let filler = 0;
  b.words.forEach((n, i) => {
    total += n;
    if (b.filler[i]) filler += n;
  });
  return (facts.fillerShare = total > 0 ? filler / total : 0);
}

function analyse(turn: MemoryTurn, o: PassageOptions): Sentence[] {
  const spans = sentencesOf(turn);
  const b = basics(spans);
  const usable = usableSpans(spans, o.addressees);
  return spans.map((raw, i) => {
    const n = b.words[i]!;
    let relevance = 0;
    for (const s of b.stems[i]!) relevance += o.weight.get(s) ?? 0;
    if (b.filler[i] || n === 0) return { raw, span: null, spanStems: null, words: n, relevance, inside: false, opens: false };
    const said = o.saidBefore.empty ? false : o.saidBefore.said(turn, raw, (b.stemSets[i] ??= new Set(b.stems[i]!)));
    if (said) return { raw, span: null, spanStems: null, words: n, relevance, inside: false, opens: false };
    const span = usable.spans[i]!;
    if (span) return { raw, span, spanStems: usable.stems[i]!, words: n, relevance, inside: true, opens: n >= MIN_OPENING_WORDS };
    // Too short to stand alone, but otherwise fine: it may sit inside a run ("Yeah. I think…").
    const short = n < MIN_OPENING_WORDS && b.shortInside[i]! && !usable.addressed[i]!;
    return { raw, span: short ? raw : null, spanStems: short ? b.stems[i]! : null, words: n, relevance, inside: short, opens: false };
  });
}

/** Where the passage of a turn starts (an index into its sentences), or -1 when nothing can open one. */
function startOf(ss: readonly Sentence[], budget: number): number {
  const opening = ss.findIndex((s) => s.opens);
  if (opening < 0) return -1;
  // A reply opens with its point: it starts at its first sentence on the question, when it has one
  // (not at "And private insurers have to make a profit." before the sentence on Medicare).
  const relevant = ss.findIndex((s) => s.opens && s.relevance > 0);
  const first = relevant >= 0 ? relevant : opening;
  const total = ss.slice(first).reduce((n, s) => n + s.words, 0);
  if (total <= budget * LATE_START_FACTOR) return first;
  // The window the budget allows from each possible opening: the most relevant one, the first on a tie
  // (and the opening keeps a small edge: people lead with their point).
  let best = first;
  let bestScore = -1;
  for (let i = first; i < ss.length; i++) {
    if (!ss[i]!.opens || (i !== first && ss[i]!.relevance === 0)) continue;
    let n = 0;
    let rel = 0;
    for (let j = i; j < ss.length && n < budget; j++) {
      if (!ss[j]!.inside) break;
      n += ss[j]!.words;
      rel += ss[j]!.relevance;
    }
    const score = rel * (i === first ? 1.25 : 1);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

/** A start that leans on the sentence before ("And that's what we've done…") starts there instead, when it can. */
function backedUp(ss: readonly Sentence[], start: number): number {
  let at = start;
  while (at > 0 && BACK_REFERENCE.test(ss[at]!.raw.text) && ss[at - 1]!.opens) at--;
  return at;
}

/** Takes sentences from `from` while they are usable and the budget allows; returns how many words were taken. */
function run(turn: MemoryTurn, ss: readonly Sentence[], from: number, budget: number, out: UsedSentence[], stems: (readonly string[])[]): number {
  let n = 0;
  let added = 0;
  for (let i = from; i < ss.length; i++) {
    const s = ss[i]!;
    if (!s.inside || !s.span) break;
    if (n > 0 && Math.abs(n + s.words - budget) > Math.abs(n - budget)) break;
    out.push({ turn, span: s.span, index: i, relevance: s.relevance });
    stems.push(s.spanStems!);
    added++;
    n += s.words;
    if (n >= budget) break;
  }
  // A run does not end on a sentence too short to stand alone.
  while (added > 1 && ss[out.at(-1)!.index]!.words < MIN_OPENING_WORDS) {
    n -= ss[out.at(-1)!.index]!.words;
    out.pop();
    stems.pop();
    added--;
  }
  return n;
}

/**
 * The passage of `turn` for an answer of about `budget` words; `next` is the next part of the
 * same reply (when ingest cut it in parts and it is in memory).
 */
export function passageOf(turn: MemoryTurn, o: PassageOptions, next?: MemoryTurn): Passage {
  const ss = analyse(turn, o);
  const used: UsedSentence[] = [];
  /** The distinct content stems of each used sentence's span, in step with `used`. */
  const usedStems: (readonly string[])[] = [];
  let total = 0;
  const start = (() => {
    const at = startOf(ss, o.budget);
    return at < 0 ? at : backedUp(ss, at);
  })();
  if (start >= 0) {
    total += run(turn, ss, start, o.budget, used, usedStems);
    // Something left out mid-way (an aside to the moderator, a repeated sentence): go on after it
    // when the passage is still short.
    let at = (used.at(-1)?.index ?? start) + 1;
    while (total < o.budget * CONTINUE_BELOW && at < ss.length) {
      while (at < ss.length && !ss[at]!.opens) at++;
      if (at >= ss.length) break;
      const before = used.length;
      total += run(turn, ss, at, o.budget - total, used, usedStems);
      at = (used.at(-1)?.index ?? at) + 1;
      if (used.length === before) at++;
    }
  }
  if (next && total < o.budget * CONTINUE_BELOW) {
    const more = analyse(next, o);
    const from = more.findIndex((s) => s.opens);
    if (from >= 0) total += run(next, more, from, o.budget - total, used, usedStems);
  }
  const stems = new Set<string>();
  for (const list of usedStems) for (const s of list) stems.add(s);
  let relevance = 0;
  for (const s of stems) relevance += o.weight.get(s) ?? 0;
  return { turn, used, words: total, relevance };
}
