/**
 * Sentences for text that has no sentence punctuation: auto-captions (YouTube, Zoom, Teams) are
 * lower-case word streams, and every sentence-based step (quotes, readability, findings, topic
 * chunks) needs units of sentence size. These are pseudo-sentences: runs of 6–30 words cut where a
 * new sentence most often starts in speech.
 *
 * Chosen from data (the six auto-caption debates in `../shared/data/transcripts`, aligned word by
 * word to their punctuated transcripts, 99 k words; 7.2 % of word boundaries end a sentence):
 * - the next word is the best single signal. A sentence ends before "well" 63 % of the time, "but"
 *   56 %, "so" 44 %, "that's" 42 %, "now" 35 %, "i" 32 %, "and" 32 %;
 * - some words almost never end a sentence (articles, possessives, prepositions, conjunctions,
 *   subject pronouns, auxiliaries: under 3 % of the time), so no cut falls after them;
 * - a pause helps less than one would think: where the next word starts ≥ 1.5 s after the previous
 *   one, a sentence ends 14–41 % of the time (by file), and YouTube's word times are partly
 *   interpolated. A pause adds to a boundary's score; it never overrides the words.
 * Result on those files: see `test/lib/ingest/pseudo-sentences.test.ts` (precision of the cuts against
 * the real punctuation, and mean length against the real sentences).
 */

/** A transcript's text lacks sentence punctuation when it has fewer terminators than one per this many words. */
export const WORDS_PER_TERMINATOR_LIMIT = 60;

/** Pseudo-sentences are at least this long before a word may start a new one… */
export const MIN_PSEUDO_SENTENCE_WORDS = 6;
/** …and are cut, at their best boundary, when they reach this length. */
export const MAX_PSEUDO_SENTENCE_WORDS = 30;

/** A word that starts the next sentence, with how strongly (share of real sentence starts, rounded). */
const OPENERS: Record<string, number> = {
  well: 0.6, but: 0.55, so: 0.45, "that's": 0.4, now: 0.35, okay: 0.45, ok: 0.45, thank: 0.6, "i'd": 0.4, "i'll": 0.35,
  "it's": 0.35, "i'm": 0.35, i: 0.3, "let's": 0.3, and: 0.3, "we'll": 0.3, "there's": 0.3, "i've": 0.25, let: 0.25,
  look: 0.2, yes: 0.3, no: 0.25, he: 0.25, she: 0.25, "we're": 0.25, "they're": 0.25, we: 0.2, "we've": 0.2, why: 0.2,
  "here's": 0.3, "what's": 0.1, when: 0.2, if: 0.15, because: 0.15, they: 0.15, you: 0.15, mr: 0.5, mrs: 0.5, ms: 0.5,
  first: 0.2, second: 0.1, finally: 0.3, again: 0.1, actually: 0.1, anyway: 0.3, yeah: 0.3, right: 0.1,
};

/** Words after which a sentence (almost) never ends. */
const NO_END = new Set([
  'a', 'an', 'the', 'my', 'our', 'your', 'their', 'his', 'its', 'these', 'those', 'some', 'every', 'each', 'of', 'to', 'in',
  'at', 'into', 'from', 'with', 'for', 'by', 'as', 'than', 'on', 'onto', 'upon', 'and', 'or', 'but', 'nor', 'if', 'when',
  'because', 'where', 'who', 'which', 'whether', 'while', 'although', 'though', 'unless', 'until', 'i', 'we', 'they',
  'he', 'she', "i'm", "i've", "i'll", "i'd", "we're", "we've", "we'll", "they're", "they've", "you're", "you've",
  "he's", "she's", "it's", "that's", "there's", "what's", 'let', "let's", 'is', 'are', 'was', 'were', 'be', 'been',
  'being', 'am', 'have', 'has', 'had', 'would', 'will', 'can', 'could', 'should', 'must', 'may', 'might', 'shall',
  "don't", "didn't", "doesn't", "can't", "won't", "wouldn't", "isn't", "aren't", "wasn't", 'going', 'gonna', 'want',
  'wanna', 'get', 'make', 'very', 'just', 'even', 'only', 'same', 'such', 'able', 'give', 'put', 'bring', 'take',
]);

/**
 * A pause this long ends a pseudo-sentence however short it is (when the words allow a cut there):
 * ingest also starts a new turn at it (split.ts).
 */
export const LONG_PAUSE_MS = 2000;

/** Score added for the pause before a word (onset to onset, or silence between cues). */
function pauseBonus(ms: number | undefined): number {
  if (ms === undefined) return 0;
  if (ms >= 1500) return 0.3;
  if (ms >= 1000) return 0.1;
  return 0;
}

/** A cut is taken as soon as a pseudo-sentence is long enough and a boundary scores this much. */
const CUT_SCORE = 0.3;

export interface SegmentWord {
  text: string;
  /** The pause before this word in milliseconds, when the captions time it. */
  pauseBeforeMs?: number;
}

/** The word as the lists above spell it: lower case, straight apostrophe, no surrounding punctuation. */
function bare(word: string): string {
  return word
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, '');
}

/**
 * Where pseudo-sentences start: indices into `words` (never 0), ascending. Greedy: a sentence is cut
 * before the first strong boundary once it has MIN words (or at once after a long pause); one that
 * reaches MAX words is cut at its best boundary. The state depends only on where the current sentence started, so running this
 * again on one of its sentences (with or without the pauses) finds no further cut.
 */
export function pseudoSentenceStarts(words: readonly SegmentWord[]): number[] {
  const starts: number[] = [];
  const score = (i: number): number => {
    if (NO_END.has(bare(words[i - 1]!.text))) return -Infinity;
    return (OPENERS[bare(words[i]!.text)] ?? 0) + pauseBonus(words[i]!.pauseBeforeMs);
  };
  let start = 0;
  for (let i = 1; i < words.length; i++) {
    const length = i - start;
    const longPause = (words[i]!.pauseBeforeMs ?? 0) >= LONG_PAUSE_MS;
    if ((length >= MIN_PSEUDO_SENTENCE_WORDS || longPause) && score(i) >= CUT_SCORE) {
      starts.push(i);
      start = i;
    } else if (length >= MAX_PSEUDO_SENTENCE_WORDS) {
      // The best boundary that leaves both sides at least MIN words long (the later one on a tie).
      let best = i;
      let bestScore = -Infinity;
      for (let j = start + MIN_PSEUDO_SENTENCE_WORDS; j <= i; j++) {
        const s = score(j);
        if (s >= bestScore && s > -Infinity) {
          best = j;
          bestScore = s;
        }
      }
      starts.push(best);
      start = best;
    }
  }
  return starts;
}

/** Sentence terminators: . ! ? … (and their runs) followed by whitespace or the end. */
const TERMINATOR = /[.!?\u2026]+["'\u201D\u2019)\]]*(?=\s|$)/g;
const WORD = /[\p{L}\p{N}]/u;

/** Sentence terminators in `text`. */
export function countTerminators(text: string): number {
  if (!/[.!?\u2026]/.test(text)) return 0;
  let n = 0;
  TERMINATOR.lastIndex = 0;
  while (TERMINATOR.exec(text) !== null) n++;
  return n;
}

/** Whitespace-separated words holding a letter or digit, and sentence terminators, in `text`. */
export function punctuationCounts(text: string): { words: number; terminators: number } {
  let words = 0;
  for (const piece of text.split(/\s+/)) if (WORD.test(piece)) words++;
  return { words, terminators: countTerminators(text) };
}

/** Whether text of `words` words with `terminators` sentence ends is unpunctuated (auto-captions). */
export function isUnpunctuated({ words, terminators }: { words: number; terminators: number }): boolean {
  return words > 0 && terminators * WORDS_PER_TERMINATOR_LIMIT < words;
}

/** A sentence as a span of the text (end exclusive), so quotes stay verbatim substrings. */
export interface TextSpan {
  start: number;
  end: number;
}

/**
 * Pseudo-sentences of an unpunctuated text, as spans. A line break always ends one (ingest puts
 * one between the pseudo-sentences it found with the help of the captions' pauses); each line is
 * then cut by `pseudoSentenceStarts`.
 */
export function pseudoSentenceSpans(text: string): TextSpan[] {
  const spans: TextSpan[] = [];
  const line = /[^\n]+/g;
  for (let m = line.exec(text); m; m = line.exec(text)) {
    const pieces: { text: string; start: number; end: number }[] = [];
    const word = /\S+/g;
    for (let w = word.exec(m[0]); w; w = word.exec(m[0])) pieces.push({ text: w[0], start: m.index + w.index, end: m.index + w.index + w[0].length });
    if (pieces.length === 0) continue;
    const cuts = [0, ...pseudoSentenceStarts(pieces), pieces.length];
    for (let k = 0; k + 1 < cuts.length; k++) spans.push({ start: pieces[cuts[k]!]!.start, end: pieces[cuts[k + 1]! - 1]!.end });
  }
  return spans;
}
