/** Tokenize each of the mind's turns once; every analyser reads these. */
import { isUnpunctuated, punctuationCounts } from '../ingest/pseudo-sentences.ts';
import { countTokens, UNPUNCTUATED, type Counts } from './features.ts';
import { countWords, tokenize, type TurnTokens } from './nlp.ts';
import { addEmbeddingCounts } from './text-embedding.ts';
import type { AnalysisTurn } from './types.ts';

export interface PreparedTurn {
  turn: AnalysisTurn;
  /**
   * Position of the turn in the transcript (index in the input). Ties are broken by position,
   * never by turn id: ids are random per upload, and the same file must give the same analysis.
   */
  position: number;
  tokens: TurnTokens;
  counts: Counts;
  /** Words as a person counts them (whitespace-separated). */
  words: number;
}

/**
 * Whether the mind's speech as a whole lacks sentence punctuation (fewer than one . ! ? per 60
 * words: auto-captions). Decided for the whole speech, not per turn, so a short unpunctuated reply
 * in a punctuated transcript ("yes I agree") is read like the rest.
 */
export function speechIsUnpunctuated(turns: AnalysisTurn[]): boolean {
  let words = 0;
  let terminators = 0;
  for (const t of turns) {
    if (!t.isMind) continue;
    const c = punctuationCounts(t.text);
    words += c.words;
    terminators += c.terminators;
  }
  return isUnpunctuated({ words, terminators });
}

export function prepareTurns(turns: AnalysisTurn[], unpunctuated = speechIsUnpunctuated(turns)): PreparedTurn[] {
  const prepared: PreparedTurn[] = [];
  turns.forEach((turn, position) => {
    if (!turn.isMind || turn.text.trim().length === 0) return;
    const tokens = tokenize(turn.text, { pseudoSentences: unpunctuated });
    const counts = countTokens(tokens);
    addEmbeddingCounts(counts, turn.text);
    // Punctuation-based features (questions, exclamations, sentence length) are unknown, not zero.
    if (unpunctuated) counts.set(UNPUNCTUATED, 1);
    prepared.push({ turn, position, tokens, counts, words: countWords(turn.text) });
  });
  return prepared;
}
