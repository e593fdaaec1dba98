/**
 * What the person is being asked. A message is read the way a listener would: its main ask
 * (the question clause) weighs more than a preamble ("As a former organizer in Chicago, what do
 * you think about taxes?"); its noun phrases are what it is about; a message with no new content
 * word of its own ("Why?", "Give me an example.") leans on the conversation, and says what kind
 * of follow-up it is. Greetings and "who are you?" are recognised as such.
 *
 * A message is read once per request: the simulation run calls `understand` and hands the
 * result to recall (whose SQL preselection takes `searchTerms` of it) and to the engine (in
 * EngineInput), so what the service fetches is what the engine scores.
 */
import { isContentWord, normalizeWord, rawWords, sentences, stem, words } from './text.ts';

/** A message of the conversation as far as reading it goes (the engines' ConversationMessage is one). */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  text: string;
}

/** One query term: its stem (what matching uses) and the surface word (what SQL gets). */
export interface QueryTerm {
  stem: string;
  word: string;
  /** How much a match on this term counts: 1 for the main ask, less for a preamble or older context. */
  weight: number;
  /** Whether the term comes from the current message (as opposed to the history). */
  fromMessage: boolean;
  /** From the message's preamble, not its main ask ("As a former organizer in Chicago, …"). */
  preamble?: boolean;
  /** Two words of the message written as one ("health care" → "healthcare"): the stems of the two. */
  joined?: [string, string];
}

/** A noun phrase of a message: what a question is about, as written. */
export interface Phrase {
  /** The words as written (case kept), e.g. "Iran" or "favourite pizza topping". */
  text: string;
  /** Stems of its words, in order. */
  stems: string[];
  /** Asked about as "your X": the person's own (their mother, not a mother). */
  yours: boolean;
  /** Whether it is in the main ask (rather than a preamble). */
  main: boolean;
}

/** What kind of follow-up a message is, from its cue words. */
export type FollowUpKind = 'why' | 'more' | 'mean' | 'example';

/** A greeting ("Hello!") or a request to introduce oneself ("Who are you?"). */
export type SocialIntent = 'greeting' | 'introduction';

export interface Understanding {
  /** Weighted terms for ranking: the message's own, then (less) the conversation's. */
  query: QueryTerm[];
  /** Noun phrases of the message the answer must be about (of the anchor, for a follow-up). */
  phrases: Phrase[];
  /** The message has no new content word: it leans on the conversation so far. */
  leansOnHistory: boolean;
  /** The kind of follow-up its cue words ask for, if any. */
  followUp: FollowUpKind | null;
  /** A greeting or introduction request with no topic of its own. */
  social: SocialIntent | null;
}

/** Words that ask for more of what was said rather than name a topic. */
const FOLLOW_UP_VOCABULARY = new Set(
  `why more elaborate elaboration example examples instance instances else mean meaning explain clarify detail details
  specific specifically reason reasons expand continue further exactly concrete story stories point illustrate illustration
  sense understand`.split(/\s+/).filter(Boolean).map((w) => stem(w)),
);

const WHY_CUES = /\b(why|how come|reasons?|what for|because)\b/i;
const EXAMPLE_CUES = /\b(examples?|instances?|specific(ally)?|concrete(ly)?|illustrat\w*|stor(y|ies)|such as|case in point)\b/i;
const MEAN_CUES = /\b(mean|meaning|clarify|explain|sense|understand)\b/i;
const MORE_CUES = /\b(more|elaborate|elaboration|expand|go on|continue|else|further|details?)\b/i;

/** The kind of follow-up a message asks for, by its cue words (example before why before mean before more). */
export function followUpKind(message: string): FollowUpKind | null {
  if (EXAMPLE_CUES.test(message)) return 'example';
  if (WHY_CUES.test(message)) return 'why';
  if (MEAN_CUES.test(message)) return 'mean';
  if (MORE_CUES.test(message)) return 'more';
  return null;
}

const GREETING = /^(hi|hello|hey|hiya|howdy|greetings|yo|good (morning|afternoon|evening|day)|nice to meet you|pleased to meet you|how are you( doing)?( today)?|how's it going|how are things|welcome|thanks for (coming|joining|being here))\b/i;
const INTRODUCTION =
  /\b(who are you|who is this|tell (me|us) (a (little )?bit |a little )?about yourself|introduce yourself|what do you do( for (a )?(living|work))?|what is it (that )?you do|what('s| is) your (job|work|profession|occupation|background|name)|what do you work on|what line of work)\b/i;
/** Words a greeting or an introduction request may carry besides its cue: none of them is a topic. */
const SOCIAL_FILLER = new Set(['there', 'everyone', 'everybody', 'folks', 'all', 'today', 'doing', 'going', 'living', 'work', 'job', 'nice', 'meet', 'pleased', 'good', 'morning', 'afternoon', 'evening', 'day', 'welcome', 'hiya', 'howdy', 'greetings', 'profession', 'occupation', 'background', 'name', 'line', 'yourself', 'thanks', 'coming', 'joining', 'introduce', 'days', 'nowadays', 'lately', 'currently']);

/**
 * A greeting or an introduction request with no topic of its own ("Hello!", "Hi Ada, who are
 * you?", "What do you do for a living?"). `names` are the person's own name words, which a
 * greeting may carry.
 */
export function socialIntent(message: string, names: readonly string[] = []): SocialIntent | null {
  const text = message.trim().replace(/\s+/g, ' ');
  const intro = INTRODUCTION.test(text);
  const greeting = GREETING.test(text.replace(/^(oh|well|so|and|ok|okay)[,!.]?\s+/i, ''));
  if (!intro && !greeting) return null;
  const own = new Set(names.map((n) => normalizeWord(n)));
  const topical = words(text).filter((w) => isContentWord(w) && !SOCIAL_FILLER.has(w) && !own.has(w));
  if (topical.length > 0) return null;
  return intro ? 'introduction' : 'greeting';
}

/** Question words and verbs that open the clause a question really asks. */
const ASK_START =
  /^(?:(?:and|but|so|then|now|well|okay|ok|also|again|finally|lastly|first|second|third|next|specifically)\s+)*(what|what's|whats|how|how's|why|when|where|which|who|whom|whose|do|does|did|would|will|could|can|should|is|are|was|were|have|has|tell|describe|explain|talk|walk|give|share|name|say|shouldn't|wouldn't|don't|doesn't|isn't|aren't)\b/i;

/** Weight of the terms outside the main ask (the preamble, the context sentences). */
const PREAMBLE_WEIGHT = 0.35;

/**
 * The message split into its main ask and the rest: the question sentences (or, with none, the
 * last sentence), each from its last clause that opens like a question ("…, what do you think
 * about taxes?"). Returns character ranges of the main ask.
 */
function mainAskRanges(message: string): [number, number][] {
  const spans = sentences(message);
  if (spans.length === 0) return [];
  let asks = spans.filter((s) => /\?["'\u201D\u2019)]*$/.test(s.text));
  if (asks.length === 0) asks = [spans.at(-1)!];
  return asks.map((s) => {
    // Clauses split at , ; : and dashes; the main ask starts at the last one opening like a question.
    const clause = /[,;:\u2013\u2014]\s+|\s+-+\s+/g;
    let start = s.start;
    for (let m = clause.exec(s.text); m; m = clause.exec(s.text)) {
      const after = s.text.slice(m.index + m[0].length);
      if (ASK_START.test(after)) start = s.start + m.index + m[0].length;
    }
    return [start, s.end] as [number, number];
  });
}

interface Token {
  raw: string;
  word: string;
  start: number;
  main: boolean;
}

function tokens(message: string): Token[] {
  const ranges = mainAskRanges(message);
  const out: Token[] = [];
  let from = 0;
  for (const raw of rawWords(message)) {
    const start = message.indexOf(raw, from);
    from = start + raw.length;
    out.push({ raw, word: normalizeWord(raw), start, main: ranges.some(([a, b]) => start >= a && start < b) });
  }
  // A main ask without a word of topic ("…, what do you think?") leaves the topic to the rest.
  if (!out.some((t) => t.main && isTopicWord(t.word))) for (const t of out) t.main = true;
  return out;
}

/** A content word that names a topic (not a follow-up cue like "example" or "why"). */
function isTopicWord(word: string): boolean {
  return isContentWord(word) && !FOLLOW_UP_VOCABULARY.has(stem(word));
}

/** After these words a word is a verb ("would you fix", "to reduce"), not what is asked about. */
const BEFORE_VERB = new Set(
  `i you we they he she it to would will could can should do does did might must shall not don't didn't won't wouldn't
  can't couldn't shouldn't you'd you'll we'd we'll i'd i'll let's please`.split(/\s+/).filter(Boolean),
);
/** Imperatives that open requests ("describe your …"): not topics. */
const REQUEST_VERBS = new Set(['describe', 'explain', 'discuss', 'share', 'elaborate', 'define', 'list', 'compare', 'imagine', 'consider', 'walk']);
/** Nouns that ask for the person's say rather than name a topic ("your advice for someone who can't sleep", "your take on pricing"). */
const REQUEST_NOUNS = new Set(['advice', 'opinion', 'opinions', 'thoughts', 'take', 'recommendation', 'recommendations', 'tip', 'tips', 'suggestion', 'suggestions', 'stance']);
const POSSESSIVE_YOUR = new Set(['your', 'yours', "your's"]);

/**
 * The noun phrases of a message: runs of topic words, without the verbs ("would you fix",
 * "to reduce") and adverbs around them, as written. "What do you think about Iran and Israel?"
 * → "Iran", "Israel"; "your favourite pizza topping" → "favourite pizza topping" (yours).
 */
export function phrasesOf(message: string, verbsIfNone = true): Phrase[] {
  const toks = tokens(message);
  const out: Phrase[] = [];
  let run: Token[] = [];
  let yours = false;
  const flush = () => {
    if (run.length > 0) {
      const text = message.slice(run[0]!.start, run.at(-1)!.start + run.at(-1)!.raw.length).replace(/\s+/g, ' ');
      out.push({ text, stems: run.map((t) => stem(t.word)), yours, main: run.some((t) => t.main) });
    }
    run = [];
    yours = false;
  };
  const verbs: Token[] = [];
  const starts = new Set(sentences(message).map((s) => s.start));
  toks.forEach((t, i) => {
    const prev = toks[i - 1];
    const gap = prev ? message.slice(prev.start + prev.raw.length, t.start) : '';
    // Punctuation other than a hyphen or a space ends a phrase.
    if (run.length > 0 && !/^[\s-]*$/.test(gap)) flush();
    // A capitalised word inside a sentence is a name, not a verb after "to" ("move to China", "talk to Putin").
    const name = /^\p{Lu}/u.test(t.raw) && !starts.has(t.start) && t.word !== 'i';
    const verbal = (prev !== undefined && BEFORE_VERB.has(prev.word) && run.length === 0 && !name) || REQUEST_VERBS.has(t.word) || REQUEST_NOUNS.has(t.word) || /ly$/.test(t.word);
    if (!isTopicWord(t.word) || verbal) {
      flush();
      if (POSSESSIVE_YOUR.has(t.word)) yours = true;
      if (isTopicWord(t.word)) verbs.push(t);
      return;
    }
    run.push(t);
  });
  flush();
  // A question about a doing ("How do you lead?") is about that verb; "What's your advice?" about the advice only when it names nothing else.
  const doings = verbs.filter((t) => !REQUEST_NOUNS.has(t.word));
  if (out.length === 0 && verbsIfNone) for (const t of doings.length > 0 ? doings : verbs) out.push({ text: t.raw, stems: [stem(t.word)], yours: false, main: t.main });
  return out;
}

/** How many of the latest history messages are considered, newest first. */
const HISTORY_WINDOW = 6;
/** Weight of the anchor's terms for a follow-up; of the latest user message for a new question. */
const OLDER_USER_WEIGHT = 0.25;
const CONTEXT_WEIGHT = 0.1;
/** Weight of a message word that is not in one of its noun phrases (a verb), relative to one that is. */
const VERB_WEIGHT = 0.5;

/** Content stems of a text that name topics. */
function topicStems(text: string): Set<string> {
  return new Set(words(text).filter(isTopicWord).map((w) => stem(w)));
}

/**
 * Whether `message` leans on the conversation: it has no content word of its own that the
 * conversation's user messages did not already use ("Why?", "Can you say more about taxes?").
 */
export function isFollowUp(message: string, history: readonly HistoryMessage[] = []): boolean {
  const own = topicStems(message);
  if (own.size === 0) return true;
  const said = new Set(history.filter((m) => m.role === 'user').flatMap((m) => [...topicStems(m.text)]));
  const fresh = [...own].filter((s) => !said.has(s));
  if (fresh.length === 0) return true;
  const all = words(message);
  // "And how soon?", "But how long?", "So how much?": a short question going on from the last
  // answer, asking only how soon, long, much or often.
  if (all.length <= 5 && CONTINUING.test(message.trim()) && fresh.every((s) => GENERIC_PREDICATES.has(s))) return true;
  // "Why does that matter?", "How would you pay for it?": a short question about what was just
  // said, whose new words are verbs or generic predicates, not a new topic.
  if (all.length > 10 || !all.some((w) => BACK_REFERENCES.has(w))) return false;
  const named = new Set(phrasesOf(message, false).flatMap((p) => p.stems));
  return fresh.every((s) => GENERIC_PREDICATES.has(s) || !named.has(s));
}

/** Words pointing back at what was just said, or at whom it was about ("And what if they insist?"). */
const BACK_REFERENCES = new Set(['that', 'this', 'it', 'those', 'these', 'them', "that's", "it's", 'they', "they're", 'he', 'she', 'him']);
/** What one asks about something just said without naming a new topic ("does that matter?", "how soon?"). */
const GENERIC_PREDICATES = new Set(
  'matter matters important work works happen happened true right wrong possible different hard easy good bad feel fair real soon long much often fast quickly far many later'.split(' ').map((w) => stem(w)),
);
/** A message that opens by going on from the conversation: "And …", "But …", "So …", "Then …". */
const CONTINUING = /^(and|but|so|then|ok(ay)?,? so|and then)\b/i;

/** Adds the terms of `message` to `terms`: main ask at `weight`, the rest at PREAMBLE_WEIGHT × `weight`. */
function addMessage(terms: Map<string, QueryTerm>, message: string, weight: number, fromMessage: boolean): void {
  const toks = tokens(message);
  const put = (s: string, word: string, w: number, main: boolean, joined?: [string, string]) => {
    const seen = terms.get(s);
    const extra = { ...(joined ? { joined } : {}), ...(fromMessage && !main ? { preamble: true } : {}) };
    if (!seen) terms.set(s, { stem: s, word, weight: w, fromMessage, ...extra });
    else if (w > seen.weight) {
      const { preamble: _, ...rest } = seen;
      terms.set(s, { ...rest, weight: w, fromMessage: seen.fromMessage || fromMessage, ...extra });
    }
  };
  const phrases = phrasesOf(message, false).map((p) => p.text.toLowerCase());
  toks.forEach((t, i) => {
    if (!isTopicWord(t.word)) return;
    const w = weight * (t.main ? 1 : PREAMBLE_WEIGHT);
    put(stem(t.word), t.word.replace(/'s$/, '').replace(/'.*$/, ''), w, t.main);
    // "health care" also finds "healthcare", "e-mail" also "email": two words of a phrase written as one.
    const next = toks[i + 1];
    const gap = next ? message.slice(t.start + t.raw.length, next.start) : '';
    if (next && !t.word.includes("'") && isTopicWord(next.word) && /^[\s-]$/.test(gap) && phrases.some((p) => p.includes(`${t.word}${gap}${next.word}`))) {
      const joined = `${t.word}${next.word}`.replace(/'/g, '');
      put(stem(joined), joined, w * 0.5, t.main, [stem(t.word), stem(next.word)]);
    }
  });
}

/** The user message a follow-up refers to: the latest one naming a topic. */
function anchorOf(history: readonly HistoryMessage[]): string | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'user' && topicStems(m.text).size > 0) return m.text;
  }
  return null;
}

/**
 * Reads `message` in the context of `history` (oldest first). A follow-up takes its topic from
 * the latest user message that named one (the anchor); a new question keeps its own words, with
 * the previous question as a faint tie-breaker. What the person answered is never added to the
 * query: that only found the same answer again.
 */
export function understand(message: string, history: readonly HistoryMessage[], names: readonly string[] = []): Understanding {
  const terms = new Map<string, QueryTerm>();
  addMessage(terms, message, 1, true);
  const recentUsers = history.slice(-HISTORY_WINDOW).filter((m) => m.role === 'user').reverse();
  const leans = history.length > 0 && isFollowUp(message, history);
  const social = socialIntent(message, names);
  // A follow-up's own phrases count only if they name something ("that matter" names nothing).
  let phrases = phrasesOf(message, !leans).filter((p) => !leans || p.stems.some((st) => !GENERIC_PREDICATES.has(st)));
  if (leans) {
    const anchor = anchorOf(history);
    if (anchor) {
      addMessage(terms, anchor, 1, false);
      if (phrases.length === 0) phrases = phrasesOf(anchor);
    }
    for (const m of recentUsers) if (m.text !== anchor) addMessage(terms, m.text, OLDER_USER_WEIGHT, false);
  } else if (recentUsers[0]) {
    addMessage(terms, recentUsers[0].text, CONTEXT_WEIGHT, false);
  }
  // The message's words outside any phrase (its verbs: "fix", "reduce") say less of what it is about.
  if (!leans && phrases.length > 0) {
    const phrased = new Set(phrases.flatMap((p) => p.stems));
    for (const p of phrases) {
      const ws = words(p.text);
      for (let i = 0; i + 1 < ws.length; i++) phrased.add(stem(`${ws[i]}${ws[i + 1]}`.replace(/'/g, '')));
    }
    for (const t of terms.values()) if (t.fromMessage && !phrased.has(t.stem)) t.weight *= VERB_WEIGHT;
  }
  return { query: [...terms.values()], phrases, leansOnHistory: leans, followUp: followUpKind(message), social: leans && !social ? null : social };
}

/** At most this many terms go to the full-text query: enough for a topic, few enough to stay fast. */
export const MAX_SEARCH_TERMS = 16;
/** At most this many two-word splits of long words ("healthcare" → "health care") are searched. */
const MAX_SPLITS = 12;
const MIN_SPLIT_PART = 3;
/** Shorter words are rarely compounds written apart ("deficit" is not "def icit"). */
const MIN_SPLIT_WORD = 8;

/** Endings that make a word of a stem, not a second word ("manufactur|ing"). */
const SUFFIXES = new Set('ing ings ment ments tion tions sion ness able ible less ful ers est ism ist ists ity ive ous ship hood ward wards ance ence ally'.split(' '));

/** The ways `word` could be two words (each a content word of ≥ 3 letters), as "a b". */
export function splitsOf(word: string): string[] {
  if (!/^\p{L}+$/u.test(word) || word.length < 2 * MIN_SPLIT_PART + 1 || word.length > 24) return [];
  const out: string[] = [];
  for (let i = MIN_SPLIT_PART; i <= word.length - MIN_SPLIT_PART; i++) {
    const a = word.slice(0, i);
    const b = word.slice(i);
    if (isContentWord(a) && isContentWord(b) && !SUFFIXES.has(b)) out.push(`${a} ${b}`);
  }
  return out;
}

/**
 * The content words (lower-case, stopwords removed, at most 16) of an understood message that
 * the service's SQL retrieval should OR together in a full-text query: the words of the message's main ask; for a
 * follow-up, or a message whose main ask names nothing, all its words and then those of the
 * recent conversation by decreasing weight. Then, for the message's long
 * words, their two-word splits as phrases ("health care" for "healthcare"), so a compound
 * written apart in the transcripts is still found. Words are plain [a-z0-9]; a phrase is two
 * such words separated by one space.
 */
export function searchTerms(u: Pick<Understanding, 'query' | 'leansOnHistory'>): string[] {
  const clean = (w: string) => w.normalize('NFKD').replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
  // A new question with a main ask of its own is answered from turns on that ask: the preamble's
  // and the previous question's words only break ties among those, so they are not searched
  // (each would bring in turns that are never used, and make the query slower).
  const own = u.query.filter((t) => t.fromMessage && !t.preamble);
  const searched = !u.leansOnHistory && own.length > 0 ? own : u.query;
  const ranked = searched
    .map((t, i) => ({ t, i }))
    .sort((a, b) => b.t.weight - a.t.weight || a.i - b.i)
    .map(({ t }) => ({ word: clean(t.word), splittable: t.fromMessage && !t.joined }))
    .filter((w) => w.word.length >= 2);
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const w of ranked) {
    if (terms.length >= MAX_SEARCH_TERMS || seen.has(w.word)) continue;
    seen.add(w.word);
    terms.push(w.word);
  }
  const splits = ranked.filter((w) => w.splittable && w.word.length >= MIN_SPLIT_WORD).flatMap((w) => splitsOf(w.word));
  return [...terms, ...[...new Set(splits)].slice(0, MAX_SPLITS)];
}
