/**
 * Communication-style measures (instrument `communication_style`) and emotions (instrument
 * `emotion`). Every measure is defined at the level of one turn and of the whole speech, so the
 * evidence for a measure is the turns where it is strongest. Definitions: README.md.
 */
import { syllable } from 'syllable';
import { quoteSentences } from './evidence.ts';
import {
  BOOSTER_PHRASES,
  BOOSTER_WORDS,
  CATEGORIES,
  EMOTIONS,
  EMOTION_WORDS,
  HEDGE_PHRASES,
  HEDGE_WORDS,
  INFORMAL_WORDS,
  VALENCE,
} from './lexicons.ts';
import type { SentenceSpan, TurnTokens } from './nlp.ts';
import type { PreparedTurn } from './prepare.ts';
import type { EvidenceRef, PsychometricResult } from './types.ts';

/** Words at which a style measure's confidence reaches 0.5: confidence = n / (n + HALF_CONFIDENCE_WORDS). */
const HALF_CONFIDENCE_WORDS = 300;
const EVIDENCE_TURNS = 3;
const MIN_EVIDENCE_WORDS = 12;

/** Additive tallies of one turn (or of all turns, summed). */
interface Tally {
  turns: number;
  words: number;
  /** wink word tokens: the denominator of per-word rates. */
  tokens: number;
  sentences: number;
  questions: number;
  hedges: number;
  boosters: number;
  pronounI: number;
  pronounWe: number;
  pronounYou: number;
  syllables: number;
  /** Formality counts (Heylighen & Dewaele 2002): POS frequencies. */
  formal: number;
  deictic: number;
  informal: number;
  positive: number;
  negative: number;
  emotions: Record<string, number>;
}

/** One regular expression matching any of the phrases as whole words. */
function phraseMatcher(phrases: readonly string[]): RegExp {
  const alternatives = phrases.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return new RegExp(`(?<![a-z'])(?:${alternatives})(?![a-z'])`, 'g');
}
const HEDGE_MATCHER = phraseMatcher(HEDGE_PHRASES);
const BOOSTER_MATCHER = phraseMatcher(BOOSTER_PHRASES);

const countMatches = (lower: string, re: RegExp): number => lower.match(re)?.length ?? 0;

function emptyTally(): Tally {
  return {
    turns: 0,
    words: 0,
    tokens: 0,
    sentences: 0,
    questions: 0,
    hedges: 0,
    boosters: 0,
    pronounI: 0,
    pronounWe: 0,
    pronounYou: 0,
    syllables: 0,
    formal: 0,
    deictic: 0,
    informal: 0,
    positive: 0,
    negative: 0,
    emotions: Object.fromEntries(EMOTIONS.map((e) => [e, 0])),
  };
}

/** Syllables of a word, memoised (a pure function of the word, and speech repeats its words). */
const SYLLABLE_CACHE_LIMIT = 50_000;
const syllableCache = new Map<string, number>();
function syllablesOf(w: string): number {
  let n = syllableCache.get(w);
  if (n === undefined) {
    n = /[a-z]/.test(w) ? Math.max(1, syllable(w)) : 1;
    if (syllableCache.size >= SYLLABLE_CACHE_LIMIT) syllableCache.clear();
    syllableCache.set(w, n);
  }
  return n;
}

function tallyTurn(t: PreparedTurn): Tally {
  const tk = t.tokens;
  const lower = t.turn.text.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  const tally = emptyTally();
  tally.turns = 1;
  tally.words = t.words;
  tally.tokens = tk.wordCount;
  tally.sentences = Math.max(1, tk.sentences.length);
  tally.questions = tk.sentences.filter((s) => s.text.trim().endsWith('?')).length;
  tally.hedges = countMatches(lower, HEDGE_MATCHER);
  tally.boosters = countMatches(lower, BOOSTER_MATCHER);
  for (let i = 0; i < tk.normal.length; i++) {
    if (tk.type[i] !== 'word') continue;
    const w = tk.normal[i]!;
    if (HEDGE_WORDS.has(w)) tally.hedges++;
    if (BOOSTER_WORDS.has(w) && !tk.negated[i]) tally.boosters++;
    if (CATEGORIES.pronounI!.has(w)) tally.pronounI++;
    if (CATEGORIES.pronounWe!.has(w)) tally.pronounWe++;
    if (CATEGORIES.pronounYou!.has(w)) tally.pronounYou++;
    if (INFORMAL_WORDS.has(w)) tally.informal++;
    tally.syllables += syllablesOf(w);
    const pos = tk.pos[i];
    if (pos === 'NOUN' || pos === 'PROPN' || pos === 'ADJ' || pos === 'ADP' || pos === 'DET') tally.formal++;
    else if (pos === 'PRON' || pos === 'VERB' || pos === 'AUX' || pos === 'ADV' || pos === 'INTJ') tally.deictic++;
    const v = VALENCE[w];
    if (v !== undefined) {
      const signed = tk.negated[i] ? -v : v;
      if (signed > 0) tally.positive += signed;
      else tally.negative -= signed;
    }
    if (!tk.negated[i]) {
      const lemma = tk.lemma[i]!;
      for (const e of EMOTIONS) if (EMOTION_WORDS[e].has(lemma)) tally.emotions[e]!++;
    }
  }
  return tally;
}

function sumTallies(ts: Tally[]): Tally {
  const s = emptyTally();
  for (const t of ts) {
    for (const k of Object.keys(t) as (keyof Tally)[]) {
      if (k === 'emotions') for (const e of EMOTIONS) s.emotions[e]! += t.emotions[e]!;
      else (s[k] as number) += t[k] as number;
    }
  }
  return s;
}

const per100 = (n: number, d: number): number => (d > 0 ? (100 * n) / d : 0);

/** Moving-average type–token ratio over windows of 50 tokens: length-independent lexical diversity. */
function mattr(words: string[], window = 50): number {
  if (words.length === 0) return 0;
  if (words.length <= window) return new Set(words).size / words.length;
  const freq = new Map<string, number>();
  for (let i = 0; i < window; i++) freq.set(words[i]!, (freq.get(words[i]!) ?? 0) + 1);
  let sum = freq.size;
  for (let i = window; i < words.length; i++) {
    const out = words[i - window]!;
    const left = freq.get(out)! - 1;
    if (left === 0) freq.delete(out);
    else freq.set(out, left);
    freq.set(words[i]!, (freq.get(words[i]!) ?? 0) + 1);
    sum += freq.size;
  }
  return sum / (words.length - window + 1) / window;
}

interface Measure {
  name: string;
  value: (t: Tally) => number | null;
  /** Which sentence of an evidence turn to quote; without it, the turn's opening. */
  focus?: SentenceTest;
}

const hedgeSentence: SentenceTest = (tk, s) =>
  anyToken((k, i) => HEDGE_WORDS.has(k.normal[i]!))(tk, s) || countMatches(s.text.toLowerCase().replace(/\u2019/g, "'"), HEDGE_MATCHER) > 0;
const boosterSentence: SentenceTest = (tk, s) =>
  anyToken((k, i) => BOOSTER_WORDS.has(k.normal[i]!) && !k.negated[i])(tk, s) ||
  countMatches(s.text.toLowerCase().replace(/\u2019/g, "'"), BOOSTER_MATCHER) > 0;
const inCategory = (name: string): SentenceTest => anyToken((k, i) => CATEGORIES[name]!.has(k.normal[i]!));

/** Each measure as a function of a tally; README.md documents ranges and meaning. */
const MEASURES: Measure[] = [
  { name: 'wordsPerTurn', value: (t) => (t.turns > 0 ? t.words / t.turns : null) },
  { name: 'questionRate', value: (t) => (t.sentences > 0 ? t.questions / t.sentences : null), focus: (_, s) => s.text.trim().endsWith('?') },
  { name: 'hedging', value: (t) => per100(t.hedges, t.tokens), focus: hedgeSentence },
  { name: 'certainty', value: (t) => per100(t.boosters, t.tokens), focus: boosterSentence },
  {
    name: 'formality',
    // Heylighen & Dewaele's F-score on POS shares (in %), less informal markers: ≈ 40 (chat) … 70 (scientific prose).
    value: (t) => (t.tokens > 0 ? (per100(t.formal, t.tokens) - per100(t.deictic, t.tokens) + 100) / 2 - per100(t.informal, t.tokens) / 2 : null),
  },
  {
    name: 'readability',
    // Flesch Reading Ease: 206.835 − 1.015·words/sentence − 84.6·syllables/word; higher is easier.
    // Clamped to its 0–100 scale: past it the formula only says "very hard" (one run-on sentence
    // of thousands of words gives −9,000) or "very easy" (one-syllable words: up to 121).
    value: (t) => (t.tokens > 0 ? clamp(206.835 - 1.015 * (t.tokens / Math.max(1, t.sentences)) - 84.6 * (t.syllables / t.tokens), 0, 100) : null),
  },
  { name: 'pronounI', value: (t) => per100(t.pronounI, t.tokens), focus: inCategory('pronounI') },
  { name: 'pronounWe', value: (t) => per100(t.pronounWe, t.tokens), focus: inCategory('pronounWe') },
  { name: 'pronounYou', value: (t) => per100(t.pronounYou, t.tokens), focus: inCategory('pronounYou') },
  { name: 'sentiment', value: (t) => (t.positive + t.negative > 0 ? (t.positive - t.negative) / (t.positive + t.negative) : 0), focus: anyToken((k, i) => VALENCE[k.normal[i]!] !== undefined) },
];

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** Does this sentence of the turn show the measure? Used to quote the sentence that does. */
type SentenceTest = (tk: TurnTokens, sentence: SentenceSpan) => boolean;

function anyToken(test: (tk: TurnTokens, i: number) => boolean): SentenceTest {
  return (tk, s) => {
    for (let i = s.tokenStart; i < s.tokenEnd; i++) if (tk.type[i] === 'word' && test(tk, i)) return true;
    return false;
  };
}

/** The quote for a turn: from the first sentence that shows the measure, else from the turn's start. */
function focusedQuote(t: PreparedTurn, focus?: SentenceTest): string {
  const sentences = t.tokens.sentences;
  const at = focus ? sentences.findIndex((s) => focus(t.tokens, s)) : -1;
  return quoteSentences(t.turn.text, sentences, Math.max(0, at));
}

function evidenceBy(turns: PreparedTurn[], tallies: Tally[], key: (t: Tally) => number | null, focus?: SentenceTest): EvidenceRef[] {
  return turns
    .map((t, i) => ({ t, v: key(tallies[i]!) }))
    .filter((x): x is { t: PreparedTurn; v: number } => x.v !== null && x.v > 0 && x.t.words >= MIN_EVIDENCE_WORDS)
    .sort((a, b) => b.v - a.v || a.t.position - b.t.position)
    .slice(0, EVIDENCE_TURNS)
    .map(({ t }) => ({ turnId: t.turn.turnId, quote: focusedQuote(t, focus), startMs: t.turn.startMs }));
}

/** What the analyser knows about the transcript as a whole (index.ts). */
export interface SpeechContext {
  /** The transcript names no speakers: every turn is one voice, cut by length and pauses. */
  unlabelled?: boolean;
  /** The mind's speech has no sentence punctuation: sentences are pseudo-sentences. */
  unpunctuated?: boolean;
}

export const UNLABELLED_NOTE = 'The transcript names no speakers (e.g. auto-captions), so everything said in it is read as this person\'s words.';
const NOT_MEASURED_TURNS =
  'Not measured: the transcript names no speakers (e.g. auto-captions), so its turns are pieces of about 120 words cut at sentence ends and pauses, not the person\'s turns.';
const NOT_MEASURED_QUESTIONS = 'Not measured: the transcript has no sentence punctuation (auto-captions), so questions cannot be told from statements.';
const PSEUDO_SENTENCE_NOTE =
  'Approximate: the transcript has no sentence punctuation (auto-captions), so sentences are pseudo-sentences cut where a new sentence most likely starts (on the auto-captioned debates their mean length is within 1–2 words of the real sentences\').';

/** The mind's turns, counting the parts of a long turn that ingest cut (over 400 words) as one: the person said it in one go. */
function speakerTurns(turns: PreparedTurn[]): number {
  return Math.max(1, turns.filter((t) => !t.turn.continues).length);
}

export function scoreStyleAndEmotion(turns: PreparedTurn[], mindWords: number, context: SpeechContext = {}): PsychometricResult[] {
  const tallies = turns.map(tallyTurn);
  const all = sumTallies(tallies);
  all.turns = speakerTurns(turns);
  const confidence = round(mindWords / (mindWords + HALF_CONFIDENCE_WORDS));
  const note = mindWords === 0 ? 'No words of the mind were found.' : context.unlabelled ? UNLABELLED_NOTE : null;
  const withNote = (own: string | null): string | null => (own && note ? `${own} ${note}` : (own ?? note));
  const rows: PsychometricResult[] = MEASURES.map((m) => {
    const unknown = (m.name === 'wordsPerTurn' && context.unlabelled) || (m.name === 'questionRate' && context.unpunctuated);
    const v = mindWords > 0 && !unknown ? m.value(all) : null;
    let own: string | null = null;
    if (mindWords > 0 && unknown) own = m.name === 'wordsPerTurn' ? NOT_MEASURED_TURNS : NOT_MEASURED_QUESTIONS;
    else if (mindWords > 0 && m.name === 'readability' && context.unpunctuated) own = PSEUDO_SENTENCE_NOTE;
    // Evidence: for wordsPerTurn the longest turns, otherwise the turns where the measure is highest.
    return {
      instrument: 'communication_style',
      name: m.name,
      score: v === null ? null : round(v),
      percentile: null,
      confidence: v === null ? 0 : confidence,
      evidence: v === null ? [] : evidenceBy(turns, tallies, m.value, m.focus),
      // The words-per-turn note already says the speakers are unnamed.
      note: unknown && m.name === 'wordsPerTurn' ? own : withNote(own),
    };
  });
  const allWords = turns.flatMap((t) => t.tokens.normal.filter((_, i) => t.tokens.type[i] === 'word'));
  rows.push({
    instrument: 'communication_style',
    name: 'lexicalDiversity',
    score: mindWords > 0 ? round(mattr(allWords)) : null,
    percentile: null,
    confidence,
    evidence: [],
    note: mindWords === 0 ? note : withNote('Moving-average type-token ratio (50-token windows); a property of the whole speech, so no single turn is evidence.'),
  });
  for (const e of EMOTIONS) {
    const rate = (t: Tally): number => per100(t.emotions[e]!, t.tokens);
    rows.push({
      instrument: 'emotion',
      name: e,
      score: mindWords > 0 ? round(rate(all)) : null,
      percentile: null,
      confidence,
      evidence:
        mindWords > 0
          ? evidenceBy(turns, tallies, (t) => (t.emotions[e]! > 0 ? rate(t) : null), anyToken((k, i) => !k.negated[i] && EMOTION_WORDS[e].has(k.lemma[i]!)))
          : [],
      note,
    });
  }
  return rows;
}

/** The style measures by name, as a simulation engine reads them (`persona.style[name]`). */
export function styleMap(psychometrics: PsychometricResult[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const p of psychometrics) if (p.instrument === 'communication_style') out[p.name] = p.score;
  return out;
}
