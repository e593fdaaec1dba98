/**
 * Words of a text as the GloVe vocabulary spells them: lower case, contractions expanded the way
 * the vocabulary has them ("don't" → do not, "we're" → we are), hyphenated compounds kept whole
 * when the vocabulary knows them and split otherwise. Pure and fast: no NLP pipeline, since an
 * embedding only needs the words, and this runs on every turn at ingest and every message.
 */

const WORD_RE = /[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu;
const SUFFIXES: [string, string | null][] = [
  ["n't", 'not'],
  ["'re", 'are'],
  ["'ve", 'have'],
  ["'ll", 'will'],
  ["'d", 'would'],
  ["'m", 'am'],
  ["'s", null],
];
const NEGATED_BASES: Record<string, string> = { ca: 'can', wo: 'will', sha: 'shall' };

/**
 * Calls `emit` with each word; `known` tells whether the vocabulary has a spelling, so a
 * hyphenated compound is looked up whole before it is split.
 */
export function forEachWord(text: string, known: (word: string) => boolean, emit: (word: string) => void): void {
  const lower = text.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");
  for (const m of lower.matchAll(WORD_RE)) {
    let token = m[0];
    let tail: string | null = null;
    for (const [suffix, expansion] of SUFFIXES) {
      if (token.length > suffix.length && token.endsWith(suffix)) {
        token = token.slice(0, -suffix.length);
        if (suffix === "n't") token = NEGATED_BASES[token] ?? token;
        tail = expansion;
        break;
      }
    }
    if (token.includes('-') && !known(token)) {
      for (const part of token.split('-')) emit(part);
    } else {
      emit(token.replace(/'/g, ''));
    }
    if (tail) emit(tail);
  }
}

/** The words of `text` (every one, known or not). */
export function words(text: string, known: (word: string) => boolean = () => true): string[] {
  const out: string[] = [];
  forEachWord(text, known, (w) => out.push(w));
  return out;
}
