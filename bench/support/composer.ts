/**
 * The sentence-stitching composer of the extractive engine before issue 11 (moved out of src/ by
 * issue 22): the answer is a selection of sentences from the best-ranked turns (up to five),
 * trimmed to the ones that bear on the question, about as long as the person usually speaks. The
 * engine now quotes one passage chosen by the reranker; this composer only runs as the "before"
 * column of bench/fidelity.ts (through `answer(input, { compose: composeAnswer })`).
 *
 *  - it opens with the most relevant sentence; a sentence naming nothing asked about is only
 *    admitted right after a relevant one of the same turn (as its continuation);
 *  - sentences that belonged to their original setting are left out (usableSpan);
 *  - what the conversation already quoted is not said again; a follow-up ("why?", "say more",
 *    "give me an example") prefers what came right after it, reasons, or examples.
 */
import type { RankedTurn } from '../../src/engines/extractive/rank.ts';
import { contentStems, words } from '../../src/lib/language/text.ts';
import { sentencesOf } from '../../src/engines/extractive/turn-index.ts';
import { BACK_REFERENCE, EXAMPLE, overlap, REASON, SAME_THING, usableSpan, type ComposeInput, type Composition, type UsedSentence } from '../../src/engines/extractive/compose.ts';

/** Turns scoring below this share of the best usable one are not drawn from. */
const MIN_RELATIVE_TURN_SCORE = 0.3;
/** At most this many turns contribute sentences. */
const MAX_SOURCE_TURNS = 5;
/** How deep in the ranking turns with something left to say are looked for. */
const SCAN_DEPTH = 40;
/** Weight of a sentence's own relevance against its turn's. */
const SENTENCE_RELEVANCE_WEIGHT = 0.6;
/** People tend to lead with their point: the first sentence of a turn gets a small bonus. */
const LEAD_BONUS = 0.1;
/** A turn the conversation already quoted counts this share of its score for a new question. */
const CITED_TURN_FACTOR = 0.5;
/** Follow-ups: what came right after the quoted sentences, reasons for "why", examples for "example". */
const NEXT_SENTENCE_BONUS = 0.5;
const NEAR_SENTENCE_BONUS = 0.25;
const REASON_BONUS = 0.5;
const EXAMPLE_BONUS = 0.6;
const SPECIFICS_BONUS = 0.2;
/** Relevance the first sentences of a turn take from the question it answered (its context)… */
const ANSWER_OPENING = [0.5, 0.25];
/** …when they say something: "Excited to be here." answers no question. */
const OPENING_MIN_WORDS = 8;
/** Turns beyond the usual sources an example may come from. */
const MAX_EXAMPLE_TURNS = 3;
/** Continuations (sentences right after a chosen one) fill the answer up to this share of the budget. */
const CONTINUATION_FILL = 0.85;
/** A sentence may overshoot the remaining budget by this factor and still be taken. */
const OVERSHOOT = 1.5;

const SPECIFICS = /\d|\b(?!I\b)\p{Lu}\p{Ll}+\b/u;


interface Candidate extends UsedSentence {
  /** Relevance from its own words on what the main ask is about (not from the question its turn answered). */
  own: number;
  score: number;
  words: number;
  vocab: Set<string>;
  /** Eligible on its own (relevant, or a follow-up's natural next sentence); else only as a continuation. */
  eligible: boolean;
}

/** Sentences of `turn` as candidates, with their relevance; unusable and already-said ones left out. */
function candidatesOf(r: RankedTurn, turnScore: number, input: ComposeInput, weight: ReadonlyMap<string, number>): Candidate[] {
  const spans = sentencesOf(r.turn);
  const out: Candidate[] = [];
  // A turn found through the question it answered opens with the answer to it.
  let asked = 0;
  if (r.turn.context) for (const s of new Set(contentStems(r.turn.context))) asked += weight.get(s) ?? 0;
  spans.forEach((raw, index) => {
    const span = usableSpan(raw, input.addressees);
    if (!span) return;
    const stems = contentStems(span.text);
    if (stems.length === 0) return;
    const vocab = new Set(stems);
    if (input.saidBefore.said(r.turn, raw, vocab)) return;
    let relevance = 0;
    let own = 0;
    for (const s of vocab) {
      const w = weight.get(s);
      if (!w) continue;
      const mine = input.ownOnly?.get(s);
      if (mine && !mine.test(span.text)) continue;
      relevance += w;
      if (!input.asked || input.asked.size === 0 || input.asked.has(s)) own += w;
    }
    const n = words(span.text).length;
    if (index < ANSWER_OPENING.length && n >= OPENING_MIN_WORDS) relevance = Math.max(relevance, asked * ANSWER_OPENING[index]!);
    let bonus = index === 0 ? LEAD_BONUS : 0;
    let eligible = relevance > 0;
    if (input.followUp) {
      const d = input.saidBefore.distance(r.turn, index, spans);
      if (d !== null && input.followUp !== 'example') {
        bonus += d === 1 ? NEXT_SENTENCE_BONUS : d <= 3 ? NEAR_SENTENCE_BONUS : 0;
        // What came right after a quoted sentence goes on from it, whatever its words.
        eligible ||= d === 1;
      }
      // In a turn on the topic, the reason given answers "why", the example given "for example?".
      if (input.followUp === 'why' && REASON.test(span.text)) {
        bonus += REASON_BONUS;
        eligible = true;
      }
      if (input.followUp === 'example') {
        if (EXAMPLE.test(span.text)) {
          bonus += EXAMPLE_BONUS;
          eligible = true;
        }
        if (SPECIFICS.test(span.text.slice(1))) bonus += SPECIFICS_BONUS;

      }
    }
    out.push({ turn: r.turn, span, index, relevance, own, score: turnScore + bonus, words: n, vocab, eligible });
  });
  return out;
}

/**
 * Choose sentences for the answer: each scored by its turn's rank score, by how many query
 * terms (idf-weighted) it contains itself and, for a follow-up, by what it adds to what was
 * said; picked best-first until the word budget is met, then continued with the sentences
 * right after the chosen ones; laid out as a reply (see the module comment).
 */
export function composeAnswer(input: ComposeInput): Composition {
  const weight = new Map(input.query.map((q) => [q.stem, q.weight * (input.idf.get(q.stem) ?? 0)]));
  const pool: { r: RankedTurn; candidates: Candidate[] }[] = [];
  let top = 0;
  let examples = 0;
  for (const r of input.ranked.slice(0, SCAN_DEPTH)) {
    const full = pool.length >= MAX_SOURCE_TURNS || (top > 0 && r.score < top * MIN_RELATIVE_TURN_SCORE);
    // Asked for an example, the person reaches further for one on the same topic.
    if (full && (input.followUp !== 'example' || examples >= MAX_EXAMPLE_TURNS)) break;
    const cited = input.saidBefore.citedTurns.has(r.turn.turnId);
    const score = input.followUp || !cited ? r.score : r.score * CITED_TURN_FACTOR;
    const candidates = candidatesOf(r, score, input, weight);
    const example = candidates.some((c) => c.eligible && c.relevance > 0 && EXAMPLE.test(c.span.text));
    // A turn is drawn from for what it says on the question (or, for "why", a reason it gives);
    // what merely follows a quoted sentence rides along with it, never brings a turn in alone.
    const onTopic = candidates.some((c) => c.eligible && (c.relevance > 0 || (input.followUp === 'why' && REASON.test(c.span.text))));
    if (full ? !example : !onTopic) continue;
    if (example) examples++;
    top = Math.max(top, score);
    pool.push({ r, candidates });
  }
  const all = pool.flatMap((p) => p.candidates);
  const maxRelevance = Math.max(0, ...all.map((c) => c.relevance));
  for (const c of all) {
    c.score = (top > 0 ? c.score / top : 0) + (maxRelevance > 0 ? (SENTENCE_RELEVANCE_WEIGHT * c.relevance) / maxRelevance : 0);
  }

  const order = all
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.eligible)
    .sort((a, b) => b.c.score - a.c.score || a.i - b.i)
    .map(({ c }) => c);
  const chosen: Candidate[] = [];
  let total = 0;
  const take = (c: Candidate, limit: number): boolean => {
    if (chosen.includes(c) || total >= limit) return false;
    if (chosen.length > 0 && c.words > (limit - total) * OVERSHOOT) return false;
    if (chosen.some((k) => overlap(k.vocab, c.vocab) >= SAME_THING)) return false; // said twice, use once
    chosen.push(c);
    total += c.words;
    return true;
  };
  for (const c of order) if (total < input.budget) take(c, input.budget);
  const byTurn = new Map(pool.map((p) => [p.r.turn.turnId, p.candidates]));
  // Antecedents: "And that is, …" needs the sentence it points back to.
  for (const c of [...chosen]) {
    if (!BACK_REFERENCE.test(c.span.text)) continue;
    const previous = byTurn.get(c.turn.turnId)?.find((k) => k.index === c.index - 1);
    if (previous) take(previous, input.budget * OVERSHOOT);
  }
  // Continuations: the sentence right after a chosen one carries its thought on.
  for (let pass = 0; pass < 2 && total < input.budget * CONTINUATION_FILL; pass++) {
    for (const c of [...chosen].sort((a, b) => b.score - a.score)) {
      const next = byTurn.get(c.turn.turnId)?.find((k) => k.index === c.index + 1);
      if (next) take(next, input.budget * CONTINUATION_FILL);
    }
  }
  const used = layout(chosen).map(({ turn, span, index, relevance }) => ({ turn, span, index, relevance }));
  return { text: used.map((u) => u.span.text).join(' '), used };
}

/**
 * The chosen sentences as a reply: turn by turn (best turn first), each turn's sentences in the
 * order they were said — except that the answer opens with the run of consecutive sentences
 * holding the best one, so it leads with its point.
 */
function layout(chosen: readonly Candidate[]): Candidate[] {
  if (chosen.length === 0) return [];
  const best = leadOf(chosen);
  const groups = new Map<string, Candidate[]>();
  for (const c of chosen) {
    const g = groups.get(c.turn.turnId) ?? [];
    g.push(c);
    groups.set(c.turn.turnId, g);
  }
  const ordered = [...groups.values()]
    .map((g) => g.sort((a, b) => a.index - b.index))
    .sort((a, b) => Number(b.includes(best)) - Number(a.includes(best)) || Math.max(...b.map((c) => c.score)) - Math.max(...a.map((c) => c.score)));
  const first = ordered[0]!;
  let from = first.indexOf(best);
  let to = from;
  while (from > 0 && first[from - 1]!.index === first[from]!.index - 1 && first[from - 1]!.relevance > 0) from--;
  while (from < first.indexOf(best) && BACK_REFERENCE.test(first[from]!.span.text)) from++;
  while (to + 1 < first.length && first[to + 1]!.index === first[to]!.index + 1) to++;
  const lead = first.slice(from, to + 1);
  const rest = first.filter((c) => !lead.includes(c));
  // A sentence left without the relevant one it continued does not open anything: drop it.
  const reply = [...lead, ...rest, ...ordered.slice(1).flat()];
  return reply.filter((c, i) => c.relevance > 0 || c.eligible || (i > 0 && reply[i - 1]!.turn === c.turn && reply[i - 1]!.index === c.index - 1));
}

/** A spoken connective opening a sentence ("And so…"): fine in the middle of an answer, less so to open it. */
const CONNECTIVE = /^["'\u201C]?(and|but|so|or|now|because)\b/i;
const CONNECTIVE_LEAD_PENALTY = 0.1;
/** A sentence to open with is long enough to make a point. */
const LEAD_MIN_WORDS = 6;
/** A sentence this close to the best one's score may open the answer instead of it. */
const LEAD_SCORE_SHARE = 0.75;
/** Asked what they think, people open with their own view ("My philosophy…", "I want…"), not someone else's. */
const OWN_VIEW_LEAD_BONUS = 0.15;
const OWN_VIEW = /\b(I|I'm|I've|I'd|I'll|my|we|we're|we've|we'll|our)\b/;

/**
 * The sentence the answer opens with: among those nearly as good as the best, one that stands on
 * its own (does not lean on the sentence before, is long enough to make a point), preferring the
 * person's own view; the best one when none does.
 */
function leadOf(chosen: readonly Candidate[]): Candidate {
  const best = chosen.reduce((a, b) => (b.score > a.score ? b : a));
  const lead = (c: Candidate) => c.score + (OWN_VIEW.test(c.span.text) ? OWN_VIEW_LEAD_BONUS : 0) - (CONNECTIVE.test(c.span.text) ? CONNECTIVE_LEAD_PENALTY : 0);
  // It names what was asked in its own words, when any chosen sentence does.
  const named = chosen.some((c) => c.own > 0);
  const standalone = chosen
    .filter((c) => (named ? c.own : c.relevance) > 0 && c.score >= best.score * LEAD_SCORE_SHARE && c.words >= LEAD_MIN_WORDS && !BACK_REFERENCE.test(c.span.text))
    .sort((a, b) => lead(b) - lead(a))[0];
  return standalone ?? chosen.filter((c) => !named || c.own > 0).reduce((a, b) => (b.score > a.score ? b : a));
}

