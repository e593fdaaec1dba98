/**
 * Findings: what the person states about themselves and the world, from first-person clauses
 * in their own sentences ("I think…", "I'd never…", "I grew up…"). Each rule recognises a clause
 * opening, reads negation ("I don't think", "I'm not going to", "I'd never") and hedges ("maybe
 * I…", "I guess", "probably"), and restates the clause in the third person. Not findings:
 * questions; reported and voiced speech ("he said, I…", "I was like, …", "Hey, I'm…", quotes);
 * a clause under a condition that cannot be kept with it; complements that are not a clause
 * ("I think for different reasons") or say nothing ("I think that's right").
 */
import { UNPUNCTUATED } from './features.ts';
import { VALENCE } from './lexicons.ts';
import { tokenize, type TurnTokens } from './nlp.ts';
import { cleanComplement, conjugateThirdPerson, isClause, pronounsClash, thirdPerson } from './restate.ts';
import type { PreparedTurn } from './prepare.ts';
import type { FindingKind, FindingResult } from './types.ts';

interface Rule {
  kind: FindingKind;
  /** Matched against the lower-cased clause starting at "i"/"my"/"we"/"it"; group 1 = verb phrase, last group = the rest. */
  pattern: RegExp;
  /** Third-person verb phrase for the statement (from the verb group, or the whole match). */
  statement: (verb: string, match: RegExpExecArray) => string;
  /** For/against stance (preference, value, goal) rather than the clause's sentiment. */
  stance?: 'for' | 'against';
  negated?: boolean;
  /** The rest of the clause starts with the subject's verb, which must agree with "they"/"he"/"she". */
  conjugate?: boolean;
  /** The rest must be a clause of its own (a subject and a verb): "I think [the plan works]". */
  clause?: boolean;
  base: number;
}

const T = (s: string) => (): string => s;
const NOT = "(?:do not|don't|did not|didn't|does not)";

/** Rules in priority order: the first that matches a clause wins. */
const RULES: Rule[] = [
  { kind: 'value', pattern: /^i(?: would|'d| will|'ll) never (\w+)\s+(.+)/, statement: (v) => `Would never ${v}`, stance: 'against', negated: true, base: 0.85 },
  { kind: 'value', pattern: new RegExp(`^i ${NOT} (believe in|care about|value)\\s+(.+)`), statement: (v) => `Does not ${v}`, stance: 'against', negated: true, base: 0.8 },
  { kind: 'value', pattern: /^i (?:really |deeply |truly |strongly |firmly )?(care (?:deeply )?about|value|believe in|stand for|respect)\s+(.+)/, statement: (v) => ({ value: 'Values', 'believe in': 'Believes in', 'stand for': 'Stands for', respect: 'Respects' })[v] ?? 'Cares about', stance: 'for', base: 0.8 },
  { kind: 'belief', pattern: new RegExp(`^i ${NOT} (think|believe)(?: that)?[,\\s]+(.+)`), statement: (v) => `Does not ${v} that`, negated: true, clause: true, base: 0.8 },
  { kind: 'belief', pattern: /^i (?:really |truly |genuinely |honestly |strongly |do |firmly )?(think|believe|am convinced|'m convinced|suspect|doubt|feel like|feel that)(?: that)?(?! (?:about|of|a lot|through|back|twice|hard|again|so|not)\b)[,\s]+(.+)/, statement: (v) => ({ think: 'Thinks that', believe: 'Believes that', 'am convinced': 'Is convinced that', "'m convinced": 'Is convinced that', suspect: 'Suspects that', doubt: 'Doubts that', 'feel like': 'Feels that', 'feel that': 'Feels that' })[v] ?? 'Thinks that', clause: true, base: 0.8 },
  // Stances: "I'm against…", "I was opposed to…", "I'm a great believer in…", "I'm a huge fan of…".
  { kind: 'value', pattern: /^i(?:'m| am| was)((?: strongly| always| totally| firmly)? (?:against|opposed to))\s+(.+)/, statement: (v, m) => `${/^i was/.test(m[0]) ? 'Was' : 'Is'}${v}`, stance: 'against', base: 0.8 },
  { kind: 'value', pattern: /^i(?:'m| am| was)((?: strongly| always| totally| firmly)? (?:in favou?r of|all for))\s+(.+)/, statement: (v, m) => `${/^i was/.test(m[0]) ? 'Was' : 'Is'}${v}`, stance: 'for', base: 0.8 },
  { kind: 'belief', pattern: /^i(?:'m| am| was)( (?:a |an )(?:\w+ )?(?:believer|firm believer|true believer)(?: in)?)\s+(.+)/, statement: (v, m) => `${/^i was/.test(m[0]) ? 'Was' : 'Is'}${v}`, base: 0.75 },
  { kind: 'preference', pattern: /^i(?:'m| am| was)( (?:a |an )(?:\w+ )?(?:fan|lover|admirer) of)\s+(.+)/, statement: (v, m) => `${/^i was/.test(m[0]) ? 'Was' : 'Is'}${v}`, stance: 'for', base: 0.75 },
  { kind: 'value', pattern: /^(?:it's|it is) (?:really |so |very |extremely |incredibly )?(important|essential|critical|crucial|vital)(?: to me)? (that|to) (.+)/, statement: (v, m) => `Thinks it is ${v} ${m[2]}`, stance: 'for', base: 0.75 },
  { kind: 'preference', pattern: new RegExp(`^i ${NOT} (?:really )?(like|love|enjoy|want)\\s+(.+)`), statement: (v) => `Does not ${v}`, stance: 'against', negated: true, base: 0.8 },
  { kind: 'preference', pattern: /^i (?:really |absolutely |just |truly )?(hate|dislike|can't stand|cannot stand|despise)\s+(.+)/, statement: (v) => ({ hate: 'Hates', dislike: 'Dislikes', despise: 'Despises' })[v] ?? 'Cannot stand', stance: 'against', base: 0.8 },
  { kind: 'preference', pattern: /^i (?:really |absolutely |just |truly |do )?(love|like|enjoy|prefer|adore)\s+(?!to think)(.+)/, statement: (v) => ({ love: 'Loves', like: 'Likes', enjoy: 'Enjoys', prefer: 'Prefers', adore: 'Adores' })[v] ?? 'Likes', stance: 'for', base: 0.8 },
  { kind: 'preference', pattern: /^my (favou?rite \w+)( is| was|'s)\s+(.+)/, statement: (v, m) => `Their ${v} ${copula(m[2]!)}`, stance: 'for', base: 0.8 },
  { kind: 'goal', pattern: /^i(?:'m| am) (not going to|not gonna)\s+(.+)/, statement: T('Is not going to'), stance: 'against', negated: true, base: 0.75 },
  { kind: 'goal', pattern: /^i (won't|will not)\s+(.+)/, statement: T('Will not'), stance: 'against', negated: true, base: 0.75 },
  { kind: 'goal', pattern: /^i (?:really )?(want to|wanna|hope to|plan to|intend to|aim to|'d like to|would like to|'d love to|would love to|am determined to|'m determined to)\s+(.+)/, statement: (v) => ({ 'hope to': 'Hopes to', 'plan to': 'Plans to', 'intend to': 'Intends to', 'aim to': 'Aims to', "'d love to": 'Would love to', 'would love to': 'Would love to', 'am determined to': 'Is determined to', "'m determined to": 'Is determined to' })[v] ?? 'Wants to', stance: 'for', base: 0.8 },
  { kind: 'goal', pattern: /^i (should|need to|have to|must|ought to)\s+(.+)/, statement: (v) => ({ should: 'Thinks they should', 'need to': 'Needs to', 'have to': 'Has to', must: 'Must', 'ought to': 'Thinks they ought to' })[v] ?? v, stance: 'for', base: 0.7 },
  { kind: 'goal', pattern: /^i(?:'m| am) (going to|gonna)\s+(.+)/, statement: T('Is going to'), stance: 'for', base: 0.7 },
  { kind: 'goal', pattern: /^my (goal|plan|mission|dream|hope)( is| was| has been)\s+(.+)/, statement: (v, m) => `Their ${v} ${copula(m[2]!)}`, stance: 'for', base: 0.8 },
  // "We're going to…" is a prediction or a promise about a group, not a personal goal.
  { kind: 'belief', pattern: /^we(?:'re| are) (going to|gonna)\s+(.+)/, statement: T('Says we are going to'), base: 0.5 },
  { kind: 'habit', pattern: /^i (always|usually|often|normally|typically|generally|tend to|try to|make a point of|rarely|never)\s+(.+)/, statement: (v) => ({ always: 'Always', usually: 'Usually', often: 'Often', normally: 'Normally', typically: 'Typically', generally: 'Generally', 'tend to': 'Tends to', 'try to': 'Tries to', 'make a point of': 'Makes a point of', rarely: 'Rarely', never: 'Never' })[v] ?? v, conjugate: true, base: 0.7 },
  { kind: 'habit', pattern: /^(every (?:day|morning|night|week|evening)),? i\s+(.+)/, statement: (v) => `${v[0]!.toUpperCase()}${v.slice(1)}`, conjugate: true, base: 0.7 },
  { kind: 'experience', pattern: /^i (grew up|remember|used to|spent|met|lived|worked|learned|started|founded|built|wrote|studied|went|was|had|saw)\s+(.+)/, statement: (v) => ({ 'grew up': 'Grew up', remember: 'Remembers', 'used to': 'Used to', spent: 'Spent', met: 'Met', lived: 'Lived', worked: 'Worked', learned: 'Learned', started: 'Started', founded: 'Founded', built: 'Built', wrote: 'Wrote', studied: 'Studied', went: 'Went', was: 'Was', had: 'Had', saw: 'Saw' })[v] ?? v, base: 0.65 },
  { kind: 'experience', pattern: /^i(?:'ve| have) (been|had|seen|done|spent|met|lived|worked|learned|built|known|watched)\s+(.+)/, statement: (v) => `Has ${v}`, base: 0.65 },
  { kind: 'fact', pattern: /^i(?:'m| am) (a|an|the|from|married|the father|the mother)\s+(.+)/, statement: (v) => (v === 'from' ? 'Is from' : v === 'married' ? 'Is married' : `Is ${v}`), base: 0.75 },
  { kind: 'fact', pattern: /^my (wife|husband|son|daughter|kids|children|family|father|mother|dad|mom|brother|sister|name|job|background|parents|grandfather|grandmother|grandparents)( is| are| was| were|'s)\s+(.+)/, statement: (v, m) => `Their ${v} ${copula(m[2]!)}`, base: 0.75 },
  { kind: 'fact', pattern: /^i (live|work)( in| at| for| on)\s+(.+)/, statement: (v) => `${v === 'live' ? 'Lives' : 'Works'}`, base: 0.75 },
];

/** Where a clause may begin: sentence start, after punctuation, or after a conjunction / discourse marker. */
const CLAUSE_START =
  /(?:\b(?:and|but|so|because|now|look|yes|no|honestly|frankly|and so|i mean|you know|well|actually|and then|though|maybe|perhaps|probably|i guess|i suppose)\s+|[,;:\u2014]\s*|\s-\s|^)(?=(?:i|i'm|i've|i'd|i'll|my|we're|we|it's|it|every)\b)/g;
/** Hedges; "some kind of", "that sort of" are determiners, not hedges. */
const HEDGE =
  /\b(maybe|perhaps|probably|possibly|i guess|i suppose|might|(?<!\b(?:some|any|what|which|that|this|these|those|a|the|every|one|same|no|each|other|different|certain)\s)(?:sort|kind) of|not sure|not certain|could be wrong|presumably|apparently|seems)\b/;
const CONDITIONAL_BEFORE = /\b(if|unless|whether|when you|as if|what if)\s+$/;
/**
 * Reported or voiced speech right before the clause: "he said, I…", "I was like, I…", "she goes,
 * I…", "Hey, I'm a startup", "thinking, I…" — someone's words, not the person's claim.
 */
const QUOTATIVE_BEFORE = /(?:\b(?:like|said|says|say|goes|go|went|told(?: \w+)?|asks?|asked|thinking|thought|wrote|writes|yelled|screamed|hey|oh)|:)\s*[,:]?\s*(?:(?:and|that)\s+)?["']?\s*$/;
/** A fronted subordinate clause whose condition (or time) the following clause depends on. */
const CONDITION = /\b(if|unless|when|whenever|once|as long as|provided(?: that)?|whether|what if|even if)\b/g;
const MAX_CONDITION_WORDS = 12;
/** "I want to thank…", "I'm going to make a point…": talk about the conversation itself, not a goal. */
const SPEECH_ACT = /^(?:(?:just|also|really|quickly|briefly|first|again|actually|simply)\s+)*(thank|say|talk|mention|ask|add|clarify|clear up|underscore|underline|emphasi[sz]e|stress|make (?:a|an|one|two|this|that|my) (?:\w+ )?point|point out|go back|come back|respond|answer|be clear|be brief|repeat|read|quote|tell you|remind)\b/;
/** Transcript markers are not words of the person: "[inaudible 01:54:47]", "[crosstalk]", "(laughs)". */
const MARKERS = /\s*(?:\[[^\]]{0,40}\]|\((?:inaudible|crosstalk|laughs?|laughing|laughter|applause|sic|singing|music)[^)]{0,20}\))/gi;
/** Words that say nothing on their own: a complement made only of these (and pronouns) is a remark, not a claim. */
const LIGHT = new Set(
  'be have do go get make see say tell know think believe feel want need let come take put give able right true sure thing way lot kind sort something anything everything nothing stuff point fact case deny agree disagree mean guess happen okay ok yes yeah one same'.split(' '),
);
/** A clause does not end on these: it was cut off ("the reason we're so", "which was"). */
const DANGLING = /\s+(?:because|and|but|or|so|which|the|a|an|who|whom|was|were|is|are|am|be|been|like|just|then|as|if|when|than|my|their|your|our|his|her|its|these|those|very|really|kind|sort|um|uh)$/i;
/** A clause that was cut does not end on these either ("the actual best person that…"). */
const CUT_DANGLING = /\s+(?:that|of|from|with|to|for|about|by|into|at|in|on)$/i;
const MIN_WORDS = 5;
const MAX_WORDS = 60;
/** Confidence factor of a finding read from a pseudo-sentence (speech without punctuation). */
const UNPUNCTUATED_FACTOR = 0.8;
const MAX_REST_WORDS = 28;

const copula = (c: string): string => ({ "'s": 'is' })[c.trim()] ?? c.trim();

/** Shorten a restated clause at its first clause boundary after a few words, then at MAX_REST_WORDS; drop a dangling end. */
function tidyRest(rest: string): { text: string; cut: boolean; hedged: boolean } {
  // Openers, asides ("applied I think to…") and a spliced frame ("it's helpful, …") are not part
  // of the claim (restate.ts).
  const clean = cleanComplement(rest);
  let r = clean.text;
  let cut = false;
  const boundary = /(?:,\s+(?:and|but|so|because|which|who|where)\b|;|\s[-\u2013\u2014]\s|\u2026|\.\.\.|,?\s+(?:I|he|she|they|we|you|it)(?:'s|'re|'m|\s+was|\s+were|\s+is|\s+are|\s+am)\s+like\b|,\s+like,)/gi;
  for (const m of r.matchAll(boundary)) {
    // Trailing off within the first words ("I grew up in… We don't have to…"): no claim was made.
    if (r.slice(0, m.index).split(' ').length < 4) return { text: '', cut: true, hedged: clean.hedged };
    r = r.slice(0, m.index);
    cut = true;
    break;
  }
  const words = r.split(' ');
  // Cut mid-sentence (by length, or where the speaker trailed off): a preposition or "that" at
  // the end is left hanging.
  let truncated = /\u2026|\.\.\./.test(clean.text.slice(r.length, r.length + 3));
  if (words.length > MAX_REST_WORDS) {
    r = `${words.slice(0, MAX_REST_WORDS).join(' ')}`;
    cut = true;
    truncated = true;
  }
  r = r.replace(/[\s,;:.!\-\u2013\u2014"']+$/, '');
  // Tags closing the clause are not part of the claim ("…, believe me", "…, you know").
  r = r.replace(/(?:,\s*(?:believe me|you know|right|i think|i guess|i believe|frankly|honestly|by the way|okay|folks|man))+$/i, '');
  while (DANGLING.test(r) || (truncated && CUT_DANGLING.test(r))) {
    r = r.replace(DANGLING, '').replace(CUT_DANGLING, '').replace(/[\s,;:]+$/, '');
    cut = true;
  }
  return { text: r, cut, hedged: clean.hedged };
}

/** Content words of a tokenized complement: nouns, proper nouns, adjectives, verbs and numbers that say something. */
function contentWords(tk: TurnTokens): number {
  let n = 0;
  for (let i = 0; i < tk.pos.length; i++) {
    const pos = tk.pos[i];
    if (tk.type[i] !== 'word' && tk.type[i] !== 'number') continue;
    if (pos !== 'NOUN' && pos !== 'PROPN' && pos !== 'ADJ' && pos !== 'VERB' && pos !== 'NUM') continue;
    if (LIGHT.has(tk.lemma[i]!.toLowerCase()) || LIGHT.has(tk.normal[i]!)) continue;
    n++;
  }
  return n;
}

function withoutFirstToken(tk: TurnTokens): TurnTokens {
  const cut = <T>(a: T[]): T[] => a.slice(1);
  return { ...tk, value: cut(tk.value), normal: cut(tk.normal), type: cut(tk.type), pos: cut(tk.pos), lemma: cut(tk.lemma), negated: cut(tk.negated), spaceBefore: cut(tk.spaceBefore), sentences: [], wordCount: tk.wordCount - 1 };
}

/** Does the complement open with a verb (after adverbs: "actually go do something")? */
function startsWithVerb(tk: TurnTokens): boolean {
  for (let i = 0; i < tk.pos.length; i++) {
    if (tk.pos[i] === 'ADV' || tk.pos[i] === 'PART') continue;
    return tk.pos[i] === 'VERB' || tk.pos[i] === 'AUX';
  }
  return false;
}

/** Valence of the complement, negation-aware (wink's negation scope): reported only when clearly one-sided. */
function polarityOf(tk: TurnTokens): FindingResult['polarity'] {
  let pos = 0;
  let neg = 0;
  for (let i = 0; i < tk.normal.length; i++) {
    const v = VALENCE[tk.normal[i]!];
    if (v === undefined) continue;
    const signed = tk.negated[i] ? -v : v;
    if (signed > 0) pos += signed;
    else neg -= signed;
  }
  if (pos >= 3 && pos >= 2 * neg) return 'positive';
  if (neg >= 3 && neg >= 2 * pos) return 'negative';
  return 'neutral';
}

/**
 * The fronted condition a clause depends on, when there is one: "Because if they succeed, I
 * believe…" → "if they succeed". `null` when there is none; `false` when there is one but it
 * cannot be kept with the clause (too long, cut, or closed by another clause before this one).
 */
function conditionOf(before: string): string | null | false {
  const found = [...before.matchAll(CONDITION)];
  const last = found[found.length - 1];
  if (!last) return null;
  const text = before.slice(last.index).replace(/[\s,;:\u2014-]+$/, '');
  if (/^(?:whether|what if)/.test(text)) return false;
  // Another clause boundary inside: the condition belonged to an earlier clause, and its scope is unclear.
  if (/[,;:]/.test(text)) return false;
  if (text.split(/\s+/).length > MAX_CONDITION_WORDS || text.split(/\s+/).length < 3 || DANGLING.test(text)) return false;
  return text;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/** A frame that makes what follows an example or a hypothetical: "would be…", "imagine…", "let's say…", "something like…". */
const HYPOTHETICAL_BEFORE = /\b(?:would be|imagine|let['\u2019]s say|say,|something like|for example|for instance|pretend)\b[^.;]*$/;

/**
 * The clause continues a list of the same clause with other subjects, joined by commas: "you're
 * going to get a percentage of money, I'm going to get a percentage of money". The person is
 * acting out an example, and their line of it is not their claim.
 */
function parallelBefore(before: string, clause: string): boolean {
  if (!/,\s*$/.test(before)) return false;
  // The clause's verb phrase after its subject: "i'm going to get" → "going to get".
  const m = /^(?:i|we)(?:['\u2019](?:m|re|ve|d|ll)|\s+(?:am|are|was|were|will|would|have|had))?\s+((?:\w+\s+){1,2}\w+)/.exec(clause);
  if (!m) return false;
  const phrase = m[1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\b(?:you|he|she|they|we|i)(?:['\u2019](?:re|s|m|ll|d|ve)|\\s+(?:are|is|am|was|were|will|would|have|has|had))?\\s+${phrase}\\b`).test(before);
}

function findingsOfSentence(sentence: string, turn: PreparedTurn): FindingResult | null {
  const trimmed = sentence.trim();
  if (trimmed.endsWith('?')) return null;
  // What is analysed has no transcript markers; the quote stays verbatim.
  const clean = trimmed.replace(MARKERS, '').trim();
  const wordCount = clean.split(/\s+/).length;
  if (wordCount < MIN_WORDS || wordCount > MAX_WORDS) return null;
  const lower = clean.toLowerCase().replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, '"');
  // An unbalanced quotation mark: the sentence is part of a quotation, someone else's words.
  if ((lower.match(/"/g)?.length ?? 0) % 2 === 1) return null;
  for (const m of lower.matchAll(CLAUSE_START)) {
    const at = m.index + m[0].length;
    const before = lower.slice(0, at);
    if (CONDITIONAL_BEFORE.test(before)) continue;
    // Inside a quotation (an odd number of quote marks before), or right after a quotative: someone's words.
    if ((before.match(/"/g)?.length ?? 0) % 2 === 1) continue;
    if (QUOTATIVE_BEFORE.test(before)) continue;
    // A parenthetical "I think" inside a phrase ("signals that come from, I think deeper recesses…").
    if (/\b(?:from|of|to|in|on|at|with|by|for|about|into|the|a|an|and|or)\s*,\s*$/.test(before)) continue;
    // A clause in a hypothetical or a list of parallel ones ("would be we're going to…, you're going
    // to get a percentage, I'm going to get a percentage"): an example acted out, not a claim.
    if (HYPOTHETICAL_BEFORE.test(before) || parallelBefore(before, lower.slice(at))) continue;
    const condition = conditionOf(before);
    if (condition === false) continue;
    const clause = lower.slice(at);
    for (const rule of RULES) {
      const r = rule.pattern.exec(clause);
      if (!r) continue;
      const verb = r[1]!;
      const restRaw = r[r.length - 1]!;
      // "I was like, …", "I'm like, …": a quotative, not a statement; "I think - I had…": a false start.
      if (/^like\b/.test(restRaw) || /^[-\u2013\u2014]/.test(restRaw)) break;
      if ((rule.kind === 'goal' || rule.kind === 'preference') && SPEECH_ACT.test(restRaw)) break;
      // The restated clause keeps the speaker's own capitalisation (same offsets as `lower`).
      const restStart = at + r.index + r[0].length - restRaw.length;
      const tidy = tidyRest(clean.slice(restStart, restStart + restRaw.length));
      if (tidy.text.split(' ').length < 3) break;
      // Quotation marks in the complement: voiced speech or a thought acted out, not a statement.
      if (/["\u201C\u201D]/.test(tidy.text)) break;
      // A verb phrase is tagged after a subject ("they move closer…"): alone, its verb may read as a noun.
      const tk = rule.clause ? tokenize(tidy.text) : withoutFirstToken(tokenize(`they ${tidy.text}`));
      if (rule.clause && !isClause(tk)) break;
      // "I believe if their opponent should win this race": a condition without the clause it conditions.
      if (rule.clause && /^(?:if|when|unless|whether|because|although|though|while)\b/i.test(tidy.text) && !tidy.text.includes(',')) break;
      if (contentWords(tk) < (rule.clause ? 2 : 1)) break;
      // A goal's complement is something to do: "I'm going to [win that money]", not "I'm going to, this is…".
      if (rule.kind === 'goal' && /(?:to|gonna|wanna|should|must|will not|won't)$/.test(verb) && !startsWithVerb(tk)) break;
      // A habit is something done: "I always [do the same routine]", not "I always [inaudible] in the end".
      if (rule.kind === 'habit' && !startsWithVerb(tk)) break;
      // "I think this is a great example", "I think it has a role to play": a short remark about something said before.
      if (rule.clause && /^(?:this|that|it|these|those)\b/i.test(tidy.text) && tidy.text.split(' ').length <= 8) break;
      // "tend to"/"try to"/"make a point of" already carry the agreement; the verb after them stays bare.
      const agrees = rule.conjugate && !/ (to|of)$/.test(verb);
      const personal = rule.kind === 'experience' || rule.kind === 'fact';
      const firstPerson = agrees ? conjugateThirdPerson(tidy.text) : tidy.text;
      const rest = thirdPerson(firstPerson, personal);
      // "…smartest people they've ever met" beside a "he": who is who cannot be told; not shown.
      if (pronounsClash(firstPerson, rest)) break;
      const hedged = tidy.hedged || HEDGE.test(before) || HEDGE.test(restRaw.split(/\s+/).slice(0, 8).join(' '));
      // "I tend to agree/think…" is a belief held loosely, not a habit; "I'm a strong supporter of…",
      // "a huge Rancid fan", "a great believer in…" are stances, not facts about the person.
      let kind: FindingKind = rule.kind === 'habit' && /^(?:think|agree|disagree|believe|feel|doubt)\b/.test(restRaw) ? 'belief' : rule.kind;
      let stance = rule.stance;
      if (kind === 'fact' && /^(?:a|an)\b/.test(verb)) {
        if (/\b(?:supporter|advocate|proponent|champion|defender)\b/.test(restRaw)) [kind, stance] = ['value', 'for'];
        else if (/\b(?:opponent|critic|enemy)\b/.test(restRaw)) [kind, stance] = ['value', 'against'];
        else if (/\b(?:fan|fans|lover|admirer)\b/.test(restRaw)) [kind, stance] = ['preference', 'for'];
        else if (/\bbeliever\b/.test(restRaw)) kind = 'belief';
      }
      let polarity: FindingResult['polarity'];
      if (stance) polarity = stance === 'for' ? 'positive' : 'negative';
      else if (rule.negated || verb === 'never' || verb === 'rarely' || verb === 'doubt') polarity = 'negative';
      else polarity = polarityOf(tk);
      let confidence = rule.base;
      if (hedged) confidence *= 0.6;
      if (tidy.cut) confidence *= 0.9;
      if (condition) confidence *= 0.9;
      // Without punctuation, where the sentence (and so the clause) starts and ends is a guess.
      if (turn.counts.has(UNPUNCTUATED)) confidence *= UNPUNCTUATED_FACTOR;
      const lead = hedged && /\b(maybe|perhaps|probably)\s*,?\s*$/.test(before) ? 'Maybe: ' : '';
      const kept = condition ? clean.slice(before.lastIndexOf(condition), before.lastIndexOf(condition) + condition.length) : '';
      const tail = condition ? `, ${thirdPerson(kept.charAt(0).toLowerCase() + kept.slice(1))}` : '';
      return {
        kind,
        statement: `${lead}${rule.statement(verb, r)} ${rest}${tail}`.replace(/\s+/g, ' ').trim(),
        quote: trimmed,
        turnId: turn.turn.turnId,
        startMs: turn.turn.startMs,
        polarity,
        confidence: round(confidence),
      };
    }
  }
  return null;
}

/** How many findings a speech of this length yields at most. */
export function findingBudget(mindWords: number): number {
  return Math.max(5, Math.min(60, Math.round(mindWords / 250)));
}

/** A statement's words, for spotting one statement inside another. */
const bare = (s: string): string => ` ${s.toLowerCase().replace(/^maybe: /, '').replace(/[^\p{L}\p{N}' ]+/gu, ' ').replace(/\s+/g, ' ').trim()} `;

export function extractFindings(turns: PreparedTurn[], mindWords: number): FindingResult[] {
  const all: { f: FindingResult; order: number; bare: string }[] = [];
  let order = 0;
  for (const turn of turns) {
    for (const s of turn.tokens.sentences) {
      const f = findingsOfSentence(s.text, turn);
      order++;
      if (f) all.push({ f, order, bare: bare(f.statement) });
    }
  }
  // Near-duplicates: a statement contained in another of the same kind ("Was against the war" in
  // "Was against the war in Iraq") is the same claim; the fuller one stays (the earlier on a tie).
  const distinct = all.filter(
    (a) => !all.some((b) => b !== a && b.f.kind === a.f.kind && (b.bare === a.bare ? b.order < a.order : b.bare.includes(a.bare))),
  );
  // Keep the most confident findings, no kind taking more than a third of the budget, so the
  // result covers beliefs, goals, experiences… rather than fifty "Thinks that".
  const budget = findingBudget(mindWords);
  const perKind = Math.max(2, Math.ceil(budget / 3));
  const byKind = new Map<FindingKind, number>();
  const chosen = distinct
    .sort((a, b) => b.f.confidence - a.f.confidence || a.order - b.order)
    .filter(({ f }) => {
      const n = byKind.get(f.kind) ?? 0;
      if (n >= perKind) return false;
      byKind.set(f.kind, n + 1);
      return true;
    })
    .slice(0, budget);
  return chosen.sort((a, b) => a.order - b.order).map(({ f }) => f);
}
