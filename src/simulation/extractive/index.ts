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
import { buildQuery, isFollowUp, type QueryTerm } from './query.ts';
import { rankMemory, type RankedTurn } from './rank.ts';

export { extractSearchTerms, buildQuery, isFollowUp, MAX_SEARCH_TERMS, type QueryTerm } from './query.ts';
export { rankMemory, type RankedTurn, type Ranking } from './rank.ts';
export { composeAnswer, wordBudget, sourceTurns, nothingRelevantAnswer, type Composition, type UsedSentence } from './compose.ts';
export { feelingOf, describeFeeling, type Feeling } from './sentiment.ts';
export { sentences, words, stem, contentStems, type SentenceSpan } from './text.ts';

export const EXTRACTIVE_MODEL_ID = 'mindprint-extractive-1';

/**
 * Below this share of the question's (idf-weighted) vocabulary found in the turns the answer
 * would draw on, the match is taken for chance and the person says they have not talked
 * about it. Words the person never used nor was asked about weigh most (highest idf), so a
 * question whose specific words are all new to them falls below it.
 */
export const MIN_COVERAGE = 0.3;

/**
 * Share of the question's idf-weighted mass matched by any of `sources` — the answer is
 * composed from several turns, so together they must cover the question.
 */
export function coverageOf(sources: readonly RankedTurn[], query: readonly QueryTerm[], idf: ReadonlyMap<string, number>, terms: ReadonlySet<string>): number {
  const matched = new Set(sources.flatMap((r) => r.matched));
  let total = 0;
  let covered = 0;
  for (const q of query) {
    if (!terms.has(q.stem)) continue;
    const mass = q.weight * (idf.get(q.stem) ?? 0);
    total += mass;
    if (matched.has(q.stem)) covered += mass;
  }
  return total > 0 ? covered / total : 0;
}

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
  // A follow-up is judged on the whole conversation's terms, a fresh question on its own.
  const own = query.filter((q) => q.fromMessage);
  const coverageTerms = new Set((isFollowUp(input.message) || own.length === 0 ? query : own).map((q) => q.stem));
  const { ranked, idf } = rankMemory(input.memory, query, coverageTerms);
  input.signal?.throwIfAborted();

  const sources = sourceTurns(ranked);
  if (sources.length === 0 || coverageOf(sources, query, idf, coverageTerms) < MIN_COVERAGE) {
    const text = nothingRelevantAnswer(query, input.persona, usesContractions(input.memory));
    return { text, evidence: [], analysis: analyseNothingRelevant(query, input.persona, text) };
  }
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
