/**
 * What every reply of the person's own sentences shares: how long the person usually answers
 * (the word budget); sentences that belonged to their original setting, left out (addressed to
 * someone there — "Jim, if I can just respond" —, taking the floor, cut off — "you did not-" —,
 * too short to stand alone, or with a quotation left open); what the conversation already quoted,
 * not said again; and whether the person speaks with contractions. (The sentence-stitching
 * composer that used these before the reranker now lives in bench/support/composer.ts, issue 22.)
 */
import type { Evidence, MemoryTurn, PersonaCard } from '../types.ts';
import type { FollowUpKind, QueryTerm } from '../../lib/language/understand.ts';
import type { RankedTurn } from './rank.ts';
import { contentStems, quoteRoles, quotesBalanced, spokenSentences, words, type SentenceSpan } from '../../lib/language/text.ts';
import { indexTurn, sentencesOf, turnEntry } from './turn-index.ts';
import { LRUCache } from 'lru-cache';

/** Answer length bounds, in words, whatever the person's habits. */
const MIN_BUDGET = 12;
const MAX_BUDGET = 400;
/** A sentence shorter than this (words) rarely stands on its own ("No, no, no."). */
const MIN_SENTENCE_WORDS = 4;
/** Two sentences sharing this much of the smaller one's vocabulary say the same thing. */
export const SAME_THING = 0.8;

/** One sentence chosen for the answer. */
export interface UsedSentence {
  turn: MemoryTurn;
  span: SentenceSpan;
  /** Position of the sentence in its turn. */
  index: number;
  /** Its relevance to the question (idf-weighted query terms it contains); 0 for a continuation. */
  relevance: number;
}

export interface Composition {
  text: string;
  used: UsedSentence[];
}

/** Median of `xs` (0 for none). */
function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Cheap word count (whitespace-separated) for length statistics over many turns. */
function roughWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) <= 32;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/** Enough answers to questions in memory to say how long this person answers one. */
const MIN_ANSWERS_FOR_LENGTH = 5;
/**
 * How long an answer drawn only from files that named no speakers is (words): their turns are
 * ~120-word pieces of everyone's speech, so nothing in memory says how long the person speaks, and
 * each caption line beyond the few on the question is as likely someone else's. About four caption
 * lines (pseudo-sentences run 6–30 words, 14 on average in the debates' auto-captions).
 */
export const UNLABELLED_ANSWER_WORDS = 60;

/**
 * How long the person usually answers: asked a question, the mean length of the turns in memory
 * that answered one (people answer questions at more length than they take turns in general:
 * 30–60% more in the debates and interviews); otherwise, or with too few of those, their usual
 * words per turn (from the persona, else the mean over memory, as the persona measures it).
 * Turns from files without speaker labels do not count (see UNLABELLED_ANSWER_WORDS). A long
 * reply that ingest cut in parts counts once, at its whole length.
 */
export function usualLength(persona: PersonaCard, memory: readonly MemoryTurn[], question: boolean): number {
  const labelled = memory.filter((t) => !t.unlabelled);
  if (question) {
    const answers: number[] = [];
    const parted = new Set<string>();
    for (const t of labelled) {
      const indexed = indexTurn(t); // cached per turn: no tokenising on every request
      if (!indexed.context.asks) continue;
      if (t.replyWords !== undefined) {
        // The parts of one reply share its question.
        const reply = `${t.snapshotId}\u0000${t.context}`;
        if (parted.has(reply)) continue;
        parted.add(reply);
      }
      answers.push(replyLength(t));
    }
    if (answers.length >= MIN_ANSWERS_FOR_LENGTH) return mean(answers);
  }
  const styled = persona.style.wordsPerTurn;
  if (typeof styled === 'number' && styled > 0) return styled;
  return labelled.length > 0 ? mean(labelled.map(replyLength)) : UNLABELLED_ANSWER_WORDS;
}

/** How long the reply a turn belongs to is: the whole reply when ingest cut it in parts, else the turn. */
function replyLength(t: MemoryTurn): number {
  return t.replyWords ?? indexTurn(t).text.words; // indexTurn is cached per turn
}

/**
 * How many words the answer should have: between how long the person usually answers
 * (usualLength) and how long they answered the most similar questions (median of the best
 * three, those with speaker labels), as a geometric mean so neither dominates.
 */
export function wordBudget(persona: PersonaCard, memory: readonly MemoryTurn[], sources: readonly RankedTurn[], question = false): number {
  const usual = usualLength(persona, memory, question);
  const similar = median(sources.slice(0, 3).flatMap((r) => (r.turn.unlabelled ? [] : [replyLength(r.turn)])));
  const raw = usual > 0 && similar > 0 ? Math.sqrt(usual * similar) : usual || similar;
  return Math.round(Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, raw)));
}

// ───────────── sentences that belonged to their setting ─────────────

/** Titles by which debaters and guests address each other ("Governor Romney", "Mr. Trump"). */
const TITLES = 'Governor|Senator|Secretary|President|Vice President|Congressman|Congresswoman|Mr\\.?|Mrs\\.?|Ms\\.?|Dr\\.?|Professor|General|Mayor|Madam|Madame|Sir';
/** Speaker labels that are roles, not names one would be addressed by. */
const NOT_A_NAME = /^(speaker|interviewer|host|moderator|audience|question|questioner|unknown|participant|guest|male|female|voice|narrator|announcer|crosstalk|both|all|and|the|of)$/i;

/**
 * Recognises sentences addressed to someone in the original setting: a name of another speaker
 * (or a title and a name) set off by commas at the start, the end or inside the sentence
 * ("Jim, if I can just respond…", "…for everybody, Candy.", "Candy?").
 */
/** Compiled addressee patterns by speakers and own name (a pattern without the g flag keeps no state: shared safely). */
const addresseePatterns = new LRUCache<string, RegExp>({ max: 256 });

export class Addressees {
  private readonly pattern: RegExp;
  /** Identifies what this instance recognises (equal keys, equal answers): for caches. */
  get key(): string {
    return this.pattern.source;
  }

  constructor(otherSpeakers: readonly string[] = [], ownName = '') {
    // The same mind's speakers come with every request: its pattern is compiled once.
    const key = JSON.stringify([otherSpeakers, ownName]);
    const known = addresseePatterns.get(key);
    if (known) {
      this.pattern = known;
      return;
    }
    this.pattern = Addressees.compile(otherSpeakers, ownName);
    addresseePatterns.set(key, this.pattern);
  }

  private static compile(otherSpeakers: readonly string[], ownName: string): RegExp {
    const own = new Set(ownName.split(/\s+/).map((w) => w.toLowerCase()));
    const names = new Set<string>();
    for (const label of otherSpeakers) {
      for (const w of label.split(/[\s,]+/)) {
        const clean = w.replace(/[^\p{L}'.-]/gu, '');
        if (clean.length < 2 || !/^\p{Lu}/u.test(clean) || NOT_A_NAME.test(clean) || own.has(clean.toLowerCase()) || /^\p{Lu}\.?$/u.test(clean)) continue;
        names.add(clean.replace(/\.$/, ''));
      }
    }
    const escaped = [...names].sort((a, b) => b.length - a.length).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const person = `(?:(?:${TITLES})\\s+\\p{Lu}[\\p{L}'-]+${escaped.length ? `|(?:${escaped.join('|')})(?:\\s+\\p{Lu}[\\p{L}'-]+)?` : ''})`;
    const openers = ['well', 'and', 'but', 'so', 'now', 'look', 'listen', 'oh', 'yes', 'no', 'okay', 'ok', 'again'].map((w) => `[${w[0]!.toUpperCase()}${w[0]}]${w.slice(1)}`);
    const lead = `(?:(?:${openers.join('|')}),?\\s+)*`;
    const bareTitle = `(?:${TITLES}|Mr\\.? President|Madam President)`;
    return new RegExp(
      [
        `^["'\u201C]?${lead}${person}\\s*(?:,|\\s[-\u2013\u2014]|[.?!]+["'\u201D]?$)`, // "Jim, …", "Candy?"
        `,\\s*(?:${person}|${bareTitle})\\s*[.?!,;]*["'\u201D\u2019]?$`, // "…, Candy."
        `,\\s*(?:${person}|${bareTitle})\\s*,`, // "And, Jim, I think…", "the way you described, Governor, then…"
        ...(escaped.length ? [`\\b(?:${escaped.join('|')})\\s+[-\u2013\u2014]\\s`] : []), // "either Candy - this blows up…"
      ].join('|'),
      'u',
    );
  }

  addressed(sentence: string): boolean {
    return this.pattern.test(sentence.trim());
  }
}

/** Taking or holding the floor in a debate or an interview: about the exchange, not the topic. */
const FLOOR_TAKING =
  /\b(let me (just )?(respond|finish|interrupt|jump in|get in)|if I (can|could|may|might) (just )?(respond|finish|interrupt|add|jump in|get in|comment|follow up)|I (just )?(need|want|have) to (comment|respond) (on|to) (this|that)|(can|could|may) I (just )?(respond|finish|jump in|interrupt|follow up)|excuse me|you'll get your (chance|turn)|I('m| am) (still )?(talking|speaking)|wait a minute|hold on a (second|minute)|you('ll| will) have (a|your) chance|(am I|are we) (still )?(on|live)|next question)\b/i;
/** Cut off mid-sentence by the transcript: ends in a dash. */
const CUT_OFF = /(?:-|\u2013|\u2014)\s*["'\u201D\u2019)]*\s*$/;
const QUOTE_CHAR = /^["\u201C\u201D]$/;
/** The transcriber's notes inside what was said: "[inaudible 01:24:53]", "[crosstalk]". */
const ANNOTATION = /\[(inaudible|crosstalk|unintelligible|indiscernible|laughter|laughs|applause|music|silence|pause)\b[^\]]*\]/i;

/**
 * The span of `s` as it may appear in an answer, or null when it should not: it belonged to its
 * setting, was cut off, is too short to stand alone, or leaves a quotation open. A stray quote
 * mark at its very start or end is trimmed off (the span stays an exact substring).
 */
export function usableSpan(s: SentenceSpan, addressees: Addressees): SentenceSpan | null {
  let span = s;
  if (!quotesBalanced(span.text)) {
    // A quotation opened in the sentence before, or closed in the next: the stray mark goes.
    const roles = quoteRoles(span.text);
    if (roles[0]?.at === 0 && roles[0].role === 'open' && QUOTE_CHAR.test(span.text[0]!)) span = trimmed(span, 1, 0);
    else if (roles.at(-1)?.role === 'close' && QUOTE_CHAR.test(span.text.at(-1)!)) span = trimmed(span, 0, 1);
    if (!quotesBalanced(span.text)) return null;
  }
  const text = span.text;
  if (CUT_OFF.test(text) || ANNOTATION.test(text)) return null;
  if (words(text).length < MIN_SENTENCE_WORDS) return null;
  if (addressees.addressed(text) || FLOOR_TAKING.test(text)) return null;
  return span;
}

function trimmed(s: SentenceSpan, head: number, tail: number): SentenceSpan {
  let start = s.start + head;
  let end = s.end - tail;
  const text = s.text.slice(head, s.text.length - tail);
  const lead = text.length - text.trimStart().length;
  const trail = text.length - text.trimEnd().length;
  start += lead;
  end -= trail;
  return { start, end, text: text.trim() };
}

// ───────────── what the conversation already said ─────────────

/** What earlier answers of the conversation quoted: their spans by turn, and their vocabularies. */
export class AlreadySaid {
  private readonly spans = new Map<string, [number, number][]>();
  private readonly vocabularies: Set<string>[] = [];
  readonly citedTurns = new Set<string>();

  constructor(evidence: readonly Evidence[], memory: readonly MemoryTurn[]) {
    if (evidence.length === 0) return; // a new conversation: nothing to look up
    const byId = new Map(memory.map((t) => [t.turnId, t]));
    for (const e of evidence) {
      this.citedTurns.add(e.turnId);
      const turn = byId.get(e.turnId);
      const at = turn ? turn.text.indexOf(e.quote) : -1;
      // The quote's sentences as its turn splits them (a quote of a few caption lines is those
      // lines), or as the quote alone splits when its turn is not in memory.
      const quoted = at < 0 ? spokenSentences(e.quote) : sentencesOf(turn!).filter((s) => s.start < at + e.quote.length && s.end > at);
      for (const s of quoted) {
        const v = new Set(contentStems(s.text));
        if (v.size > 0) this.vocabularies.push(v);
      }
      if (at < 0) continue;
      const list = this.spans.get(e.turnId) ?? [];
      list.push([at, at + e.quote.length]);
      this.spans.set(e.turnId, list);
    }
  }

  get empty(): boolean {
    return this.citedTurns.size === 0;
  }

  /** Whether this sentence of `turn` was quoted, or says what a quoted sentence said. */
  said(turn: MemoryTurn, span: SentenceSpan, vocab: ReadonlySet<string>): boolean {
    const ranges = this.spans.get(turn.turnId);
    if (ranges?.some(([a, b]) => span.start < b && span.end > a)) return true;
    return this.vocabularies.some((v) => overlap(v, vocab) >= SAME_THING);
  }

  /** How near (in sentences) this sentence follows or precedes a quoted one of its turn: 1 = right after. */
  distance(turn: MemoryTurn, index: number, spans: readonly SentenceSpan[]): number | null {
    const ranges = this.spans.get(turn.turnId);
    if (!ranges) return null;
    let best: number | null = null;
    spans.forEach((s, i) => {
      if (!ranges.some(([a, b]) => s.start < b && s.end > a)) return;
      const d = index > i ? index - i : i - index + 1; // after counts before before
      if (best === null || d < best) best = d;
    });
    return best;
  }
}

// ───────────── what a reply looks for ─────────────

/** What a composer of sentences is given (`AnswerOptions.compose`: bench/support/composer.ts, the "before" of bench/fidelity.ts). */
export interface ComposeInput {
  ranked: readonly RankedTurn[];
  query: readonly QueryTerm[];
  idf: ReadonlyMap<string, number>;
  budget: number;
  addressees: Addressees;
  saidBefore: AlreadySaid;
  /** The kind of follow-up, when the message leans on the conversation. */
  followUp: FollowUpKind | null;
  /** Stems whose matches count only in sentences where they are the person's own ("my mother"). */
  ownOnly?: ReadonlyMap<string, RegExp>;
  /** Stems of what the main ask is about: the answer opens with a sentence naming one. */
  asked?: ReadonlySet<string>;
}


export const REASON = /\b(because|the reason|that's why|that is why|which is why|so that|in order to|since|the point is|the idea is|what that means|the problem is|the key is|makes me|helps me|I love|I enjoy|I care about)\b/i;
export const EXAMPLE = /\b(for example|for instance|e\.g\.|such as|example (is|of|would be)|(simple|good|great|classic|perfect|another|one) example|like when|take (a|the)\b|let me give you|I remember|I met|I saw|I talked to|I was (at|in|talking)|when I was|one time|there was a|there's a (guy|woman|man|company|story)|a story|case in point|last (week|month|year)|the other day)\b/i;
/** Sentences that lean on the one before ("And that is, …", "That's why …", "For example, …"). */
export const BACK_REFERENCE =
  /^["'\u201C]?(?:(?:and|but|so|or|now|well),?\s+)*(that's|that is|that was|this is|these are|those are|which|for example|for instance|because|also|plus|as opposed to|in fact|it's|they're|he's|she's)\b/i;
/** Share of the smaller vocabulary found in the other. */
export function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 0;
  let inter = 0;
  for (const x of small) if (large.has(x)) inter++;
  return inter / small.size;
}

/** Turns looked at to tell whether the person uses contractions. */
const CONTRACTION_SAMPLE = 60;
const CONTRACTION = /[\p{L}][\u0027\u2019](?:m|re|ve|ll|d|t)\b/giu;

/**
 * Whether the person writes with contractions ("I'm", "don't"): the honest "I haven't
 * talked about that" is then phrased the way they would phrase it.
 */
export function usesContractions(memory: readonly MemoryTurn[]): boolean {
  let contractions = 0;
  let total = 0;
  for (const t of memory.slice(0, CONTRACTION_SAMPLE)) {
    const facts = turnEntry(t).facts; // counted once per turn, not on every request
    facts.register ??= { words: roughWords(t.text), contractions: t.text.match(CONTRACTION)?.length ?? 0 };
    total += facts.register.words;
    contractions += facts.register.contractions;
  }
  // Spoken English runs at roughly 2–4 contractions per 100 words; formal speech near none.
  return total === 0 || contractions / total >= 0.005;
}
