/**
 * Key topics: what the person talks about, as phrases from their own words.
 *
 * 1. The mind's turns are cut into chunks of consecutive sentences (≈ CHUNK_WORDS words).
 * 2. Candidate terms are noun phrases: runs of nouns, proper nouns and adjectives (hyphenated
 *    compounds kept whole: "trade-offs") and their 1–4-word windows ending in a noun, never
 *    stopwords, fillers, numbers (also leading a compound: "four-year"), generic nouns ("data",
 *    "companies", "feet"), intensifiers ("super") or the names of the people in the conversation.
 *    A lone word must be a noun.
 * 3. A term that is mostly said as part of a longer term is that longer term ("Supreme" →
 *    "Supreme Court", "stage startup" → "early stage startup"): it is absorbed when the longer
 *    term occurs at least ABSORB times as often.
 * 4. Each term's keyness is Dunning's log-likelihood (G²) of its frequency in the mind's speech
 *    against a background of everyday English (models/background.json); only terms used more
 *    than in the background, at least twice (three times in a long speech), in two sentences.
 * 5. Terms are grouped greedily, strongest first: a term joins the topic whose members it
 *    co-occurs with most (mean cosine of chunk sets ≥ JOIN_SIMILARITY over the topic's strongest
 *    members, so a big topic does not swallow everything; below a broad seed word like "reforms"
 *    it must also meet the first member that is not broad), else starts a new topic. Topics that
 *    share a head word ("tax breaks", "tax plan") or whose chunks largely coincide are merged, and
 *    so are topics whose passages mean the same (centred GloVe-SIF vectors of their chunks alike,
 *    and near-synonymous seeds: "relationship" / "friendship"); a broad word that gathered nothing
 *    is not a topic.
 * 6. Each chunk goes to the topic whose terms it mentions most; share = those chunks' words over
 *    the mind's words, sentiment = their AFINN balance. Members are weighted by centrality
 *    (keyness × co-occurrence with the other members); the label is a member a reader would call a
 *    topic (THE RULE, topic-labels.ts `readerTopicFailure`: a noun phrase of the person's own
 *    words, no bare platform or shell noun like "post" or "video", not a fragment like
 *    "Amendment"), the most specific that still represents the topic ("Medicare" rather than
 *    "insurance", "federal government" rather than "government"), then the most representative
 *    phrase holding it (closest in meaning to the topic's passages), in its commonest written
 *    form; a topic with no such member is dropped; keywords = the label,
 *    then members by weight; evidence = the whole sentences densest in the topic's terms.
 *
 * Steps 1–3 are topic-terms.ts, 4 topic-keyness.ts, 5 and the chunks of 6 topic-groups.ts; the
 * label (with topic-labels.ts), keywords and evidence of each topic are chosen here.
 */
import { MAX_QUOTE_CHARS } from './evidence.ts';
import { chooseLabel, containsWords, indexLabels, labelUses, type LabelCandidate, type LabelIndex, longerForms, readerTopicFailure } from './topic-labels.ts';
import { assignWithMinimum, centrality, groupTerms } from './topic-groups.ts';
import { keyTerms } from './topic-keyness.ts';
import { centreVectors, chunkTurns, countPhrasesAgain, mostCommon, speakerNameParts, type SentenceRef, type Term } from './topic-terms.ts';
import { analysisVectors, cosineOf, meanVector } from './vectors.ts';
import type { PreparedTurn } from './prepare.ts';
import type { AnalysisTurn, EvidenceRef, KeyTopicResult } from './types.ts';

const CHUNK_WORDS = 60;
/** A short speech is cut finer, so a few hundred words still separate into several subjects. */
const SHORT_CHUNK_WORDS = 20;
const KEYWORDS_PER_TOPIC = 10;
const EVIDENCE_PER_TOPIC = 3;
/** A phrase holding a lone-noun label takes it when said this share as often and closer in meaning. */
const PHRASE_SHARE = 0.25;
/** Below this many mind words a term needs 2 occurrences, else 3. */
const SHORT_SPEECH_WORDS = 1500;

/** Topic count grows with the length of the speech: 3 for short, up to 15 for very long. */
export function topicBudget(mindWords: number): number {
  return Math.max(3, Math.min(15, Math.round(mindWords / 1500) + 3));
}

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

export function extractTopics(mindTurns: PreparedTurn[], allTurns: AnalysisTurn[], mindWords: number): KeyTopicResult[] {
  const excluded = speakerNameParts(allTurns);
  const terms = new Map<string, Term>();
  const sentences: SentenceRef[] = [];
  const short = mindWords < SHORT_SPEECH_WORDS;
  const chunks = chunkTurns(mindTurns, short ? SHORT_CHUNK_WORDS : CHUNK_WORDS, excluded, terms, sentences);
  countPhrasesAgain(terms, chunks, sentences, excluded);
  centreVectors(chunks);
  const totalTokens = chunks.reduce((s, c) => s + c.words, 0);
  const ranked = keyTerms(terms, totalTokens, short ? 2 : 3);
  const budget = topicBudget(mindWords);
  const groups = groupTerms(ranked, chunks, budget);
  const assigned = assignWithMinimum(chunks, groups);
  const tokens = indexLabels(mindTurns.map((t) => t.tokens));
  const vectors = analysisVectors();

  const topics: (KeyTopicResult & { weight: number })[] = [];
  for (const g of groups) {
    const own = assigned.get(g) ?? [];
    if (own.length === 0) continue;
    const words = own.reduce((s, ci) => s + chunks[ci]!.words, 0);
    const pos = own.reduce((s, ci) => s + chunks[ci]!.valence.positive, 0);
    const neg = own.reduce((s, ci) => s + chunks[ci]!.valence.negative, 0);
    const weights = centrality(g);
    const members = [...g.terms].sort((a, b) => weights.get(b)! - weights.get(a)! || (a.key < b.key ? -1 : 1));
    const passages = (t: Term): number => own.reduce((n, ci) => n + (chunks[ci]!.terms.has(t.key) ? 1 : 0), 0);
    const centre = meanVector(own.map((ci) => chunks[ci]!.vector), vectors.dimensions);
    const chosen = labelOf(members.map((t) => ({ term: t, lemmas: t.lemmas, surface: mostCommon(t.surfaces), count: t.count, weight: weights.get(t)!, passages: passages(t) })), tokens, centre);
    if (!chosen) continue;
    const { term: labelTerm, surface: label } = chosen;
    // Keywords: the label, then members by weight (fragments of longer terms were absorbed before grouping).
    const keywords: string[] = [];
    const shown: Term[] = [];
    for (const t of [labelTerm, ...members.filter((m) => m !== labelTerm)]) {
      const s = t === labelTerm ? label : mostCommon(t.surfaces);
      if (s && !keywords.some((k) => k.toLowerCase() === s.toLowerCase())) {
        keywords.push(s);
        shown.push(t);
      }
      if (keywords.length >= KEYWORDS_PER_TOPIC) break;
    }
    topics.push({
      label,
      keywords,
      share: round(words / Math.max(1, totalTokens)),
      sentiment: round(pos + neg > 0 ? (pos - neg) / (pos + neg) : 0),
      evidence: topicEvidence(shown, labelTerm, sentences),
      weight: words,
    });
  }
  return topics
    .sort((a, b) => b.weight - a.weight || (a.label < b.label ? -1 : 1))
    .slice(0, budget)
    .map(({ weight: _weight, ...t }) => t);
}

interface LabelChoice extends LabelCandidate {
  term: Term;
}

/**
 * The label of a topic: a member that passes THE RULE (topic-labels.ts, `readerTopicFailure`: a
 * noun phrase of the person's own words that names something on its own and is not a fragment),
 * chosen by `chooseLabel` (the most specific member that still represents the topic). A member that
 * is a fragment of a longer name or phrase ("Amendment", "middle-income") stands for that longer
 * form when the person said it at least twice ("Second Amendment", "middle-income Americans").
 * Then the most representative phrase: a lone common noun gives way to a phrase of the topic that
 * holds it, is said in two of its passages and a quarter as often as the noun, and is at least as
 * close in meaning to the topic's passages (cosine of its GloVe-SIF vector with their centred mean).
 * Null when no member passes: nothing a reader would call a topic.
 */
function labelOf(members: LabelChoice[], tokens: LabelIndex, centre: Float32Array): LabelChoice | null {
  const passing: LabelChoice[] = [];
  // The label is among the members shown as keywords.
  for (const m of members.slice(0, KEYWORDS_PER_TOPIC)) {
    const failure = readerTopicFailure(m.surface, labelUses(m.surface, tokens));
    if (!failure) passing.push(m);
    else if (failure === 'whole') {
      const longer = [...longerForms(m.surface, tokens)]
        .filter(([form, n]) => n >= 2 && !readerTopicFailure(form, labelUses(form, tokens)))
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
      if (longer) passing.push({ ...m, surface: longer[0], lemmas: longer[0].toLowerCase().split(/[\s-]+/) });
    }
  }
  if (passing.length === 0) return null;
  const chosen = chooseLabel(passing);
  if (chosen.lemmas.length > 1 || /\p{Lu}/u.test(chosen.surface)) return chosen;
  const vectors = analysisVectors();
  const closeness = (c: LabelChoice): number => cosineOf(vectors.embedOne(c.surface), centre);
  const own = closeness(chosen);
  const phrase = passing
    .filter((c) => c.lemmas.length > 1 && containsWords(c.lemmas, chosen.lemmas) && c.passages >= 2 && c.count >= PHRASE_SHARE * chosen.count && closeness(c) >= own)
    .sort((a, b) => b.count - a.count || (a.surface < b.surface ? -1 : 1))[0];
  return phrase ?? chosen;
}

/**
 * The whole sentences densest in the topic's label and keywords (each counted once per sentence,
 * the label double), one per turn, that fit in a quote.
 */
function topicEvidence(shown: Term[], labelTerm: Term, sentences: SentenceRef[]): EvidenceRef[] {
  const keys = new Set(shown.map((t) => t.key));
  const scored: { s: SentenceRef; score: number; order: number }[] = [];
  sentences.forEach((s, order) => {
    let hits = 0;
    for (const k of s.terms.keys()) if (keys.has(k)) hits += k === labelTerm.key ? 2 : 1;
    if (hits === 0 || s.words < 6) return;
    const text = s.turn.tokens.sentences[s.index]!.text.trim();
    if (text.length > MAX_QUOTE_CHARS || text.endsWith('?')) return;
    scored.push({ s, score: hits / Math.max(12, s.words), order });
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  const out: EvidenceRef[] = [];
  const turns = new Set<PreparedTurn>();
  for (const { s } of scored) {
    if (turns.has(s.turn)) continue;
    turns.add(s.turn);
    out.push({ turnId: s.turn.turn.turnId, quote: s.turn.tokens.sentences[s.index]!.text.trim(), startMs: s.turn.turn.startMs });
    if (out.length >= EVIDENCE_PER_TOPIC) break;
  }
  return out;
}
