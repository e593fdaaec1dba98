/**
 * Which member of a topic names it. The strongest member by keyness is often a lone common noun
 * ("insurance", "reforms", "government"): frequent words get the largest G². A reader wants the
 * most specific phrase that still represents the group ("Medicare", "Wall Street", "federal
 * government"), so a multi-word phrase or a proper noun that is a central member of the topic
 * (said in a large part of the topic's passages) takes the label from a lone common noun.
 *
 * Word lists here are for topics only: the Big Five features read lexicons.ts, and a topic list
 * there would change the trained model's inputs.
 */
import { GENERIC_NOUNS, STOPWORDS } from './lexicons.ts';
import type { TurnTokens } from './nlp.ts';

/**
 * Lone nouns too broad to label a topic when the topic holds anything more specific: they name a
 * domain or a frame, not a subject ("government", "budget", "reforms", "nation", "technology"),
 * and one of them gathers unrelated subjects (Wall Street reform, education reform). They stay
 * keywords. Unlike GENERIC_NOUNS they are still candidate terms: "the budget" is something a
 * person talks about, and its phrases ("balanced budget") need it to be found.
 */
export const BROAD_NOUNS: ReadonlySet<string> = new Set(
  `government governments reform reforms revenue revenues budget budgets policy policies law laws
  nation nations state states region regions industry industries sector sectors technology technologies
  community communities society leadership environment environments mechanism mechanisms challenge challenges
  experience experiences capability capabilities possibility possibilities action actions control assumption assumptions
  amount amounts source sources function functions performance output outputs input inputs scale size path paths
  topic topics segment segments subject subjects conversation conversations discussion discussions debate
  disaster disasters movement movements pattern patterns resource resources activity activities
  project projects trend trends position positions view views field fields threat threats`.split(/\s+/).filter(Boolean),
);

/**
 * Nouns a reader never takes for a topic on their own: the medium a thing was said in (platform
 * and media nouns: "post", "video", "tweet", "podcast", "episode") and shells that stand for
 * whatever was just said ("thing", "path", "record", "output"). They stay candidate terms, so the
 * passages about a platform still group into a topic, but never label one on their own (a phrase
 * holding one can: "video game", "criminal record"). Listed with their plurals.
 */
export const NON_TOPIC_NOUNS: ReadonlySet<string> = new Set(
  `post posts video videos tweet tweets retweet retweets podcast podcasts episode episodes clip clips channel channels
  show shows thread threads comment comments reply replies message messages link links page pages
  website websites site sites app apps blog blogs article articles photo photos picture pictures image images
  tape tapes transcript transcripts audio recording recordings stream streams feed feeds
  meme memes headline headlines caption captions
  thing things stuff path paths record records loop loops output outputs input inputs kind sort lot lots
  bit bits piece pieces part parts way ways means item items spot spots stuff instance situation situations
  question questions answer answers example examples story stories point points reason reasons idea ideas
  word words name names number numbers amount amounts level levels degree degrees lens lenses
  moment moments day days year years time times period periods week weeks month months
  place places area areas space spaces side sides end ends`.split(/\s+/).filter(Boolean),
);

/**
 * Adjectives that do not narrow what a noun names ("different products", "important role",
 * "particular neuron", "massive amount"): a phrase starting with one is no more specific than its
 * head noun.
 */
const VAGUE_MODIFIERS: ReadonlySet<string> = new Set(
  `different particular certain specific various several additional previous next last first
  new old good great bad best worst better worse big huge massive enormous tiny important main major
  real whole entire general basic advanced simple strong weak right wrong true same own
  individual typical normal overall actual current`.split(/\s+/).filter(Boolean),
);

/**
 * THE RULE: what a reader would call a topic. A topic's label passes when all of these hold:
 *
 * 1. **Said**: it is a phrase of the person's own words, said at least twice (case and a plural
 *    "s" aside).
 * 2. **A noun phrase**: its last word is a noun or a proper noun in at least half of the places it
 *    is said (not "middle-income", "struggling", "young").
 * 3. **Names something on its own**: as a lone word it is none of the words that never name a
 *    subject — platform and media nouns, shells and fillers (NON_TOPIC_NOUNS: "post", "video",
 *    "thing", "path"), the generic nouns (GENERIC_NOUNS: "data", "companies") or stopwords; as a
 *    phrase it is not only vague modifiers on such a word ("additional information", "different
 *    path").
 * 4. **Whole**: a lone word is not nearly always (WHOLE_SHARE, 80 % of its uses) said as a piece of
 *    something longer — directly before another noun ("middle-income Americans", "Roe v. Wade")
 *    or inside a longer capitalised name ("Second Amendment", "Planned Parenthood"). A noun often
 *    used as a modifier is still a subject ("tax" in "tax cuts", "tax plan", "tax returns").
 * 5. **Shown**: at least one of the topic's evidence quotes says it.
 *
 * `readerTopicFailure` returns the first rule a label breaks (null when it passes). topics.ts
 * picks labels that pass; bench/topics.ts reports the share that pass before and after.
 */
export interface LabelUses {
  /** Times the label (its words in order, the last word's plural aside) is said. */
  said: number;
  /** …of which its last word is tagged a noun or proper noun. */
  asNoun: number;
  /** …of which it is directly followed by a noun or proper noun (a modifier of a longer phrase). */
  beforeNoun: number;
  /** …of which it sits inside a longer run of capitalised words mid-sentence (a longer name). */
  insideName: number;
}

/** A lone word said this share of the time as a piece of something longer is a fragment of it. */
const WHOLE_SHARE = 0.8;

export type ReaderRule = 'said' | 'noun phrase' | 'names something' | 'whole' | 'shown';

export function readerTopicFailure(label: string, uses: LabelUses, evidenceQuotes: readonly string[] | null = null): ReaderRule | null {
  const words = label.toLowerCase().split(/[\s]+/).filter(Boolean);
  if (uses.said < 2) return 'said';
  if (2 * uses.asNoun < uses.said) return 'noun phrase';
  const shell = (w: string): boolean => NON_TOPIC_NOUNS.has(w) || GENERIC_NOUNS.has(w) || STOPWORDS.has(w) || NON_TOPIC_NOUNS.has(w.replace(/s$/, ''));
  if (words.length === 1 && shell(words[0]!)) return 'names something';
  if (words.length > 1 && shell(words[words.length - 1]!) && words.slice(0, -1).every((w) => VAGUE_MODIFIERS.has(w) || shell(w))) return 'names something';
  if (words.length === 1 && uses.beforeNoun + uses.insideName >= WHOLE_SHARE * uses.said) return 'whole';
  if (evidenceQuotes && !evidenceQuotes.some((q) => saysPhrase(q, label))) return 'shown';
  return null;
}

/** Does `text` say `phrase` (whole words, any case, the last word's plural aside)? */
export function saysPhrase(text: string, phrase: string): boolean {
  const escaped = phrase.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '[\\s-]+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?:s|es)?(?![\\p{L}\\p{N}])`, 'u').test(text.toLowerCase());
}

const ORDINALS = new Set('first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth nineteenth'.split(' '));

interface Part {
  w: string;
  token: number;
  /** Joined to the word before it (same sentence, adjacent or across a hyphen). */
  joined: boolean;
}

/** The mind's words, indexed once per analysis so each label's uses are found quickly. */
export interface LabelIndex {
  turns: { tk: TurnTokens; parts: Part[]; sentenceStarts: Set<number> }[];
  /** Word (lower case, plural "s" stripped) → [turn, part] positions. */
  at: Map<string, [number, number][]>;
}

const stem = (w: string): string => w.replace(/(?:es|s)$/, '');

export function indexLabels(tokens: readonly TurnTokens[]): LabelIndex {
  const index: LabelIndex = { turns: [], at: new Map() };
  tokens.forEach((tk, ti) => {
    // The words of the turn, hyphenated compounds split into their parts ("pre-existing" → pre, existing).
    const parts: Part[] = [];
    const sentenceStarts = new Set(tk.sentences.map((s) => s.tokenStart));
    for (let i = 0; i < tk.value.length; i++) {
      if (tk.type[i] !== 'word' && tk.type[i] !== 'number') continue;
      const prev = parts[parts.length - 1];
      const joined = prev !== undefined && !sentenceStarts.has(i) && (prev.token === i - 1 || (tk.value[i - 1] === '-' && !tk.spaceBefore[i - 1] && prev.token === i - 2));
      tk.value[i]!.toLowerCase().replace(/['\u2019]s$/, '').split('-').filter(Boolean).forEach((w, k) => {
        const key = stem(w);
        const list = index.at.get(key);
        if (list) list.push([ti, parts.length]);
        else index.at.set(key, [[ti, parts.length]]);
        parts.push({ w, token: i, joined: k > 0 || joined });
      });
    }
    index.turns.push({ tk, parts, sentenceStarts });
  });
  return index;
}

/** How the person uses a label in their speech (`index`: the mind's tokenized turns, `indexLabels`). */
export function labelUses(label: string, index: LabelIndex): LabelUses {
  const want = label.toLowerCase().split(/[\s-]+/).filter(Boolean);
  const uses: LabelUses = { said: 0, asNoun: 0, beforeNoun: 0, insideName: 0 };
  if (want.length === 0) return uses;
  // Plural or singular alike, on every word ("assault weapons ban", "assault weapon bans").
  const same = (w: string, x: string): boolean => w === x || w === `${x}s` || w === `${x}es` || x === `${w}s` || x === `${w}es`;
  const capital = (v: string): boolean => /^\p{Lu}/u.test(v) && v !== 'I';
  for (const [ti, a] of index.at.get(stem(want[0]!)) ?? []) {
    const { tk, parts, sentenceStarts } = index.turns[ti]!;
    if (a + want.length > parts.length) continue;
    let ok = true;
    for (let k = 0; k < want.length && ok; k++) ok = same(parts[a + k]!.w, want[k]!) && (k === 0 || parts[a + k]!.joined);
    if (!ok) continue;
    const first = parts[a]!.token;
    const last = parts[a + want.length - 1]!.token;
    uses.said++;
    // A capitalised word mid-sentence is a name whatever the tagger says ("Roe v. Wade": "Wade" read as a verb).
    if (tk.pos[last] === 'NOUN' || tk.pos[last] === 'PROPN' || (capital(tk.value[last]!) && !sentenceStarts.has(last))) uses.asNoun++;
    const next = parts[a + want.length];
    const prev = a > 0 && parts[a]!.joined ? parts[a - 1] : undefined;
    const follows = next && next.joined && next.token !== last ? next.token : undefined;
    if (follows !== undefined && (tk.pos[follows] === 'NOUN' || tk.pos[follows] === 'PROPN')) uses.beforeNoun++;
    // Inside a longer name: a capitalised word follows ("Jungle Keepers"), or a capitalised
    // modifier that is not itself a name precedes ("Second Amendment", "Planned Parenthood";
    // not "Barack Obama", where the surname alone still names the person).
    const namedBefore =
      prev !== undefined && capital(tk.value[prev.token]!) && !sentenceStarts.has(prev.token) &&
      (ORDINALS.has(tk.value[prev.token]!.toLowerCase()) || (tk.pos[prev.token] !== 'PROPN' && tk.pos[prev.token] !== 'NOUN'));
    if (capital(tk.value[first]!) && (namedBefore || (follows !== undefined && capital(tk.value[follows]!)))) uses.insideName++;
  }
  return uses;
}

/**
 * The longer phrases of the person's words that a fragment is said inside, with how often: the
 * label with the capitalised words around it and the nouns right after it ("Amendment" → "Second
 * Amendment", "middle-income" → "middle-income Americans", "Roe" → "Roe v. Wade").
 */
export function longerForms(label: string, index: LabelIndex): Map<string, number> {
  const want = label.toLowerCase();
  const forms = new Map<string, number>();
  const capital = (v: string): boolean => /^\p{Lu}/u.test(v) && v !== 'I';
  for (const [ti, pi] of index.at.get(stem(want)) ?? []) {
    const { tk, parts, sentenceStarts: starts } = index.turns[ti]!;
    {
      const i = parts[pi]!.token;
      if (tk.value[i]!.toLowerCase() !== want) continue;
      let a = i;
      while (a > 0 && !starts.has(a) && capital(tk.value[a - 1]!) && !starts.has(a - 1) && tk.type[a - 1] === 'word') a--;
      let b = i;
      for (;;) {
        const n = b + 1;
        if (n >= tk.value.length || starts.has(n) || !tk.spaceBefore[n]) break;
        const v = tk.value[n]!;
        if (tk.type[n] !== 'word') break;
        if (capital(v) || /^(?:v|vs)\.?$/i.test(v) || ((tk.pos[n] === 'NOUN' || tk.pos[n] === 'PROPN') && !STOPWORDS.has(v.toLowerCase()))) b = n;
        else break;
      }
      if (a === i && b === i) continue;
      let text = '';
      for (let k = a; k <= b; k++) text += (k > a && tk.spaceBefore[k] ? ' ' : '') + tk.value[k]!;
      forms.set(text, (forms.get(text) ?? 0) + 1);
    }
  }
  return forms;
}

/** Cardinal number words: "four-year", "two-minute" are measures, not subjects. */
export const NUMBER_WORDS: ReadonlySet<string> = new Set(
  `one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
  seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand`.split(/\s+/),
);

/** What the label choice needs to know of a member. */
export interface LabelCandidate {
  /** Lemmas of its words (the last is the head noun). */
  lemmas: string[];
  /** Its commonest written form (capitals kept for proper nouns and acronyms). */
  surface: string;
  count: number;
  /** Centrality in the topic (keyness × co-occurrence with the other members). */
  weight: number;
  /** In how many of the topic's passages it is said. */
  passages: number;
}

export type Specificity = 'specific' | 'plain' | 'broad' | 'vague';

/**
 * - specific: a proper noun or acronym ("Medicare", "AI"), or a phrase ("health care",
 *   "balanced budget", "conversion rate");
 * - vague: a phrase led by an adjective that does not narrow its head ("important role");
 * - broad: a lone noun of BROAD_NOUNS ("government");
 * - plain: any other lone common noun ("insurance", "caiman").
 */
export function specificity(t: Pick<LabelCandidate, 'lemmas' | 'surface'>): Specificity {
  if (t.lemmas.length > 1) return VAGUE_MODIFIERS.has(t.lemmas[0]!) && !/^\p{Lu}/u.test(t.surface) ? 'vague' : 'specific';
  if (/\p{Lu}/u.test(t.surface)) return 'specific';
  const head = t.lemmas[0]!;
  return BROAD_NOUNS.has(head) || BROAD_NOUNS.has(t.surface.toLowerCase()) ? 'broad' : 'plain';
}

/** Does `inner` occur as a run of whole words inside the longer `outer`? */
export function containsWords(outer: string[], inner: string[]): boolean {
  if (inner.length >= outer.length) return false;
  for (let a = 0; a + inner.length <= outer.length; a++) if (inner.every((w, k) => outer[a + k] === w)) return true;
  return false;
}

/**
 * A phrase holding a plain noun names the topic when at least this share of the noun's uses are
 * that phrase ("spider monkey" 17 of 38 "monkey"; "trade deals" 5 of 12 "trade"; not "tax cuts",
 * 8 of 34 "tax"). (A phrase said half as often as its word has absorbed the word already.)
 */
const SUBTYPE_SHARE = 0.4;
/**
 * Any other member must be nearly as central as the word it replaces (weight ratio), so a name
 * that merely comes up beside a subject ("China" beside "economy", "middle-class" beside "tax")
 * does not take its label.
 */
const NEAR_WEIGHT = 0.6;
/** Below a broad or vague word, a member said in a quarter of its passages names the topic better. */
const BROAD_PASSAGE_SHARE = 0.25;

/**
 * The member that names the topic: the most specific one that still represents it. `members` are
 * ordered by weight (strongest first).
 *
 * - A specific strongest member keeps the label.
 * - Below a plain noun: a phrase holding it that accounts for SUBTYPE_SHARE of its uses; else a
 *   specific member nearly as central, said in half the noun's passages and at least as often as
 *   the noun is said on its own, outside the topic's phrases ("insurance": 25 uses, of which 18 in
 *   "insurance companies", "health insurance", "private insurance"; "Medicare": 19 — the topic is
 *   Medicare).
 * - Below a broad or vague word: a phrase holding it, or a specific member nearly as central, said
 *   in a quarter of its passages ("government" → "federal government", "reforms" → "Wall
 *   Street"); else a plain noun half as central, in half its passages ("nation" → "immigrants");
 *   else it stays (the speech holds nothing more specific on that subject: "budgets reflect
 *   choices").
 */
export function chooseLabel<T extends LabelCandidate>(members: T[]): T {
  const top = members[0]!;
  const kind = specificity(top);
  if (kind === 'specific') return top;
  const others = members.slice(1);
  const holds = (t: T): boolean => containsWords(t.lemmas, top.lemmas);
  const specific = others.filter((t) => specificity(t) === 'specific');
  if (kind === 'plain') {
    const subtype = specific.find((t) => holds(t) && t.count >= SUBTYPE_SHARE * top.count);
    if (subtype) return subtype;
    // Uses on its own: outside the topic's phrases that hold it ("early stage" and "startup" are
    // compared without their "early stage startup").
    const alone = (t: T): number => t.count - others.reduce((s, o) => s + (holds(o) && containsWords(o.lemmas, t.lemmas) ? o.count : 0), 0);
    const topAlone = top.count - others.reduce((s, t) => s + (holds(t) ? t.count : 0), 0);
    return specific.find((t) => !holds(t) && t.weight >= NEAR_WEIGHT * top.weight && alone(t) >= topAlone && 2 * t.passages >= top.passages) ?? top;
  }
  const central = (t: T): boolean => t.passages >= BROAD_PASSAGE_SHARE * top.passages && t.passages > 0;
  return (
    specific.find((t) => holds(t) && central(t)) ??
    specific.find((t) => t.weight >= NEAR_WEIGHT * top.weight && central(t)) ??
    others.find((t) => specificity(t) === 'plain' && 2 * t.weight >= top.weight && 2 * t.passages >= top.passages) ??
    top
  );
}
