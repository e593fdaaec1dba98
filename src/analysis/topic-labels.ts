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
