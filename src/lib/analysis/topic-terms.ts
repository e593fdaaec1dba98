/**
 * Key topics, the candidates (steps 1–3 of topics.ts): the mind's turns cut into chunks, and in
 * each sentence the noun phrases that may name a subject, counted per chunk and sentence with the
 * forms they were written in.
 */
import { FILLER_PHRASES, GENERIC_NOUNS, STOPWORDS, VALENCE } from './lexicons.ts';
import { NUMBER_WORDS } from './topic-labels.ts';
import { analysisVectors, meanVector } from './vectors.ts';
import type { TurnTokens } from './nlp.ts';
import type { PreparedTurn } from './prepare.ts';
import type { AnalysisTurn } from './types.ts';

const MAX_TERM_WORDS = 4;

export interface Chunk {
  turn: PreparedTurn;
  firstSentence: number;
  lastSentence: number;
  words: number;
  /** Term key → occurrences in this chunk. */
  terms: Map<string, number>;
  valence: { positive: number; negative: number };
  /** GloVe-SIF vector of the chunk's text (unit length, or zero). */
  vector: Float32Array;
}

export interface Term {
  key: string;
  /** Lemma of every word: what containment is tested on. */
  lemmas: string[];
  words: number;
  count: number;
  chunks: Set<number>;
  sentences: Set<string>;
  /** Written forms with counts: the label and keyword are the commonest. */
  surfaces: Map<string, number>;
  /** Lower-cased word forms seen, for the background frequency. */
  forms: Set<string>;
  keyness: number;
}

const FILLER_SET = new Set(FILLER_PHRASES);
const NOUNISH = new Set(['NOUN', 'PROPN']);
const ROMAN = /^[ivxlc]+$/;

/**
 * A word unit of a sentence: one word token, or a hyphenated compound written without spaces
 * ("trade-offs", "mid-market"), which counts as one word whose part of speech is its last part's.
 */
interface Unit {
  first: number;
  last: number;
  written: string;
  normal: string;
  lemma: string;
  pos: string;
  /** `normal` and `lemma` split into words (a compound has several). */
  normalWords: string[];
  lemmaWords: string[];
  /** Capitalised only because it opens the sentence (lower-cased in labels unless a proper noun). */
  sentenceStart: boolean;
}

function unitsOf(tk: TurnTokens, from: number, to: number): Unit[] {
  const units: Unit[] = [];
  for (let i = from; i < to; i++) {
    if (tk.type[i] !== 'word') {
      units.push({ first: i, last: i, written: tk.value[i]!, normal: tk.normal[i]!, lemma: tk.normal[i]!, pos: 'PUNCT', normalWords: [tk.normal[i]!], lemmaWords: [tk.normal[i]!], sentenceStart: false });
      continue;
    }
    let last = i;
    while (
      last + 2 < to && tk.value[last + 1] === '-' && !tk.spaceBefore[last + 1] && !tk.spaceBefore[last + 2] && tk.type[last + 2] === 'word'
    )
      last += 2;
    const written = tk.value.slice(i, last + 1).join('');
    // A compound's key is its parts as separate words, so "middle-class" and "middle class" are one term.
    // (wink keeps some compounds as one token: "e-mails", "anti-war".)
    const parts = tk.normal.slice(i, last + 1).filter((p) => p !== '-').flatMap((p) => p.split('-')).filter(Boolean);
    const lastLemma = tk.lemma[last]!.toLowerCase().split('-').filter(Boolean);
    const lemmaWords = [...parts.slice(0, parts.length - 1), lastLemma[lastLemma.length - 1] ?? parts[parts.length - 1]!];
    units.push({
      first: i,
      last,
      written,
      normal: parts.join(' '),
      lemma: lemmaWords.join(' '),
      normalWords: parts,
      lemmaWords,
      pos: last > i && tk.pos[last] === 'VERB' ? 'NOUN' : tk.pos[last]!,
      sentenceStart: i === from,
    });
    i = last;
  }
  return units;
}

function isContent(u: Unit, excluded: Set<string>): boolean {
  if (u.pos !== 'NOUN' && u.pos !== 'PROPN' && u.pos !== 'ADJ') return false;
  // Two-letter words count only as acronyms written in capitals (AI, EU).
  const acronym = u.normal.length === 2 && /^[A-Z]{2}$/.test(u.written);
  if ((u.normal.length < 3 && !acronym) || !/^[a-z][a-z. ]*[a-z]$|^[a-z]{2}$/.test(u.normal)) return false;
  if (STOPWORDS.has(u.normal) || STOPWORDS.has(u.lemma)) return false;
  // A compound led by a number is a measure ("four-year", "two-minute"), not a subject.
  if (u.normalWords.length > 1 && NUMBER_WORDS.has(u.normalWords[0]!)) return false;
  return !u.normalWords.some((p) => excluded.has(p));
}

/** A capitalised proper noun right after another one continues a name even if it is a common word ("Milky Way"). */
function continuesName(prev: Unit, u: Unit, excluded: Set<string>): boolean {
  const named = (x: Unit): boolean => x.pos === 'PROPN' && /^[A-Z]/.test(x.written);
  return named(prev) && named(u) && /^[a-z][a-z ]*$/.test(u.normal) && !u.normalWords.some((p) => excluded.has(p));
}

/** Written form of a unit in a label: capitals kept for proper nouns, acronyms and mid-sentence capitals. */
function writtenForm(u: Unit): string {
  if (u.pos === 'PROPN' || /^[A-Z]{2,}$/.test(u.written)) return u.written;
  if (u.sentenceStart || u.written === u.written.toUpperCase()) return u.written.toLowerCase();
  return u.written;
}

/** Name parts of everyone who speaks (and their possessives): people are not topics. */
export function speakerNameParts(turns: AnalysisTurn[]): Set<string> {
  const parts = new Set<string>();
  for (const t of turns) for (const p of t.speaker.toLowerCase().split(/[^a-z]+/)) if (p.length >= 2) parts.add(p);
  return parts;
}

/** A term occurrence found in a sentence. */
interface Found {
  key: string;
  words: number;
  lemmas: string[];
  surface: string;
  forms: string[];
}

/** A phrase's key and what is recorded with it: the words before the last as written (lower-cased), the last by lemma. */
function phraseOf(parts: Unit[]): Omit<Found, 'surface'> & { phrase: string } {
  const phrase = parts.map((u, k) => (k === parts.length - 1 ? u.lemma : u.normal)).join(' ');
  const lemmas = parts.length === 1 ? parts[0]!.lemmaWords : parts.flatMap((u) => u.lemmaWords);
  return { key: `${lemmas.length}|${phrase}`, phrase, words: lemmas.length, lemmas, forms: parts.length === 1 ? parts[0]!.normalWords : parts.flatMap((u) => u.normalWords) };
}
/** The candidate terms of one sentence, from its units. */
function termsOfSentence(tk: TurnTokens, units: Unit[], excluded: Set<string>): Found[] {
  const found: Found[] = [];
  let runStart = 0;
  for (let i = 0; i <= units.length; i++) {
    if (i < units.length && (isContent(units[i]!, excluded) || (i > runStart && continuesName(units[i - 1]!, units[i]!, excluded)))) continue;
    let end = i; // exclusive
    const run = units.slice(runStart, end);
    // An adjective alone after a determiner or possessive is used as a noun ("our military").
    if (run.length === 1 && run[0]!.pos === 'ADJ' && runStart > 0 && (tk.pos[units[runStart - 1]!.last] === 'DET' || tk.pos[units[runStart - 1]!.last] === 'PRON')) {
      const u = run[0]!;
      const words = u.normalWords;
      if (!GENERIC_NOUNS.has(u.normal)) found.push({ key: `${words.length}|${u.normal}`, words: words.length, lemmas: words, surface: writtenForm(u), forms: words });
    }
    while (end > runStart && units[end - 1]!.pos === 'ADJ') end--;
    for (let a = runStart; a < end; a++)
      for (let n = 1; n <= MAX_TERM_WORDS && a + n <= end; n++) {
        const parts = units.slice(a, a + n);
        const last = parts[n - 1]!;
        if (!NOUNISH.has(last.pos)) continue;
        if (n === 1 && (GENERIC_NOUNS.has(last.lemma) || GENERIC_NOUNS.has(last.normal) || STOPWORDS.has(last.normal) || ROMAN.test(last.normal))) continue;
        // "good Obama", "great Neuralink": an adjective before a lone proper noun is not part of its name.
        if (n === 2 && parts[0]!.pos === 'ADJ' && last.pos === 'PROPN') continue;
        const p = phraseOf(parts);
        if (FILLER_SET.has(p.phrase)) continue;
        found.push({ key: p.key, words: p.words, lemmas: p.lemmas, surface: parts.map(writtenForm).join(' '), forms: p.forms });
      }
    runStart = i + 1;
  }
  return found;
}

export interface SentenceRef {
  chunk: number;
  turn: PreparedTurn;
  index: number;
  units: Unit[];
  terms: Map<string, number>;
  words: number;
}

function record(terms: Map<string, Term>, f: Found, chunk: Chunk, ref: SentenceRef): void {
  let t = terms.get(f.key);
  if (!t) {
    t = { key: f.key, lemmas: f.lemmas, words: f.words, count: 0, chunks: new Set(), sentences: new Set(), surfaces: new Map(), forms: new Set(), keyness: 0 };
    terms.set(f.key, t);
  }
  t.count++;
  t.chunks.add(ref.chunk);
  t.sentences.add(`${ref.chunk}:${ref.index}`);
  t.surfaces.set(f.surface, (t.surfaces.get(f.surface) ?? 0) + 1);
  for (const w of f.forms) t.forms.add(w);
  chunk.terms.set(f.key, (chunk.terms.get(f.key) ?? 0) + 1);
  ref.terms.set(f.key, (ref.terms.get(f.key) ?? 0) + 1);
}

/**
 * A phrase the tagger split once ("Prompt injection" with "Prompt" read as a verb) still occurs
 * there: count every run of words matching a phrase already found, whatever their tags, so a
 * phrase's count (and the absorption of its parts) reflects what was said.
 */
export function countPhrasesAgain(terms: Map<string, Term>, chunks: Chunk[], sentences: SentenceRef[], excluded: Set<string>): void {
  // Only runs starting with the first word of some phrase can match.
  const starts = new Set<string>();
  for (const t of terms.values()) if (t.words > 1) starts.add(t.key.slice(t.key.indexOf('|') + 1).split(' ')[0]!);
  const usable = (u: Unit): boolean => u.pos !== 'PUNCT' && !u.normalWords.some((w) => excluded.has(w));
  for (const ref of sentences) {
    const seen = new Map<string, Found[]>();
    const units = ref.units;
    for (let a = 0; a < units.length; a++) {
      if (!starts.has(units[a]!.normalWords[0]!) || !usable(units[a]!)) continue;
      for (let n = 2; n <= MAX_TERM_WORDS && a + n <= units.length; n++) {
        if (!usable(units[a + n - 1]!)) break;
        const parts = units.slice(a, a + n);
        const p = phraseOf(parts);
        const t = terms.get(p.key);
        if (!t || t.words < 2) continue;
        const list = seen.get(p.key) ?? [];
        list.push({ ...p, surface: parts.map(writtenForm).join(' ') });
        seen.set(p.key, list);
      }
    }
    for (const [key, found] of seen) for (const f of found.slice(ref.terms.get(key) ?? 0)) record(terms, f, chunks[ref.chunk]!, ref);
  }
}

export function chunkTurns(turns: PreparedTurn[], chunkWords: number, excluded: Set<string>, terms: Map<string, Term>, sentences: SentenceRef[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const turn of turns) {
    const tk = turn.tokens;
    const ss = tk.sentences;
    let start = 0;
    while (start < ss.length) {
      let end = start;
      let words = 0;
      for (; end < ss.length; end++) {
        words += ss[end]!.tokenEnd - ss[end]!.tokenStart;
        if (words >= chunkWords) break;
      }
      end = Math.min(end, ss.length - 1);
      // A short remainder joins this chunk rather than standing alone.
      if (ss.length - 1 - end <= 1) end = ss.length - 1;
      const ci = chunks.length;
      const text = tk.sentences.slice(start, end + 1).map((x) => x.text).join(' ');
      const chunk: Chunk = { turn, firstSentence: start, lastSentence: end, words: 0, terms: new Map(), valence: { positive: 0, negative: 0 }, vector: analysisVectors().embedOne(text) };
      for (let si = start; si <= end; si++) {
        const s = ss[si]!;
        const ref: SentenceRef = { chunk: ci, turn, index: si, units: unitsOf(tk, s.tokenStart, s.tokenEnd), terms: new Map(), words: 0 };
        for (let i = s.tokenStart; i < s.tokenEnd; i++) {
          if (tk.type[i] !== 'word') continue;
          ref.words++;
          const v = VALENCE[tk.normal[i]!];
          if (v !== undefined) {
            const signed = tk.negated[i] ? -v : v;
            if (signed > 0) chunk.valence.positive += signed;
            else chunk.valence.negative -= signed;
          }
        }
        chunk.words += ref.words;
        for (const f of termsOfSentence(tk, ref.units, excluded)) record(terms, f, chunk, ref);
        sentences.push(ref);
      }
      chunks.push(chunk);
      start = end + 1;
    }
  }
  return chunks;
}

/**
 * Every passage of one speaker shares their voice (words, register), so raw sentence vectors of
 * one speech are all alike (cosine 0.75–0.9). What a passage is about is what sets it apart from
 * the speaker's other passages: each chunk's vector minus the speech's mean, renormalised.
 */
export function centreVectors(chunks: Chunk[]): void {
  if (chunks.length === 0) return;
  const d = chunks[0]!.vector.length;
  const mean = new Float32Array(d);
  for (const c of chunks) for (let i = 0; i < d; i++) mean[i]! += c.vector[i]! / chunks.length;
  for (const c of chunks) {
    const v = new Float32Array(d);
    for (let i = 0; i < d; i++) v[i] = c.vector[i]! - mean[i]!;
    c.vector = meanVector([v], d);
  }
}

export const mostCommon = (m: Map<string, number>): string =>
  [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '';
