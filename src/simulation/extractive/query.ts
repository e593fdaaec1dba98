/**
 * What the person is being asked, as weighted terms. The current message weighs most; the
 * recent conversation adds its topic so that a follow-up ("why is that?") still finds the
 * turns about what was being discussed. The SQL preselection (extractSearchTerms) and the
 * ranking use the same terms, so what the service fetches is what the engine scores.
 */
import type { ConversationMessage } from '../types.ts';
import { isContentWord, stem, words } from './text.ts';

/** One query term: its stem (what matching uses) and the surface word (what SQL gets). */
export interface QueryTerm {
  stem: string;
  word: string;
  /** How much a match on this term counts: 1 for the message, less for older context. */
  weight: number;
  /** Whether the term comes from the current message (as opposed to the history). */
  fromMessage: boolean;
}

/** Words that mark a message as leaning on what came before. */
const FOLLOW_UP_CUES = new Set(['that', 'this', 'it', 'those', 'these', 'them', 'more', 'why', 'elaborate', 'example', 'else', 'mean', 'so']);

/** How many of the latest history messages are considered, newest first. */
const HISTORY_WINDOW = 4;

/** Weight of the latest user message, the one before it, …; assistant messages count less. */
const USER_DECAY = [0.5, 0.25, 0.15];
const ASSISTANT_WEIGHT = 0.2;

/**
 * Whether `message` reads as a follow-up: few content words of its own, or an explicit
 * back-reference. Then the history weighs twice as much.
 */
export function isFollowUp(message: string): boolean {
  const all = words(message);
  const content = all.filter(isContentWord);
  return content.length <= 2 || (all.length <= 8 && all.some((w) => FOLLOW_UP_CUES.has(w)));
}

/** The weighted query for `message` in the context of `history` (oldest first). */
export function buildQuery(message: string, history: readonly ConversationMessage[]): QueryTerm[] {
  const terms = new Map<string, QueryTerm>();
  const add = (text: string, weight: number, fromMessage: boolean) => {
    for (const w of words(text)) {
      if (!isContentWord(w)) continue;
      const s = stem(w);
      const word = w.replace(/'s$/, '').replace(/'.*$/, '');
      const seen = terms.get(s);
      if (!seen) terms.set(s, { stem: s, word, weight, fromMessage });
      else if (weight > seen.weight) terms.set(s, { ...seen, weight, fromMessage: seen.fromMessage || fromMessage });
    }
  };
  add(message, 1, true);

  const followUp = isFollowUp(message);
  const boost = followUp ? 2 : 1;
  let userIndex = 0;
  const recent = history.slice(-HISTORY_WINDOW).reverse();
  for (const m of recent) {
    if (m.role === 'user') {
      const w = USER_DECAY[userIndex++];
      if (w !== undefined) add(m.text, Math.min(1, w * boost), false);
    } else if (m === recent.find((x) => x.role === 'assistant')) {
      add(m.text, Math.min(1, ASSISTANT_WEIGHT * boost), false);
    }
  }
  return [...terms.values()];
}

/** At most this many terms go to the full-text query: enough for a topic, few enough to stay fast. */
export const MAX_SEARCH_TERMS = 16;

/**
 * The content words (lower-case, stopwords removed, at most 16) that the service's SQL
 * retrieval should OR together in a full-text query: the message's own words first, then
 * the words of the recent conversation by decreasing weight. Words are plain [a-z0-9]
 * and safe to place in `to_tsquery` once joined with ` | `.
 */
export function extractSearchTerms(message: string, history: ConversationMessage[]): string[] {
  const ranked = buildQuery(message, history)
    .map((t, i) => ({ t, i }))
    .sort((a, b) => b.t.weight - a.t.weight || a.i - b.i)
    .map(({ t }) => t.word.normalize('NFKD').replace(/[^\p{L}\p{N}]/gu, '').toLowerCase())
    .filter((w) => w.length >= 2);
  return [...new Set(ranked)].slice(0, MAX_SEARCH_TERMS);
}
