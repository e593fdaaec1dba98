/** Tokenize each of the mind's turns once; every analyser reads these. */
import { countTokens, type Counts } from './features.ts';
import { countWords, tokenize, type TurnTokens } from './nlp.ts';
import type { AnalysisTurn } from './types.ts';

export interface PreparedTurn {
  turn: AnalysisTurn;
  tokens: TurnTokens;
  counts: Counts;
  /** Words as a person counts them (whitespace-separated). */
  words: number;
}

export function prepareTurns(turns: AnalysisTurn[]): PreparedTurn[] {
  return turns
    .filter((t) => t.isMind && t.text.trim().length > 0)
    .map((turn) => {
      const tokens = tokenize(turn.text);
      return { turn, tokens, counts: countTokens(tokens), words: countWords(turn.text) };
    });
}
