/**
 * Tokenizing, tagging and sentence splitting, done once per turn with wink-nlp and its English
 * light model (offline, deterministic). Every other analysis module works on `TurnTokens`.
 */
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { pseudoSentenceSpans } from '../ingest/pseudo-sentences.ts';

/**
 * wink-nlp adds every word it has not seen to its lexicon, and the grown lexicon changes how later
 * text is split (after some text, "else's" stays one token where a fresh instance splits it), so
 * the same transcript could tokenize differently depending on what the process read before. Each
 * analysis therefore starts from a pristine instance (`resetTokenizer`, ≈ 70 ms to build; the
 * next one is built ahead in idle time by `prepareFreshTokenizer`).
 */
// The English model's custom-entity loader re-stringifies its module-level JSON on every call, so
// the n-th instance would hold a string escaped n times (RangeError after ~20): load it once.
const customEntities: unknown = (model as unknown as { metaCER: () => unknown }).metaCER();
const reusableModel: typeof model = Object.assign(Object.create(null) as typeof model, model, { metaCER: () => customEntities });
let nlp = winkNLP(reusableModel);
let its = nlp.its;
let used = false;
let refreshScheduled = false;

/** Start from a pristine tokenizer (no-op when nothing was read since the last reset). */
export function resetTokenizer(): void {
  if (!used) return;
  nlp = winkNLP(reusableModel);
  its = nlp.its;
  used = false;
}

/** Build the next pristine tokenizer when the thread is idle, so the next analysis need not wait. */
export function prepareFreshTokenizer(): void {
  if (!used || refreshScheduled) return;
  refreshScheduled = true;
  setImmediate(() => {
    refreshScheduled = false;
    resetTokenizer();
  }).unref();
}

export interface SentenceSpan {
  /** The sentence exactly as written in the turn text (a verbatim substring). */
  text: string;
  /** Character offset of `text` inside the turn text. */
  start: number;
  /** Index range of the sentence's tokens inside `TurnTokens.normal` (end exclusive). */
  tokenStart: number;
  tokenEnd: number;
}

export interface TurnTokens {
  /** Tokens as written. */
  value: string[];
  /** Lower-cased normal forms of all tokens ("n't" → "not", "'d" → "would"). */
  normal: string[];
  /** Token type from wink: word, number, punctuation, symbol, … */
  type: string[];
  /** Universal POS tag (NOUN, VERB, PRON, …). */
  pos: string[];
  lemma: string[];
  /** True when wink marks the token as inside the scope of a negation. */
  negated: boolean[];
  /** True when whitespace precedes the token ("trade-offs" is three tokens with none between them). */
  spaceBefore: boolean[];
  sentences: SentenceSpan[];
  /** Word tokens (type word), the unit of every per-word rate. */
  wordCount: number;
}

/** Curly quotes are normalised (same length, so offsets stay valid) so contractions split alike. */
export function normaliseQuotes(text: string): string {
  return text.replace(/[\u2018\u2019\u02BC]/g, "'").replace(/[\u201C\u201D]/g, '"');
}

export interface TokenizeOptions {
  /**
   * The text has no sentence punctuation (auto-captions): sentences are pseudo-sentences, one per
   * line as ingest wrote them, long lines cut where a sentence most likely starts
   * (ingest/pseudo-sentences.ts), instead of wink's, which would make the whole turn one sentence.
   * Each is read by wink on its own, so a negation's scope (which wink ends at punctuation) ends
   * with its pseudo-sentence instead of flipping every valence to the end of the turn.
   */
  pseudoSentences?: boolean;
}

type TokenArrays = Omit<TurnTokens, 'sentences' | 'wordCount' | 'spaceBefore'> & { spaces: string[] };

function readTokens(doc: ReturnType<typeof nlp.readDoc>): TokenArrays {
  const tokens = doc.tokens();
  const normal = tokens.out(its.normal) as string[];
  return {
    value: tokens.out(its.value) as string[],
    normal,
    type: tokens.out(its.type) as string[],
    pos: tokens.out(its.pos) as string[],
    // The published typings declare lemma and negationFlag with signatures `out` does not accept; both work at run time.
    // wink leaves the lemma undefined for some tokens ("cannot" before punctuation): fall back to the normal form.
    lemma: (tokens.out(its.lemma as unknown as typeof its.value) as (string | undefined)[]).map((l, i) => l ?? normal[i]!),
    negated: (tokens.out(its.negationFlag as unknown as typeof its.value) as unknown[]).map(Boolean),
    spaces: tokens.out(its.precedingSpaces) as string[],
  };
}

function finishTokens(t: TokenArrays, sentences: SentenceSpan[]): TurnTokens {
  const { spaces, ...rest } = t;
  let wordCount = 0;
  for (const type of t.type) if (type === 'word') wordCount++;
  return { ...rest, spaceBefore: spaces.map((s) => s.length > 0), sentences, wordCount };
}

export function tokenize(rawText: string, options: TokenizeOptions = {}): TurnTokens {
  const text = normaliseQuotes(rawText);
  used = true;
  if (options.pseudoSentences) return tokenizePseudoSentences(rawText, text);
  const doc = nlp.readDoc(text);
  const sentences: SentenceSpan[] = [];
  let cursor = 0;
  const all = doc.sentences();
  for (let k = 0; k < all.length(); k++) {
    const s = all.itemAt(k);
    const sText = s.out() as string;
    const [tokenStart, tokenEnd] = s.out(its.span) as unknown as [number, number];
    let start = text.indexOf(sText, cursor);
    if (start < 0) start = cursor;
    cursor = start + sText.length;
    // Quotes are taken from the original (un-normalised) text so they stay verbatim.
    sentences.push({ text: rawText.slice(start, start + sText.length), start, tokenStart, tokenEnd: tokenEnd + 1 });
  }
  return finishTokens(readTokens(doc), sentences);
}

/** Each pseudo-sentence read on its own; the token arrays concatenated, with the whitespace between them. */
function tokenizePseudoSentences(rawText: string, text: string): TurnTokens {
  const all: TokenArrays = { value: [], normal: [], type: [], pos: [], lemma: [], negated: [], spaces: [] };
  const sentences: SentenceSpan[] = [];
  let end = 0;
  for (const span of pseudoSentenceSpans(text)) {
    const t = readTokens(nlp.readDoc(text.slice(span.start, span.end)));
    if (t.value.length === 0) continue;
    t.spaces[0] = text.slice(end, span.start) + t.spaces[0]!;
    const tokenStart = all.value.length;
    for (const k of Object.keys(all) as (keyof TokenArrays)[]) (all[k] as unknown[]).push(...(t[k] as unknown[]));
    sentences.push({ text: rawText.slice(span.start, span.end), start: span.start, tokenStart, tokenEnd: all.value.length });
    end = span.end;
  }
  return finishTokens(all, sentences);
}

/**
 * Words: the one definition of src/lib/ingest/words.ts (runs of letters or digits, inner
 * apostrophes and hyphens kept), so a snapshot's `mindWords` and its speakers' words agree.
 */
export { countWords } from '../ingest/words.ts';
