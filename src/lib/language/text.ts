/**
 * Text primitives shared by ranking, composition and analysis: word tokens, light stemming,
 * content terms and sentence spans. Everything here is pure and deterministic.
 *
 * The words and sentences of reading a message and ranking memory. Three other readings in lib
 * differ on purpose, and are not this one:
 *  - lib/ingest/words.ts `countWords` (speaker summaries, the mind's inference, analysis counts)
 *    keeps a hyphenated compound one word ("well-known"), where matching here wants its parts;
 *    lib/ingest/split.ts `punctuatedSpans` ends a sentence at a line break too and covers every
 *    word (document turns get their times from it), where `sentences` here keeps reported speech
 *    whole. Both feed stored counts and the Big Five model's inputs.
 *  - lib/embeddings/tokenize.ts spells words as the GloVe vocabulary does ("don't" → do not).
 *  - lib/analysis/nlp.ts tokenizes with wink-nlp (parts of speech, lemmas, negation) for the
 *    analysis and its trained model.
 */
import { stemmer } from 'stemmer';
import { countTerminators, isUnpunctuated, pseudoSentenceSpans, punctuationCounts } from '../ingest/pseudo-sentences.ts';
import { STOPWORDS } from './stopwords.ts';

/** Curly apostrophes appear in human transcripts; they are folded to ASCII. */
const APOSTROPHES = /[\u2018\u2019\u02BC]/g;

function isApostrophe(c: number): boolean {
  return c === 39 || c === 0x2019 || c === 0x2018 || c === 0x02bc;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function isWordChar(c: number, text: string, i: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return LETTER_OR_DIGIT.test(text[i]!);
}

/**
 * Raw word tokens of `text` (case and apostrophes as written): runs of letters/digits, with an
 * inner apostrophe kept so contractions stay one word. A character scan rather than a regex,
 * because ranking tokenises every candidate turn on every request.
 */
export function rawWords(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isWordChar(text.charCodeAt(i), text, i)) {
      i++;
      continue;
    }
    const start = i;
    for (;;) {
      while (i < n && isWordChar(text.charCodeAt(i), text, i)) i++;
      if (i + 1 < n && isApostrophe(text.charCodeAt(i)) && isWordChar(text.charCodeAt(i + 1), text, i + 1)) i++;
      else break;
    }
    out.push(text.slice(start, i));
  }
  return out;
}

/** A raw token lower-cased, with ASCII apostrophes. */
export function normalizeWord(raw: string): string {
  return raw.toLowerCase().replace(APOSTROPHES, "'");
}

/** Lower-case word tokens of `text`, in order. */
export function words(text: string): string[] {
  return rawWords(text).map(normalizeWord);
}

/** A possessive ("romney's") is the name itself for retrieval purposes. */
function dropPossessive(word: string): string {
  return word.endsWith("'s") ? word.slice(0, -2) : word;
}

/** Whether `word` (lower-case) carries topic: not a stopword, not a bare number, not one letter. */
export function isContentWord(word: string): boolean {
  if (word.length < 2 || STOPWORDS.has(word)) return false;
  if (/^\d+$/.test(word) && word.length < 4) return false; // "2" or "30" say little; "2012" does
  return !word.includes("'") || !STOPWORDS.has(dropPossessive(word));
}

/**
 * Stemming is the costliest step when thousands of turns are ranked, and conversation
 * vocabulary is small, so the term of each raw token is memoised. The memo is bounded so a
 * long-running service cannot grow it without limit.
 */
const termMemo = new Map<string, string>();
const stemMemo = new Map<string, string>();
const MEMO_LIMIT = 200_000;

function remember(memo: Map<string, string>, key: string, value: string): void {
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, value);
}

/** Light stemming: Porter's algorithm, so "jobs"/"job" and "taxes"/"taxed" meet. */
export function stem(word: string): string {
  let s = stemMemo.get(word);
  if (s === undefined) {
    s = stemmer(dropPossessive(word).replace(/'/g, ''));
    remember(stemMemo, word, s);
  }
  return s;
}

/** The content stem of a raw token, or '' for a stopword or noise. */
export function termOf(raw: string): string {
  let t = termMemo.get(raw);
  if (t === undefined) {
    const w = normalizeWord(raw);
    t = isContentWord(w) ? stem(w) : '';
    remember(termMemo, raw, t);
  }
  return t;
}

/** Stems of the content words of `text`, in order, repeats kept. */
export function contentStems(text: string): string[] {
  const out: string[] = [];
  for (const raw of rawWords(text)) {
    const t = termOf(raw);
    if (t) out.push(t);
  }
  return out;
}

/** A sentence as a span of the text it came from, so quotes stay exact substrings. */
export interface SentenceSpan {
  start: number;
  end: number;
  text: string;
}

/** Abbreviations whose period does not end a sentence. */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'jr', 'sr', 'vs', 'etc', 'e.g', 'i.e', 'gov', 'sen', 'rep', 'prof', 'gen', 'no']);

/**
 * Split `text` into sentences. A sentence ends at . ! ? (or …) followed by whitespace,
 * unless the period closes a known abbreviation or an initial ("George W. Bush", "U.S.").
 */
export function sentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  const boundary = /[.!?\u2026]+["'\u201D\u2019)\]]*(?=\s+|$)/g;
  let start = 0;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    const end = m.index + m[0].length;
    if (m[0] === '.' && endsWithAbbreviation(text.slice(start, m.index))) continue;
    // Reported speech stays whole: a sentence does not end inside an open quotation.
    if (openQuoteAt(text, start, end)) continue;
    pushSpan(text, start, end, spans);
    start = end;
  }
  pushSpan(text, start, text.length, spans);
  return spans;
}

/**
 * The sentences of something a person said, as a transcript holds it: split at its punctuation
 * (`sentences`) — or, when it has none to speak of (auto-captions: a lower-case word stream, one
 * terminator per 60 words at most), its pseudo-sentences: the lines ingest cut it into where a
 * new sentence most likely starts, each cut again the same way when longer than 30 words
 * (src/lib/ingest/pseudo-sentences.ts). Either way every span is an exact substring.
 */
export function spokenSentences(text: string): SentenceSpan[] {
  if (!unpunctuated(text)) return sentences(text);
  return pseudoSentenceSpans(text).map(({ start, end }) => ({ start, end, text: text.slice(start, end) }));
}

/**
 * A sentence without punctuation that asks: opened by a question word and straight away an
 * auxiliary with its subject ("how would you…", "what are the…", "which plan do you…"), or by an
 * auxiliary and "you" ("do you think…"). Not "what I've said is…", "how we…" or "when I was…".
 */
const QUESTION_SHAPE =
  /^(?:(?:and|but|so|now|well|okay|ok)\s+)?(?:(?:what|why|how|where|which|who)\s+(?:\S+\s+)?(?:do|does|did|would|will|can|could|should|are|is|was|were|have|has)\s+(?:you|your|we|they|he|she|it|the|there|i)\b|(?:do|does|did|would|will|can|could|should|are|is|have|has)\s+(?:you|your)\b)/i;

/** Whether a sentence asks something: it ends in "?", or, unpunctuated (a caption line), it has the shape of a question. */
export function isQuestion(sentence: string): boolean {
  if (/\?\W*$/.test(sentence)) return true;
  return !/[.!?\u2026]/.test(sentence) && QUESTION_SHAPE.test(sentence.trim());
}

/**
 * isUnpunctuated, without counting the words of text that has a terminator every 120 characters
 * (no more than 60 words: words average well over two characters with their space).
 */
function unpunctuated(text: string): boolean {
  const terminators = countTerminators(text);
  if (terminators > 0 && terminators * 120 >= text.length) return false;
  return isUnpunctuated({ words: punctuationCounts(text).words, terminators });
}

/**
 * Whether `text` (a turn) asks something: it has a "?" — or, unpunctuated, one of its
 * pseudo-sentences has the shape of a question.
 */
export function asksSomething(text: string): boolean {
  if (text.includes('?')) return true;
  return unpunctuated(text) && spokenSentences(text).some((s) => isQuestion(s.text));
}

/** A quotation longer than this is taken for a stray quote mark, and sentences end inside it. */
const MAX_QUOTATION_CHARS = 600;

/**
 * Whether a double quotation opened in `text[start, end)` is still open at `end`, and was
 * opened recently enough to be a real quotation rather than a stray mark.
 */
function openQuoteAt(text: string, start: number, end: number): boolean {
  let open = -1;
  for (const q of quoteRoles(text.slice(start, end))) open = q.role === 'open' ? start + q.at : -1;
  return open >= 0 && end - open <= MAX_QUOTATION_CHARS;
}

/**
 * The double quote marks of `text`, each as opening or closing a quotation. Curly quotes say
 * which they are; a straight one opens after a space or at the start and before a word, and
 * closes right after a word or punctuation.
 */
export function quoteRoles(text: string): { at: number; role: 'open' | 'close' }[] {
  const out: { at: number; role: 'open' | 'close' }[] = [];
  let open = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let role: 'open' | 'close' | null = null;
    if (c === 0x201c) role = 'open';
    else if (c === 0x201d) role = 'close';
    else if (c === 34) {
      const before = i === 0 ? ' ' : text[i - 1]!;
      const after = i + 1 < text.length ? text[i + 1]! : ' ';
      const spaceBefore = /[\s([{\u2014\u2013-]/.test(before);
      const spaceAfter = /\s/.test(after);
      role = spaceBefore && !spaceAfter ? 'open' : !spaceBefore ? 'close' : open ? 'close' : 'open';
    }
    if (!role) continue;
    open = role === 'open';
    out.push({ at: i, role });
  }
  return out;
}

/** Whether every quotation in `text` that opens also closes, and none closes unopened. */
export function quotesBalanced(text: string): boolean {
  let open = false;
  for (const q of quoteRoles(text)) {
    if (q.role === 'open' ? open : !open) return false;
    open = q.role === 'open';
  }
  return !open;
}

function endsWithAbbreviation(before: string): boolean {
  const last = /([\p{L}.]+)$/u.exec(before)?.[1];
  if (!last) return false;
  const lower = last.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  // A single capital ("W.") or dotted initials ("U.S") are initials, not a sentence end.
  return /^\p{Lu}$/u.test(last) || /^(\p{L}\.)+\p{L}$/u.test(last);
}

function pushSpan(text: string, start: number, end: number, spans: SentenceSpan[]): void {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text[s]!)) s++;
  while (e > s && /\s/.test(text[e - 1]!)) e--;
  if (e > s) spans.push({ start: s, end: e, text: text.slice(s, e) });
}

/** Number of word tokens in `text` (words as matching counts them; not ingest's countWords). */
export function wordCount(text: string): number {
  return words(text).length;
}
