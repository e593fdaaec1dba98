/**
 * The feeling in a piece of text, from lexicons: valence from AFINN-165 (2,477 English words
 * rated −5…+5 by hand) with simple negation, and the emotions named by a small cue lexicon
 * (Plutchik's families). It reports which words carried the judgement, so it can be checked.
 */
import { VALENCE } from '../../lib/analysis/lexicons.ts';
import { stem, words } from '../../lib/language/text.ts';

const NEGATORS = new Set(['not', 'no', 'never', 'neither', 'nor', 'without', 'hardly']);

/** Emotion families and some unambiguous cue words for each, matched by stem. */
const EMOTION_CUES: Record<string, string[]> = {
  joy: ['happy', 'joy', 'love', 'delight', 'glad', 'wonderful', 'fun', 'enjoy', 'beautiful', 'excited', 'amazing', 'thrilled', 'celebrate', 'grateful', 'proud'],
  trust: ['trust', 'faith', 'confident', 'loyal', 'honest', 'rely', 'respect', 'committed'],
  fear: ['afraid', 'fear', 'scared', 'worry', 'worried', 'anxious', 'anxiety', 'danger', 'dangerous', 'threat', 'terrified', 'nervous', 'panic'],
  anger: ['angry', 'anger', 'furious', 'outrage', 'outrageous', 'hate', 'mad', 'rage', 'annoyed', 'frustrated', 'resent', 'unfair', 'disgrace'],
  sadness: ['sad', 'grief', 'loss', 'lost', 'hurt', 'pain', 'lonely', 'depressed', 'miss', 'sorrow', 'tragic', 'tragedy', 'cry', 'suffer', 'heartbroken'],
  anticipation: ['hope', 'hopeful', 'optimistic', 'eager', 'anticipate', 'expect'],
  surprise: ['surprise', 'surprised', 'shocked', 'unexpected', 'astonish', 'incredible', 'sudden', 'wow'],
  disgust: ['disgust', 'disgusting', 'gross', 'sick', 'horrible', 'terrible', 'awful', 'nasty', 'vile'],
};

const CUE_BY_STEM = new Map<string, string>();
for (const [emotion, cues] of Object.entries(EMOTION_CUES)) for (const c of cues) CUE_BY_STEM.set(stem(c), emotion);

export interface Feeling {
  /** Mean AFINN valence per rated word (−5…+5), 0 when none is rated. */
  valence: number;
  ratedWords: number;
  /** Rated words with their (negation-adjusted) scores, strongest first. */
  carriers: { word: string; score: number }[];
  /** Emotion families found, most frequent first. */
  emotions: { emotion: string; count: number }[];
}

/**
 * AFINN words that in spoken conversation mostly carry no feeling: discourse markers and
 * courtesies ("yeah", "please", "thank you"), hedges and intensifiers ("kind of", "pretty
 * good"), and the vocabulary of policy and business, where "deficit", "debt", "competitive",
 * "health care", "interest rates", "growth", "pay", "tax cuts", "the wealthy" or "folks at the top"
 * name topics, not attitudes.
 * AFINN was rated on microblog posts, where these words lean one way; in a debate they do not.
 */
const NOT_FEELING = new Set(
  `yeah yes no ok okay please thank thanks sure well right pretty kind matter want wants wanted
  deficit deficits debt debts competitive competition care interest growth credit pay paid paying cut cuts cutting
  share shares free top wealthy`.split(/\s+/).filter(Boolean),
);
/** "like" expresses a liking only after a subject or auxiliary ("I like", "would like"); elsewhere it is filler or "similar to". */
const LIKING_BEFORE = new Set(['i', 'you', 'we', 'they', 'he', 'she', "i'd", "we'd", "you'd", 'would', 'really', 'do', "don't", "didn't", 'to', 'people', 'folks']);

export interface FeelingOptions {
  /** Words that are the topic being discussed (a question about the deficit): not feelings about it. */
  ignore?: ReadonlySet<string>;
}

/** What the lexicons say of one word: looked up once per word rather than four times per use. */
interface WordFacts {
  stem: string;
  notFeeling: boolean;
  valence: number | undefined;
  emotion: string | undefined;
}
const wordFacts = new Map<string, WordFacts>();
const WORD_FACTS_LIMIT = 100_000;

function factsOf(w: string): WordFacts {
  let f = wordFacts.get(w);
  if (!f) {
    const stemmed = stem(w);
    f = { stem: stemmed, notFeeling: NOT_FEELING.has(w), valence: VALENCE[w], emotion: CUE_BY_STEM.get(stemmed) };
    if (wordFacts.size >= WORD_FACTS_LIMIT) wordFacts.clear();
    wordFacts.set(w, f);
  }
  return f;
}

/** Valence and emotions of `text`. */
export function feelingOf(text: string, options: FeelingOptions = {}): Feeling {
  const tokens = words(text).map((w) => w.replace(/'s$/, ''));
  let sum = 0;
  const carriers: { word: string; score: number }[] = [];
  const emotionCounts = new Map<string, number>();
  const negates = (p: string | undefined) => p !== undefined && (NEGATORS.has(p) || p.endsWith("n't"));
  tokens.forEach((w, i) => {
    const facts = factsOf(w);
    if (facts.notFeeling) return;
    if (options.ignore?.has(facts.stem)) return;
    if (w === 'like' && !LIKING_BEFORE.has(tokens[i - 1] ?? '')) return;
    const negated = negates(tokens[i - 1]) || negates(tokens[i - 2]);
    const base = facts.valence;
    if (base !== undefined) {
      const score = negated ? -base : base;
      sum += score;
      carriers.push({ word: negated ? `not ${w}` : w, score });
    }
    const emotion = facts.emotion;
    if (emotion && !negated) emotionCounts.set(emotion, (emotionCounts.get(emotion) ?? 0) + 1);
  });
  carriers.sort((a, b) => Math.abs(b.score) - Math.abs(a.score) || a.word.localeCompare(b.word));
  const emotions = [...emotionCounts].map(([emotion, count]) => ({ emotion, count })).sort((a, b) => b.count - a.count || a.emotion.localeCompare(b.emotion));
  return { valence: carriers.length ? sum / carriers.length : 0, ratedWords: carriers.length, carriers, emotions };
}

/** A short, checkable description of a Feeling. */
export function describeFeeling(f: Feeling): string {
  if (f.ratedWords === 0 && f.emotions.length === 0) return 'Neutral: the words used carry no emotional charge.';
  const tone = f.valence >= 1 ? 'Positive' : f.valence <= -1 ? 'Negative' : f.valence > 0.3 ? 'Mildly positive' : f.valence < -0.3 ? 'Mildly negative' : 'Mixed or even';
  const uniqueWords = [...new Set(f.carriers.map((c) => c.word))].slice(0, 4).map((w) => `"${w}"`);
  const emotions = f.emotions.slice(0, 2).map((e) => e.emotion);
  const parts = [`${tone} (valence ${f.valence >= 0 ? '+' : ''}${f.valence.toFixed(1)} over ${f.ratedWords} rated words)`];
  if (emotions.length) parts.push(`notes of ${emotions.join(' and ')}`);
  if (uniqueWords.length) parts.push(`carried by ${uniqueWords.join(', ')}`);
  return `${parts.join('; ')}.`;
}
