/**
 * Findings: what the person states about themselves and the world, from first-person clauses
 * in their own sentences ("I think…", "I'd never…", "I grew up…"). Each rule recognises a clause
 * opening, reads negation ("I don't think", "I'm not going to", "I'd never") and hedges ("maybe
 * I…", "I guess", "probably"), and restates the clause in the third person. Questions, reported
 * speech and conditionals ("if I…") are not findings.
 */
import { VALENCE } from './lexicons.ts';
import type { PreparedTurn } from './prepare.ts';
import type { FindingKind, FindingResult } from './types.ts';

/** Base verbs that take -s/-es in the third person, with the irregular ones listed. */
const IRREGULAR_3RD: Record<string, string> = { do: 'does', go: 'goes', have: 'has', be: 'is', am: 'is', say: 'says' };
const NOT_A_BASE_VERB = /^(was|were|been|had|did|got|is|are|has|does|the|a|an|to|not|just|really|also|very|so|and|but|in|on|at|for|with|when|if|that|this|it|they|we|you|he|she|\w+ed|\w+ing)$/;

/** "do the same routine" → "does the same routine": agree a clause's first verb with a third-person subject. */
export function conjugateThirdPerson(clause: string): string {
  const m = /^([a-z]+)\b(.*)$/s.exec(clause);
  if (!m) return clause;
  const w = m[1]!;
  if (NOT_A_BASE_VERB.test(w)) return clause;
  let v = IRREGULAR_3RD[w];
  if (!v) {
    if (/(s|sh|ch|x|z|o)$/.test(w)) v = `${w}es`;
    else if (/[^aeiou]y$/.test(w)) v = `${w.slice(0, -1)}ies`;
    else v = `${w}s`;
  }
  return v + m[2]!;
}

interface Rule {
  kind: FindingKind;
  /** Matched against the lower-cased clause starting at "i"/"my"/"we"/"it"; group 1 = verb phrase, last group = the rest. */
  pattern: RegExp;
  /** Third-person verb phrase for the statement. */
  statement: (verb: string) => string;
  /** For/against stance (preference, value, goal) rather than the clause's sentiment. */
  stance?: 'for' | 'against';
  negated?: boolean;
  /** The rest of the clause starts with the subject's verb, which must agree with "they"/"he"/"she". */
  conjugate?: boolean;
  base: number;
}

const T = (s: string) => (): string => s;
const NOT = "(?:do not|don't|did not|didn't|does not)";

/** Rules in priority order: the first that matches a clause wins. */
const RULES: Rule[] = [
  { kind: 'value', pattern: /^i(?: would|'d| will|'ll) never (\w+)\s+(.+)/, statement: (v) => `Would never ${v}`, stance: 'against', negated: true, base: 0.85 },
  { kind: 'value', pattern: new RegExp(`^i ${NOT} (believe in|care about|value)\\s+(.+)`), statement: (v) => `Does not ${v}`, stance: 'against', negated: true, base: 0.8 },
  { kind: 'value', pattern: /^i (?:really |deeply |truly |strongly |firmly )?(care (?:deeply )?about|value|believe in|stand for|respect)\s+(.+)/, statement: (v) => ({ value: 'Values', 'believe in': 'Believes in', 'stand for': 'Stands for', respect: 'Respects' })[v] ?? 'Cares about', stance: 'for', base: 0.8 },
  { kind: 'belief', pattern: new RegExp(`^i ${NOT} (think|believe)(?: that)?\\s+(.+)`), statement: (v) => `Does not ${v} that`, negated: true, base: 0.8 },
  { kind: 'belief', pattern: /^i (?:really |truly |genuinely |honestly |strongly |do |firmly )?(think|believe|am convinced|'m convinced|suspect|doubt|feel like|feel that)(?: that)?\s+(.+)/, statement: (v) => ({ think: 'Thinks that', believe: 'Believes that', 'am convinced': 'Is convinced that', "'m convinced": 'Is convinced that', suspect: 'Suspects that', doubt: 'Doubts that', 'feel like': 'Feels that', 'feel that': 'Feels that' })[v] ?? 'Thinks that', base: 0.8 },
  { kind: 'value', pattern: /^(?:it's|it is) (?:really |so |very |extremely |incredibly )?(important|essential|critical|crucial|vital)(?: to me)? (?:that |to )(.+)/, statement: (v) => `Thinks it is ${v} that`, stance: 'for', base: 0.75 },
  { kind: 'preference', pattern: new RegExp(`^i ${NOT} (?:really )?(like|love|enjoy|want)\\s+(.+)`), statement: (v) => `Does not ${v}`, stance: 'against', negated: true, base: 0.8 },
  { kind: 'preference', pattern: /^i (?:really |absolutely |just |truly )?(hate|dislike|can't stand|cannot stand|despise)\s+(.+)/, statement: (v) => ({ hate: 'Hates', dislike: 'Dislikes', despise: 'Despises' })[v] ?? 'Cannot stand', stance: 'against', base: 0.8 },
  { kind: 'preference', pattern: /^i (?:really |absolutely |just |truly |do )?(love|like|enjoy|prefer|adore)\s+(?!to think)(.+)/, statement: (v) => ({ love: 'Loves', like: 'Likes', enjoy: 'Enjoys', prefer: 'Prefers', adore: 'Adores' })[v] ?? 'Likes', stance: 'for', base: 0.8 },
  { kind: 'preference', pattern: /^my (favou?rite \w+)(?: is| was|'s)\s+(.+)/, statement: (v) => `Their ${v} is`, stance: 'for', base: 0.8 },
  { kind: 'goal', pattern: /^i(?:'m| am) (not going to|not gonna)\s+(.+)/, statement: T('Is not going to'), stance: 'against', negated: true, base: 0.75 },
  { kind: 'goal', pattern: /^i (won't|will not)\s+(.+)/, statement: T('Will not'), stance: 'against', negated: true, base: 0.75 },
  { kind: 'goal', pattern: /^i (?:really )?(want to|wanna|hope to|plan to|intend to|aim to|'d like to|would like to|'d love to|would love to|am determined to|'m determined to)\s+(.+)/, statement: (v) => ({ 'hope to': 'Hopes to', 'plan to': 'Plans to', 'intend to': 'Intends to', 'aim to': 'Aims to', "'d love to": 'Would love to', 'would love to': 'Would love to', 'am determined to': 'Is determined to', "'m determined to": 'Is determined to' })[v] ?? 'Wants to', stance: 'for', base: 0.8 },
  { kind: 'goal', pattern: /^i (should|need to|have to|must|ought to)\s+(.+)/, statement: (v) => ({ should: 'Thinks they should', 'need to': 'Needs to', 'have to': 'Has to', must: 'Must', 'ought to': 'Thinks they ought to' })[v] ?? v, stance: 'for', base: 0.7 },
  { kind: 'goal', pattern: /^i(?:'m| am) (going to|gonna)\s+(.+)/, statement: T('Is going to'), stance: 'for', base: 0.7 },
  { kind: 'goal', pattern: /^my (goal|plan|mission|dream|hope)(?: is| has been)\s+(.+)/, statement: (v) => `Their ${v} is`, stance: 'for', base: 0.8 },
  { kind: 'goal', pattern: /^we(?:'re| are) (going to|gonna)\s+(.+)/, statement: T('Says we are going to'), stance: 'for', base: 0.6 },
  { kind: 'habit', pattern: /^i (always|usually|often|normally|typically|generally|tend to|try to|make a point of|rarely|never)\s+(.+)/, statement: (v) => ({ always: 'Always', usually: 'Usually', often: 'Often', normally: 'Normally', typically: 'Typically', generally: 'Generally', 'tend to': 'Tends to', 'try to': 'Tries to', 'make a point of': 'Makes a point of', rarely: 'Rarely', never: 'Never' })[v] ?? v, conjugate: true, base: 0.7 },
  { kind: 'habit', pattern: /^(every (?:day|morning|night|week|evening)),? i\s+(.+)/, statement: (v) => `${v[0]!.toUpperCase()}${v.slice(1)}`, conjugate: true, base: 0.7 },
  { kind: 'experience', pattern: /^i (grew up|remember|used to|spent|met|lived|worked|learned|started|founded|built|wrote|studied|went|was|had|saw)\s+(.+)/, statement: (v) => ({ 'grew up': 'Grew up', remember: 'Remembers', 'used to': 'Used to', spent: 'Spent', met: 'Met', lived: 'Lived', worked: 'Worked', learned: 'Learned', started: 'Started', founded: 'Founded', built: 'Built', wrote: 'Wrote', studied: 'Studied', went: 'Went', was: 'Was', had: 'Had', saw: 'Saw' })[v] ?? v, base: 0.65 },
  { kind: 'experience', pattern: /^i(?:'ve| have) (been|had|seen|done|spent|met|lived|worked|learned|built|known|watched)\s+(.+)/, statement: (v) => `Has ${v}`, base: 0.65 },
  { kind: 'fact', pattern: /^i(?:'m| am) (a|an|the|from|married|the father|the mother)\s+(.+)/, statement: (v) => (v === 'from' ? 'Is from' : v === 'married' ? 'Is married' : `Is ${v}`), base: 0.75 },
  { kind: 'fact', pattern: /^my (wife|husband|son|daughter|kids|children|family|father|mother|dad|mom|brother|sister|name|job|background|parents|grandfather|grandmother)(?: is| are| was| were|'s)\s+(.+)/, statement: (v) => `Their ${v} ${['kids', 'children', 'parents'].includes(v) ? 'are' : 'is'}`, base: 0.75 },
  { kind: 'fact', pattern: /^i (live|work)( in| at| for| on)\s+(.+)/, statement: (v) => `${v === 'live' ? 'Lives' : 'Works'}`, base: 0.75 },
];

/** Where a clause may begin: sentence start, after punctuation, or after a conjunction / discourse marker. */
const CLAUSE_START =
  /(?:^|[,;:\u2014]\s*|\s-\s|\b(?:and|but|so|because|now|look|yes|no|honestly|frankly|and so|i mean|you know|well|actually|and then|though|maybe|perhaps|probably)\s+)(?=(?:i|i'm|i've|i'd|i'll|my|we're|we|it's|it|every)\b)/g;
const HEDGE = /\b(maybe|perhaps|probably|possibly|i guess|i suppose|might|sort of|kind of|not sure|not certain|could be wrong|presumably|apparently|seems)\b/;
const CONDITIONAL_BEFORE = /\b(if|unless|whether|when you|as if|what if)\s+$/;
/** "I want to thank…", "I'm going to make a point…": talk about the conversation itself, not a goal. */
const SPEECH_ACT = /^(thank|say|talk|mention|ask|add|clarify|clear up|make (?:a|an|one|two|this|that|my) (?:\w+ )?point|point out|go back|come back|respond|answer|be clear|be brief|repeat|read|quote|tell you|remind)\b/;
const MIN_WORDS = 5;
const MAX_WORDS = 60;
const MAX_REST_WORDS = 28;

/** Swap first-person words in the restated clause for third-person ones. */
function thirdPerson(rest: string): string {
  return rest
    .replace(/\bi['\u2019]m\b/gi, "they're")
    .replace(/\bi am\b/gi, 'they are')
    .replace(/\bi['\u2019]ve\b/gi, "they've")
    .replace(/\bi['\u2019]d\b/gi, "they'd")
    .replace(/\bi['\u2019]ll\b/gi, "they'll")
    .replace(/\bmyself\b/gi, 'themselves')
    .replace(/\bmy\b/gi, 'their')
    .replace(/\bmine\b/gi, 'theirs')
    .replace(/\bme\b/gi, 'them')
    .replace(/\bI\b/g, 'they');
}

function tidyRest(rest: string): string {
  let r = rest.replace(/\s+/g, ' ').trim();
  const words = r.split(' ');
  if (words.length > MAX_REST_WORDS) r = `${words.slice(0, MAX_REST_WORDS).join(' ')}…`;
  return r.replace(/[\s,;:.!\-–—]+$/, '');
}

function clauseValence(text: string): number {
  let s = 0;
  const words = text.match(/[a-z']+/g) ?? [];
  for (let i = 0; i < words.length; i++) {
    const v = VALENCE[words[i]!];
    if (v === undefined) continue;
    const negated = i > 0 && /^(not|no|never|don't|didn't|isn't|wasn't|can't|won't)$/.test(words[i - 1]!);
    s += negated ? -v : v;
  }
  return s;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

function findingsOfSentence(sentence: string, turn: PreparedTurn): FindingResult | null {
  const trimmed = sentence.trim();
  if (trimmed.endsWith('?')) return null;
  const wordCount = trimmed.split(/\s+/).length;
  if (wordCount < MIN_WORDS || wordCount > MAX_WORDS) return null;
  const lower = trimmed.toLowerCase().replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, '"');
  // An unbalanced quotation mark: the sentence is part of a quotation, someone else's words.
  if ((lower.match(/"/g)?.length ?? 0) % 2 === 1) return null;
  for (const m of lower.matchAll(CLAUSE_START)) {
    const at = m.index + m[0].length;
    const before = lower.slice(0, at);
    if (CONDITIONAL_BEFORE.test(before)) continue;
    // Inside a quotation (an odd number of quote marks before): someone else's words.
    if ((before.match(/"/g)?.length ?? 0) % 2 === 1) continue;
    const clause = lower.slice(at);
    for (const rule of RULES) {
      const r = rule.pattern.exec(clause);
      if (!r) continue;
      const verb = r[1]!;
      const restRaw = r[r.length - 1]!;
      // The restated clause keeps the speaker's own capitalisation (same offsets as `lower`).
      const restStart = at + r.index + r[0].length - restRaw.length;
      const original = trimmed.slice(restStart, restStart + restRaw.length);
      // "tend to"/"try to"/"make a point of" already carry the agreement; the verb after them stays bare.
      const agrees = rule.conjugate && !/ (to|of)$/.test(verb);
      const rest = tidyRest(thirdPerson(agrees ? conjugateThirdPerson(original) : original));
      if (rest.split(' ').length < 3) continue;
      if ((rule.kind === 'goal' || rule.kind === 'preference') && SPEECH_ACT.test(restRaw)) continue;
      const hedged = HEDGE.test(before) || HEDGE.test(restRaw.split(/\s+/).slice(0, 8).join(' '));
      const negated = rule.negated === true;
      let polarity: FindingResult['polarity'];
      if (rule.stance) polarity = rule.stance === 'for' ? 'positive' : 'negative';
      else if (negated || verb === 'never' || verb === 'rarely' || verb === 'doubt') polarity = 'negative';
      else {
        const v = clauseValence(restRaw);
        polarity = v > 0 ? 'positive' : v < 0 ? 'negative' : 'neutral';
      }
      let confidence = rule.base;
      if (hedged) confidence *= 0.6;
      if (restRaw.split(/\s+/).length > MAX_REST_WORDS) confidence *= 0.9;
      const lead = hedged && /\b(maybe|perhaps|probably)\s*,?\s*$/.test(before) ? 'Maybe: ' : '';
      return {
        kind: rule.kind,
        statement: `${lead}${rule.statement(verb)} ${rest}`.replace(/\s+/g, ' ').trim(),
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

export function extractFindings(turns: PreparedTurn[], mindWords: number): FindingResult[] {
  const all: { f: FindingResult; order: number }[] = [];
  const seen = new Set<string>();
  let order = 0;
  for (const turn of turns) {
    for (const s of turn.tokens.sentences) {
      const f = findingsOfSentence(s.text, turn);
      order++;
      if (!f) continue;
      const key = f.statement.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      all.push({ f, order });
    }
  }
  // Keep the most confident findings, no kind taking more than a third of the budget, so the
  // result covers beliefs, goals, experiences… rather than fifty "Thinks that".
  const budget = findingBudget(mindWords);
  const perKind = Math.max(2, Math.ceil(budget / 3));
  const byKind = new Map<FindingKind, number>();
  const chosen = all
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
