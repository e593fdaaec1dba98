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
import type { Evidence, EngineInput, EngineResult, MemoryTurn, SimulationEngine } from '../types.ts';
import { analyse, analyseIntroduction, analyseNothingRelevant } from './analysis.ts';
import { Addressees, AlreadySaid, EXAMPLE, REASON, usesContractions, wordBudget, type ComposeInput, type Composition, type UsedSentence } from './compose.ts';
import { introduce } from './introduce.ts';
import { understand, type Phrase } from '../../lib/language/understand.ts';
import { rankMemory, type RankedTurn } from './rank.ts';
import { exhaustedAnswer, nothingRelevantAnswer, uncoveredCaveat } from './replies.ts';
import { candidatesFor, FEATURES, rerank, rerankEmbedder, shippedModel, turnVectors, type Candidate, type Embed, type RerankModel } from './rerank/index.ts';
import type { FollowUpKind } from '../../lib/language/understand.ts';
import { contentStems, sentences } from '../../lib/language/text.ts';
import { jaccard } from './rank.ts';

export { searchTerms, isFollowUp, understand, phrasesOf, socialIntent, followUpKind, MAX_SEARCH_TERMS, type QueryTerm, type Phrase, type Understanding } from '../../lib/language/understand.ts';
export { rankMemory, type RankedTurn, type Ranking } from './rank.ts';
export { wordBudget, Addressees, AlreadySaid, usableSpan, type ComposeInput, type Composition, type UsedSentence } from './compose.ts';
export { nothingRelevantAnswer, phraseForReply } from './replies.ts';
export { feelingOf, describeFeeling, type Feeling } from './sentiment.ts';
export { sentences, spokenSentences, words, stem, contentStems, type SentenceSpan } from '../../lib/language/text.ts';

export { EXTRACTIVE_MODEL_ID } from '../models.ts';
import { EXTRACTIVE_MODEL_ID } from '../models.ts';

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

/**
 * A message term of a phrase counts as covered by meaning when a turn using one of its words is
 * this similar to the message. Calibrated on the development split against questions of other
 * fields' people (topics mostly never discussed; bench/fidelity.ts): declining those has precision
 * 0.898 / 0.900 / 0.906 / 0.894 and recall 0.238 / 0.242 / 0.260 / 0.265 at 0.5 / 0.6 / 0.65 / 0.7,
 * the own held-out questions declined 6, 6, 6, 7 of 127; without it (lexical cover only) 12 of 127.
 */
const SEMANTIC_COVER = 0.65;
const COVERAGE_FEATURE = FEATURES.indexOf('coverage');
const FULL_COVERAGE = 0.99;
/**
 * Kept (issue 22, re-measured on the development split with the retrained reranker and the BM25F
 * blend below): without it specificity AUC 0.649, beyond the question 0.568, persona win 0.617
 * against 0.662 / 0.567 / 0.621 with it (token F1 0.248 against 0.225: it picks shorter passages);
 * and without it a verb asked about outweighs the name in a small memory ("move to China"
 * answered with "we move fast"; test/engines/extractive/reply.test.ts).
 */
const FULL_COVERAGE_BONUS = 1;
/**
 * Weight of BM25F's score (relative to the best candidate's, 0–1) added to the reranker's. Swept on
 * the development split (issue 22; reranker retrained, full-coverage bonus on): specificity AUC /
 * beyond the question / persona win 0.652 / 0.563 / 0.579 without it, 0.662 / 0.567 / 0.621 at 1
 * (with the previous model: 0.658 / 0.576 / 0.602 at 0, 0.659 / 0.576 / 0.613 at 0.5, 0.664 / 0.576 /
 * 0.619 at 1, 0.660 / 0.571 / 0.630 at 2). Tried and worse (previous model): the reranker only
 * among BM25F's top 3 (0.654 / 0.566 / 0.617); without the full-coverage bonus, this blend
 * (0.640 / 0.566 / 0.579), 0.5 × 1/rank instead (0.627 / 0.567 / 0.598), BM25F's top 5 (0.628 / 0.547 / 0.579).
 */
const BM25_BLEND = 1;
const BM25_FEATURE = FEATURES.indexOf('bm25');
/** Follow-ups: a turn this close (in transcript order) to one the last answer quoted gets this much more score. */
const NEAR_LAST_ANSWER = 4;
const NEAR_LAST_ANSWER_BONUS = 3;
/** …and one that gives what the follow-up asks for (a reason for "why?", an example) this much. */
const FOLLOW_UP_KIND_BONUS = 1.5;
/** A follow-up's candidate is on the conversation's topic with this share of the best candidate's query weight. */
const FOLLOW_UP_ON_TOPIC = 0.5;
/**
 * A message whose content words are this close (Jaccard) to a question the person was already
 * asked (among the candidates) is that question again, or nearly: the person's reply to it is
 * the answer. Chosen on the development split (specificity AUC 0.637 at 0.8, 0.646 at 0.5, 0.653
 * at 0.35, 0.646 at 0.25 and 0.15; "beyond the question" 0.560, 0.566, 0.571, 0.561, 0.566).
 */
const ASKED_BEFORE = 0.35;

/** Options of `answer` beyond the input: the sentence embedding and the reranker model. */
export interface AnswerOptions {
  embed?: Embed;
  model?: RerankModel;
  /** Sees each candidate list the reranker scores, with the budget (the training script collects them). */
  onCandidates?: (candidates: readonly Candidate[], budget: number) => void;
  /**
   * Compose the reply from sentences instead of choosing a passage: the composer of earlier
   * versions, kept for the "before" column of bench/fidelity.ts (bench/support/composer.ts).
   */
  compose?: (input: ComposeInput) => Composition;
}

/** The question a turn answered: the last sentence with a question mark of what was said before it (else all of it). */
function questionOf(context: string): string {
  const asks = sentences(context).filter((x) => x.text.includes('?'));
  return asks.length > 0 ? asks.at(-1)!.text : context;
}

/** Whether `message` is, word for word or nearly, the question `turn` answered. */
export function askedBefore(message: string, turn: Pick<MemoryTurn, 'context'>): boolean {
  if (!turn.context) return false;
  const a = new Set(contentStems(message));
  return a.size > 0 && jaccard(a, new Set(contentStems(questionOf(turn.context)))) >= ASKED_BEFORE;
}

/**
 * The reply chosen by the reranker among the retrieved candidates (the person's reply to the same
 * question when memory holds it): one passage of one turn, even when the message asks two things
 * (issue 22: a second passage for a second ask measured no better on the development split,
 * specificity AUC 0.654 with it and 0.658 without, persona win 0.604 and 0.602). Filler sentences
 * never enter a passage (passage.ts); in a follow-up, turns around the last answer are favoured.
 */
function chooseReply(
  input: EngineInput,
  o: { embed: Embed; model: RerankModel; onCandidates?: AnswerOptions['onCandidates']; ranked: readonly RankedTurn[]; weight: Map<string, number>; budget: number; addressees: Addressees; saidBefore: AlreadySaid; followUp: FollowUpKind | null; query: string },
): UsedSentence[] {
  const cited = new Map<string, number[]>();
  if (o.followUp) {
    const last = [...input.history].reverse().find((m) => m.role === 'assistant' && m.evidence?.length);
    const byId = new Map(input.memory.map((t) => [t.turnId, t]));
    for (const e of last?.evidence ?? []) {
      const t = byId.get(e.turnId);
      if (t) cited.set(t.snapshotId, [...(cited.get(t.snapshotId) ?? []), t.seq]);
    }
  }
  const pick = (message: string, budget: number): Candidate | null => {
    let candidates = candidatesFor({
      message,
      memory: input.memory,
      ranked: o.ranked,
      passage: { budget, weight: o.weight, addressees: o.addressees, saidBefore: o.saidBefore },
      embed: o.embed,
      messageVector: o.embed(message),
    });
    // The reply names something asked about, when any candidate's passage does (found by meaning
    // alone, a turn may be on another subject that merely sounds alike).
    // In a follow-up, the turns around the last answer are on the conversation's topic by their place.
    const isNear = (c: Candidate) => nearness(c) > 0;
    // What came right after the last answer goes on from it; the rest of that turn, or what came before, less so.
    const nearness = (c: Candidate) =>
      Math.max(
        0,
        ...(cited.get(c.turn.snapshotId) ?? []).map((seq) => {
          const d = c.turn.seq - seq;
          return d > 0 && d <= NEAR_LAST_ANSWER ? 1 : d === 0 ? 0.75 : d < 0 && d >= -NEAR_LAST_ANSWER ? 0.5 : 0;
        }),
      );
    // Asked before: the person's own reply to that question (as the passage of it the budget
    // holds), even when its words name nothing asked ("What's a good ACV…?" → "Anywhere between
    // 50 to 200K…"): the question it answered does.
    const same = o.followUp ? [] : candidates.filter((c) => askedBefore(message, c.turn));
    const naming = candidates.filter((c) => c.passage.relevance > 0 || isNear(c));
    if (naming.length > 0) candidates = naming;
    o.onCandidates?.(candidates, budget);
    if (same.length > 0) return rerank(same, o.model)[0]!.c;
    const topRelevance = Math.max(0, ...candidates.map((c) => c.passage.relevance));
    const bareFollowUp = o.followUp !== null && contentStems(input.message).length === 0;
    // The turns that name the most of what is asked (of the query's weight; all of it at best) are
    // a safe pick the learned score, which favours long passages, may miss in a small memory. (Not
    // in a follow-up: its few words say little; the place after the last answer says more.)
    const bestCoverage = Math.min(FULL_COVERAGE, Math.max(0, ...candidates.map((c) => c.features[COVERAGE_FEATURE]!)));
    // The learned score plus BM25F's (relative to the best candidate's): the reranker alone, which
    // favours long passages, chose answers less particular to the person than BM25F alone did.
    const scored = rerank(candidates, o.model).map(({ c, score: learned }) => {
      const score = learned + BM25_BLEND * c.features[BM25_FEATURE]! + (!o.followUp && bestCoverage > 0 && c.features[COVERAGE_FEATURE]! >= bestCoverage ? FULL_COVERAGE_BONUS : 0);
      if (!o.followUp) return { c, score };
      // A follow-up goes on from the last answer: turns around it, and for "why?" a reason, for
      // "an example?" an example, on its topic.
      const onTopic = c.passage.relevance > 0 && c.passage.relevance >= topRelevance * FOLLOW_UP_ON_TOPIC;
      // A follow-up with no subject of its own ("Why?", "Can you say more about that?") means more
      // on the same thing: near the last answer counts only for a turn that still names the
      // conversation's subject, since a debate moves on within a few turns. One with a word of its
      // own ("And how soon?") takes the turns around the last answer as they are.
      const near = bareFollowUp && c.passage.relevance <= 0 ? 0 : nearness(c);
      const text = c.passage.used.map((u) => u.span.text).join(' ');
      const fits = (o.followUp === 'why' && REASON.test(text)) || (o.followUp === 'example' && EXAMPLE.test(text));
      return { c, score: score + near * NEAR_LAST_ANSWER_BONUS + (fits && onTopic ? FOLLOW_UP_KIND_BONUS : 0) };
    });
    scored.sort((a, b) => b.score - a.score);
    return scored[0]?.c ?? null;
  };
  const best = pick(o.query, o.budget);
  return best ? best.passage.used : [];
}

/** The answer for `input`, without streaming. Pure: same input, same result. */
export function answer(input: EngineInput, options: AnswerOptions = {}): EngineResult {
  const name = input.persona.name || input.mindName;
  const u = input.understanding ?? understand(input.message, input.history, name.split(/\s+/));
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
  // The query as meaning: the message, and for a follow-up the question it follows up on.
  const anchor = u.leansOnHistory ? [...input.history].reverse().find((m) => m.role === 'user')?.text : undefined;
  const queryText = anchor ? `${anchor} ${input.message}` : input.message;
  const embed = options.embed;
  const messageVector = embed ? embed(queryText) : null;
  const similar = (t: RankedTurn['turn']) => {
    if (!embed || !messageVector) return 0;
    let s = 0;
    const v = turnVectors(t, embed).text;
    for (let i = 0; i < v.length; i++) s += v[i]! * messageVector[i]!;
    return s;
  };
  // A phrase is also covered by a turn that uses one of its words and means much the same as the
  // message ("morning routine" → a turn on morning meditation and light).
  const semanticallyCovered = (p: Phrase) => {
    const stems = new Set(rankedStems(p, splits));
    return ranked.some((r) => r.matched.some((s) => stems.has(s)) && similar(r.turn) >= SEMANTIC_COVER);
  };
  const covered = new Map(main.map((p) => [p, phraseCovered(p, ranked, splits, own) || semanticallyCovered(p)]));
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
  const model = options.model ?? (embed ? shippedModel() : undefined);
  let composed: { text: string; used: UsedSentence[] };
  if (options.compose) {
    composed = options.compose({ ranked: sources, query, idf, budget, addressees, saidBefore, followUp: u.leansOnHistory ? (u.followUp ?? 'more') : null, ownOnly: own, asked });
  } else {
    if (!embed || !model) throw new Error('answer: the reply is chosen with sentence embeddings (options.embed; createExtractiveEngine passes them)');
    const weight = new Map(query.map((q) => [q.stem, q.weight * (idf.get(q.stem) ?? 0)]));
    const used = chooseReply(input, { embed, model, onCandidates: options.onCandidates, ranked: sources, weight, budget, addressees, saidBefore, followUp: u.leansOnHistory ? (u.followUp ?? 'more') : null, query: queryText });
    // The answer is its evidence: each passage quoted exactly as it was said.
    composed = { text: evidenceFor(used).map((e) => e.quote.replace(/\n/g, ' ')).join(' '), used };
  }
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
      const result = answer(input, { embed: await rerankEmbedder(), ...(input.reranker ? { model: input.reranker } : {}) });
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
