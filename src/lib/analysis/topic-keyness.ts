/**
 * Key topics, the scoring (step 4 of topics.ts): which candidate terms are key to the speech,
 * by Dunning's log-likelihood against a background of everyday English, after the terms mostly
 * said inside a longer one are absorbed by it.
 */
import { loadBackground } from './background.ts';
import { containsWords } from './topic-labels.ts';
import type { Term } from './topic-terms.ts';

const CANDIDATE_TERMS = 120;
/** A term is absorbed by a longer term containing it that occurs at least this share as often. */
const ABSORB = 0.5;

/** Dunning's G² for a word seen `a` times in `n` words against `b` times in `m` background words. */
function logLikelihood(a: number, n: number, b: number, m: number): number {
  const e1 = (n * (a + b)) / (n + m);
  const e2 = (m * (a + b)) / (n + m);
  return 2 * ((a > 0 ? a * Math.log(a / e1) : 0) + (b > 0 ? b * Math.log(b / e2) : 0));
}

/**
 * The candidate terms that are key to the speech, strongest first (at most CANDIDATE_TERMS), each
 * given its keyness: said often enough (phrases twice, single words `minCount` times, in two
 * sentences), not absorbed by a longer term, and more often than in the background.
 */
export function keyTerms(terms: Map<string, Term>, totalTokens: number, minCount: number): Term[] {
  const background = loadBackground();
  // Frequent enough: phrases twice, single words minCount times, in two sentences.
  const frequent = [...terms.values()].filter((t) => t.count >= (t.words > 1 ? 2 : minCount) && t.sentences.size >= 2);
  // Absorption: a term mostly said inside a longer frequent term is that term.
  const byWord = new Map<string, Term[]>();
  for (const o of frequent) if (o.words > 1) for (const w of new Set(o.lemmas)) byWord.set(w, [...(byWord.get(w) ?? []), o]);
  const absorbed = new Set<Term>();
  for (const t of frequent) {
    const hosts = byWord.get(t.lemmas[0]!) ?? [];
    if (hosts.some((o) => o.words > t.words && o.count >= ABSORB * t.count && containsWords(o.lemmas, t.lemmas))) absorbed.add(t);
  }
  for (const t of frequent) {
    if (absorbed.has(t)) continue;
    // Background count: a phrase's rarest word bounds how often the phrase can occur.
    const bg = t.words === 1
      ? [...t.forms].reduce((s, f) => s + (background.counts[f] ?? 0), 0)
      : Math.min(...t.key.slice(2).split(' ').map((w) => background.counts[w] ?? 0));
    const expectedRate = bg / background.totalWords;
    if (t.count / totalTokens <= expectedRate) continue;
    // Phrases get a bonus: they name a subject more precisely than their head noun.
    t.keyness = logLikelihood(t.count, totalTokens, bg, background.totalWords) * (t.words > 1 ? 1.5 : 1);
  }
  return frequent
    .filter((t) => t.keyness > 0 && !absorbed.has(t))
    .sort((a, b) => b.keyness - a.keyness || (a.key < b.key ? -1 : 1))
    .slice(0, CANDIDATE_TERMS);
}
