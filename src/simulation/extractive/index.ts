/**
 * The extractive simulation engine: embedded, deterministic, no network. It answers with the
 * person's own sentences, chosen from the candidate memory the service retrieved, and says
 * so honestly when that memory holds nothing relevant.
 *
 * Pipeline: understanding the message (main ask, noun phrases, follow-up or greeting) → BM25F
 * ranking of the turns over what was said and the question it answered (compounds written apart
 * found too) → is each phrase asked about in memory? → sentence selection within a word budget,
 * leaving out what the conversation already quoted → evidence (exact quotes) and analysis →
 * streamed out word by word.
 */
import type { Evidence, EngineInput, EngineResult, SimulationEngine } from '../types.ts';
import { analyse, analyseIntroduction, analyseNothingRelevant } from './analysis.ts';
import { Addressees, AlreadySaid, composeAnswer, usesContractions, wordBudget, type UsedSentence } from './compose.ts';
import { introduce } from './introduce.ts';
import { understand, type Phrase } from './query.ts';
import { rankMemory, type RankedTurn } from './rank.ts';
import { exhaustedAnswer, nothingRelevantAnswer, uncoveredCaveat } from './replies.ts';

export { extractSearchTerms, buildQuery, isFollowUp, understand, phrasesOf, socialIntent, followUpKind, MAX_SEARCH_TERMS, type QueryTerm, type Phrase, type Understanding } from './query.ts';
export { rankMemory, type RankedTurn, type Ranking } from './rank.ts';
export { composeAnswer, wordBudget, Addressees, AlreadySaid, usableSpan, type Composition, type UsedSentence } from './compose.ts';
export { nothingRelevantAnswer, phraseForReply } from './replies.ts';
export { feelingOf, describeFeeling, type Feeling } from './sentiment.ts';
export { sentences, spokenSentences, words, stem, contentStems, type SentenceSpan } from './text.ts';

export const EXTRACTIVE_MODEL_ID = 'mindprint-extractive-1';

/**
 * Nouns of someone's own life: asked about "your mother", a turn about someone else's mother is
 * not an answer; only one where it is the person's own ("my mother", "our kids") is.
 */
const PERSONAL = new Set(
  `mother mom mum father dad parent parents wife husband spouse partner kid kids child children son sons daughter daughters
  brother brothers sister sisters family grandmother grandma grandfather grandpa grandparents childhood upbringing hometown
  girlfriend boyfriend friend friends dog dogs cat cats pet pets hobby hobbies birthday wedding marriage`.split(/\s+/).filter(Boolean),
);

/** A turn says a phrase's `word` is the person's own: "my mother", "our two kids". */
function ownPattern(word: string): RegExp {
  const escaped = word.toLowerCase().replace(/[^\p{L}]/gu, '');
  return new RegExp(`\\b(my|our)\\s+(\\S+\\s+)?${escaped}`, 'i');
}

/** Stems of `phrase` as the ranking matched them (compounds split where memory writes them apart). */
function rankedStems(phrase: Phrase, splits: ReadonlyMap<string, [string, string]>): string[] {
  return phrase.stems.flatMap((s) => splits.get(s) ?? [s]);
}

/**
 * Whether some turn talks about `phrase`: it has the phrase's last word (its head: "topping" of
 * "favourite pizza topping") and at least half of the others ("climate change" needs both words;
 * "denied enhanced security" the head and one more) — the person's own, for "your mother".
 */
function phraseCovered(phrase: Phrase, ranked: readonly RankedTurn[], splits: ReadonlyMap<string, [string, string]>, own: ReadonlyMap<string, RegExp>): boolean {
  const stems = rankedStems(phrase, splits);
  const head = stems.at(-1)!;
  const rest = stems.slice(0, -1);
  const needed = Math.ceil(rest.length / 2);
  const has = (r: RankedTurn, s: string) => r.matched.includes(s) && (!own.has(s) || own.get(s)!.test(r.turn.text));
  return ranked.some((r) => has(r, head) && rest.filter((s) => has(r, s)).length >= needed);
}

/** Whether no turn uses any word of `phrase`: the person never talked about it at all. */
function phraseAbsent(phrase: Phrase, ranked: readonly RankedTurn[], splits: ReadonlyMap<string, [string, string]>): boolean {
  const stems = new Set(rankedStems(phrase, splits));
  return !ranked.some((r) => r.matched.some((s) => stems.has(s)));
}

/** One evidence item per contiguous run of sentences used from a turn, so quotes are exact. */
export function evidenceFor(used: readonly Pick<UsedSentence, 'turn' | 'span' | 'index'>[]): Evidence[] {
  const out: Evidence[] = [];
  let runStart: Pick<UsedSentence, 'turn' | 'span' | 'index'> | undefined;
  let last: Pick<UsedSentence, 'turn' | 'span' | 'index'> | undefined;
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
  const name = input.persona.name || input.mindName;
  const u = understand(input.message, input.history, name.split(/\s+/));
  // Only the few sentences said in the engine's own words need the register: computed when needed.
  let register: boolean | undefined;
  const informal = () => (register ??= usesContractions(input.memory));
  const addressees = new Addressees(input.otherSpeakers ?? [], name);
  const saidBefore = new AlreadySaid(
    input.history.flatMap((m) => (m.role === 'assistant' ? (m.evidence ?? []) : [])),
    input.memory,
  );

  if (u.social) {
    const intro = introduce(u.social, input.memory, input.persona, addressees, saidBefore, informal());
    return { text: intro.text, evidence: evidenceFor(intro.used), analysis: analyseIntroduction(u.social, intro.used, input.persona, intro.text) };
  }

  const { ranked, idf, query, splits } = rankMemory(input.memory, u.query);
  input.signal?.throwIfAborted();
  const own = new Map<string, RegExp>();
  for (const p of u.phrases) {
    if (!p.yours) continue;
    const words = p.text.split(/[\s-]+/);
    p.stems.forEach((s, i) => {
      if (PERSONAL.has(words[i]!.toLowerCase())) own.set(s, ownPattern(words[i]!));
    });
  }
  const main = u.phrases.some((p) => p.main) ? u.phrases.filter((p) => p.main) : u.phrases;
  const covered = new Map(main.map((p) => [p, phraseCovered(p, ranked, splits, own)]));
  const uncovered = main.filter((p) => !covered.get(p));
  const decline = () => {
    const text = nothingRelevantAnswer(uncovered.length ? uncovered : main, input.persona, informal());
    return { text, evidence: [], analysis: analyseNothingRelevant(uncovered.length ? uncovered : main, input.persona, text) };
  };
  if (ranked.length === 0 || (main.length > 0 && uncovered.length === main.length) || (main.length === 0 && !u.leansOnHistory)) return decline();

  // A personal noun asked about as "yours" counts only where it is the person's own.
  const rankedOwn = own.size === 0 ? ranked : ranked.filter((r) => !r.matched.every((s) => own.has(s) && !own.get(s)!.test(r.turn.text)));
  // The answer is about the main ask: turns on its phrases, when there are any; a preamble's
  // words ("As a former organizer in Chicago, …") only break ties among them.
  const asked = new Set(main.filter((p) => covered.get(p)).flatMap((p) => rankedStems(p, splits)));
  for (const q of query) if (q.joined?.every((s) => asked.has(s))) asked.add(q.stem);
  const onMain = rankedOwn.filter((r) => r.matched.some((s) => asked.has(s)));
  const sources = onMain.length > 0 ? onMain : rankedOwn;
  const budget = wordBudget(input.persona, input.memory, sources, /\?/.test(input.message));
  const composed = composeAnswer({ ranked: sources, query, idf, budget, addressees, saidBefore, followUp: u.leansOnHistory ? (u.followUp ?? 'more') : null, ownOnly: own, asked });
  if (composed.used.length === 0) {
    if (!saidBefore.empty) {
      const text = exhaustedAnswer(main, informal());
      return { text, evidence: [], analysis: analyseNothingRelevant(main, input.persona, text, true) };
    }
    return decline();
  }
  // Answer the part of the question that memory covers; name only the part it does not.
  // (A follow-up does not repeat the caveat its question already had.)
  const never = u.leansOnHistory ? [] : uncovered.filter((p) => phraseAbsent(p, ranked, splits));
  const text = never.length > 0 ? `${composed.text} ${uncoveredCaveat(never, informal())}` : composed.text;
  return {
    text,
    evidence: evidenceFor(composed.used),
    analysis: analyse({ used: composed.used, query, phrases: main.filter((p) => covered.get(p)), message: input.message, persona: input.persona, answer: text }),
  };
}

/** Word-sized pieces of `text` whose concatenation is exactly `text`. */
export function streamPieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [];
}

/** Let the event loop run (socket writes, a client's disconnect) between pieces. */
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
          await tick();
        }
      }
      input.signal?.throwIfAborted();
      return result;
    },
  };
}
