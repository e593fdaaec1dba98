/**
 * The extractive simulation engine: embedded, deterministic, no network. It answers with the
 * person's own sentences, chosen from the candidate memory the service retrieved, and says
 * so honestly when that memory holds nothing relevant.
 *
 * Pipeline: query (message + recent conversation) → BM25F ranking of the turns over what was
 * said and the question it answered → sentence selection within a word budget → evidence
 * (exact quotes) and analysis → streamed out word by word.
 */
import type { Evidence, EngineInput, EngineResult, SimulationEngine } from '../types.ts';
import { analyse, analyseNothingRelevant } from './analysis.ts';
import { composeAnswer, nothingRelevantAnswer, sourceTurns, usesContractions, wordBudget, type UsedSentence } from './compose.ts';
import { buildQuery, isFollowUp } from './query.ts';
import { rankMemory } from './rank.ts';

export { extractSearchTerms, buildQuery, isFollowUp, MAX_SEARCH_TERMS, type QueryTerm } from './query.ts';
export { rankMemory, type RankedTurn, type Ranking } from './rank.ts';
export { composeAnswer, wordBudget, sourceTurns, nothingRelevantAnswer, type Composition, type UsedSentence } from './compose.ts';
export { feelingOf, describeFeeling, type Feeling } from './sentiment.ts';
export { sentences, words, stem, contentStems, type SentenceSpan } from './text.ts';

export const EXTRACTIVE_MODEL_ID = 'mindprint-extractive-1';

/**
 * Below this share of the question's (idf-weighted) vocabulary found in the best turn, the
 * match is taken for chance and the person says they have not talked about it.
 */
export const MIN_COVERAGE = 0.1;

/** One evidence item per contiguous run of sentences used from a turn, so quotes are exact. */
export function evidenceFor(used: readonly UsedSentence[]): Evidence[] {
  const out: Evidence[] = [];
  let runStart: UsedSentence | undefined;
  let last: UsedSentence | undefined;
  const flush = () => {
    if (!runStart || !last) return;
    const t = runStart.turn;
    out.push({ turnId: t.turnId, snapshotId: t.snapshotId, quote: t.text.slice(runStart.span.start, last.span.end), startMs: t.startMs });
  };
  for (const u of used) {
    if (last && u.turn.turnId === last.turn.turnId && u.index === last.index + 1) {
      last = u;
      continue;
    }
    flush();
    runStart = u;
    last = u;
  }
  flush();
  return out;
}

/** The answer for `input`, without streaming. Pure: same input, same result. */
export function answer(input: EngineInput): EngineResult {
  const query = buildQuery(input.message, input.history);
  const coverageTerms = isFollowUp(input.message) ? undefined : new Set(query.filter((q) => q.fromMessage).map((q) => q.stem));
  const { ranked, idf } = rankMemory(input.memory, query, coverageTerms);
  input.signal?.throwIfAborted();

  const best = ranked[0];
  if (!best || best.coverage < MIN_COVERAGE) {
    const text = nothingRelevantAnswer(query, input.persona, usesContractions(input.memory));
    return { text, evidence: [], analysis: analyseNothingRelevant(query, input.persona, text) };
  }
  const sources = sourceTurns(ranked);
  const budget = wordBudget(input.persona, input.memory, sources);
  const { text, used } = composeAnswer(sources, query, idf, budget);
  return { text, evidence: evidenceFor(used), analysis: analyse({ used, query, persona: input.persona, answer: text }) };
}

/** Word-sized pieces of `text` whose concatenation is exactly `text`. */
export function streamPieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [];
}

/** Let the event loop run (socket writes, a client's disconnect) between sentences. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createExtractiveEngine(): SimulationEngine {
  return {
    id: EXTRACTIVE_MODEL_ID,
    engine: 'extractive',
    streams: true,
    async generate(input: EngineInput, onDelta?: (text: string) => void): Promise<EngineResult> {
      input.signal?.throwIfAborted();
      const result = answer(input);
      if (onDelta) {
        for (const piece of streamPieces(result.text)) {
          input.signal?.throwIfAborted();
          onDelta(piece);
          if (/[.!?]["')\]]*\s*$/.test(piece)) await tick();
        }
      }
      input.signal?.throwIfAborted();
      return result;
    },
  };
}
