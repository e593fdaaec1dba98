/** Tokenize each of the mind's turns once; every analyser reads these. */
import { countTokens, type Counts } from './features.ts';
import { countWords, tokenize, type TurnTokens } from './nlp.ts';
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

export function prepareTurns(turns: AnalysisTurn[]): PreparedTurn[] {
  const prepared: PreparedTurn[] = [];
  turns.forEach((turn, position) => {
    if (!turn.isMind || turn.text.trim().length === 0) return;
    const tokens = tokenize(turn.text);
    prepared.push({ turn, position, tokens, counts: countTokens(tokens), words: countWords(turn.text) });
  });
  return prepared;
}
