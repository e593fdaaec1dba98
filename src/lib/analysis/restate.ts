/**
 * Restating a first-person clause in the third person, faithfully: the statement of a finding
 * says what the quote says, about "they" instead of "I", and nothing else.
 *
 * - Pronouns and agreement: I → they ("I was" → "they were", "I'm" → "they're", "I wasn't" →
 *   "they weren't"), my → their, me → them, mine → theirs, myself → themselves. A capital "I" is a
 *   pronoun only before a word or a comma, and not after "War", "Phase", "Elizabeth"… ("World War I
 *   as a young man" stays).
 * - Parentheticals are dropped, not restated: "can be applied I think to any arena" → "can be
 *   applied to any arena" (restated, the aside became "they think" mid-clause); also "I guess",
 *   "I believe", "I suppose", "I mean", "I'd say", "you know", ", like,". Their presence is
 *   reported (`hedged` for the hedging ones), so the finding's confidence can say so.
 * - Openers that are not part of the claim: "yes,", "no,", "look,", "well,", "so", "I mean".
 * - A short frame spliced to the claim with a comma is dropped when what follows is a clause of
 *   its own: "it's helpful, the tools of physics are very powerful" → "the tools of physics are
 *   very powerful" (joined, the two read as one garbled clause).
 * - With `personal` (experiences and facts: the person's own story), the group they speak
 *   for is theirs too: we → they, our → their, us → them ("our CFO" → "their CFO"); a belief
 *   about "we" (everyone) keeps "we".
 */
import { tokenize, type TurnTokens } from './nlp.ts';

/** Base verbs that take -s/-es in the third person, with the irregular ones listed. */
const IRREGULAR_3RD: Record<string, string> = { do: 'does', go: 'goes', have: 'has', be: 'is', am: 'is', say: 'says' };
const NOT_A_BASE_VERB =
  /^(was|were|been|had|did|got|is|are|has|does|the|a|an|to|not|just|really|also|very|so|and|but|in|on|at|for|with|when|if|that|this|it|they|we|you|he|she|can|could|will|would|shall|should|may|might|must|thought|felt|knew|went|said|made|took|came|saw|told|found|gave|kept|left|lost|meant|met|paid|put|ran|sat|stood|understood|wrote|won|wore|brought|bought|caught|taught|fought|heard|held|built|sent|spent|sold|slept|spoke|began|became|\w+ed|\w+ing)$/;

/** "do the same routine" → "does the same routine": agree a clause's first verb with a third-person subject. */
export function conjugateThirdPerson(clause: string): string {
  const m = /^([a-z]+)\b(.*)$/s.exec(clause);
  if (!m) return clause;
  const w = m[1]!;
  // A modal or a contraction ("won't", "can't") already agrees.
  if (NOT_A_BASE_VERB.test(w) || /^['\u2019]/.test(m[2]!)) return clause;
  let v = IRREGULAR_3RD[w];
  if (!v) {
    if (/(s|sh|ch|x|z|o)$/.test(w)) v = `${w}es`;
    else if (/[^aeiou]y$/.test(w)) v = `${w.slice(0, -1)}ies`;
    else v = `${w}s`;
  }
  return v + m[2]!;
}

/**
 * First-person words of a restated clause in the third person, with the verb agreeing: "I was"
 * → "they were", "I'm" → "they're", "my" → "their". With `personal`, "our"/"us" too.
 */
export function thirdPerson(rest: string, personal = false): string {
  let out = rest
    .replace(/\bI['\u2019]m\b/gi, "they're")
    .replace(/\bI am\b/g, 'they are')
    .replace(/\bI was(n['\u2019]t)?\b/g, (_, n: string | undefined) => (n ? "they weren't" : 'they were'))
    .replace(/\bI['\u2019]ve\b/gi, "they've")
    .replace(/\bI['\u2019]d\b/gi, "they'd")
    .replace(/\bI['\u2019]ll\b/gi, "they'll")
    .replace(/\bmyself\b/gi, 'themselves')
    .replace(/\bmy\b/gi, 'their')
    .replace(/\bMy\b/g, 'Their')
    .replace(/\bmine\b/gi, 'theirs')
    .replace(/\bme\b/gi, 'them')
    // Not a roman numeral: "World War I as a young man", "Phase I trials", "Elizabeth I".
    .replace(/(?<!\b(?:War|Phase|Type|Part|Chapter|Title|Class|Stage|Act|Grade|Level|Henry|Louis|George|Elizabeth|Charles|James|William|Edward|Richard|Mark)\s)\bI\b(?=\s+[a-z]|\s*,)/g, 'they');
  if (personal)
    out = out
      .replace(/\bwe(?=['\u2019](?:re|ve|d|ll)\b)/gi, 'they')
      .replace(/\bwe\b/g, 'they')
      .replace(/\bour\b/g, 'their')
      .replace(/\bours\b/g, 'theirs')
      .replace(/\bus\b/g, 'them')
      .replace(/\bourselves\b/g, 'themselves');
  return out;
}

/** Epistemic asides of the speaker and fillers inside a clause: not part of the claim. */
const HEDGING_ASIDE = /(?:^|,?\s+)(?:I (?:think|guess|believe|suppose|reckon|imagine)|I['\u2019]d (?:say|guess|imagine)|I would (?:say|guess))(?:\s*,|(?=\s))/gi;
const FILLER_ASIDE = /(?:,\s*(?:you know|I mean|like|basically|honestly|frankly)\s*,|\s+(?:you know|I mean)(?=\s*,)|,?\s+you know(?=\s))/gi;
/** What opens a complement but is not part of the claim ("I think, yes, fate loves irony"). */
const OPENERS = /^(?:(?:so|well|yeah|like|um|uh|basically|actually|just|you know|i mean|of course|again)\b[,\s]*|(?:yes|no|look|oh|okay|ok|right|sure)\s*,\s*)+/i;
/** A short frame that announces the claim rather than making it: "it's helpful, …", "that's true, …". */
const FRAME = /^(?:it|that|this)(?:['\u2019]s| is| was)(?: (?:very|really|so|quite|pretty|also))? \w+,\s+/i;

/** What starts a new clause after an aside: a subject pronoun with its verb, or a discourse marker. */
const NEW_CLAUSE = /^\s*(?:(?:i|you|he|she|we|they|it|that|there)(?:['\u2019](?:s|re|m|ve|d|ll)\b|\s+(?:is|are|was|were|have|has|had|do|does|did|can|could|will|would|know|think|get|got|go|went)\b)|(?:well|so|and|but|or|yeah|because)\b)/i;

export interface Restated {
  text: string;
  /** A hedging aside ("I guess", "I suppose", "I'd say") was dropped from inside the clause. */
  hedged: boolean;
}

/** Is `text` a clause: a subject (noun, pronoun, name, number) followed by a verb, not ending on an auxiliary? */
export function isClause(tk: TurnTokens): boolean {
  const words = tk.pos.map((p, i) => (tk.type[i] === 'word' || tk.type[i] === 'number' ? i : -1)).filter((i) => i >= 0);
  if (words.length === 0 || tk.pos[words[words.length - 1]!] === 'AUX') return false;
  let subject = false;
  for (const i of words.slice(0, 14)) {
    const pos = tk.pos[i];
    if (!subject && (pos === 'NOUN' || pos === 'PROPN' || pos === 'PRON' || pos === 'NUM')) subject = true;
    else if (subject && (pos === 'VERB' || pos === 'AUX')) return true;
  }
  return false;
}

/**
 * The complement of a first-person clause made ready to restate: openers, asides and a spliced
 * frame removed (see the module comment). Still in the first person: `thirdPerson` comes after.
 */
export function cleanComplement(rest: string): Restated {
  let hedged = false;
  let r = rest.replace(/\s+/g, ' ').trim().replace(OPENERS, '');
  // "applied I think to" → "applied to"; "the economy, I think, is" → "the economy is"; "the
  // economy, I think the jobs…" → "the economy, the jobs…" (the comma before a new clause stays).
  // Between two commas, the comma stays when a new clause or a discourse marker follows ("nine,
  // I think, well, I know…"; "industries, I think, you're a chemist…").
  const drop = (m: string, offset: number, all: string): string => {
    const t = m.trim();
    if (!t.endsWith(',')) return t.startsWith(',') ? ',' : '';
    const next = all.slice(offset + m.length);
    return t.startsWith(',') && NEW_CLAUSE.test(next) ? ',' : '';
  };
  r = r.replace(HEDGING_ASIDE, (m: string, offset: number, all: string) => {
    if (/guess|suppose|reckon|imagine|say/i.test(m)) hedged = true;
    return drop(m, offset, all);
  });
  r = r.replace(FILLER_ASIDE, drop);
  // Tidy what the removals left: doubled commas, a comma before the end or before a comma.
  r = r.replace(/\s*,\s*,/g, ',').replace(/\s+,/g, ',').replace(/^,\s*/, '').replace(/\s{2,}/g, ' ').trim();
  r = r.replace(OPENERS, '');
  const frame = FRAME.exec(r);
  if (frame) {
    const after = r.slice(frame[0].length);
    if (after.split(' ').length >= 4 && isClause(tokenize(after))) r = after;
  }
  return { text: r, hedged };
}

/** Third-person pronouns of someone else (he, she) and of a group (they): a restated "they" among them is ambiguous. */
const OTHER_PERSON = /\b(?:he|she|him|his|her|hers|himself|herself)\b/i;
const OTHER_THEY = /\b(?:they|them|their|theirs|themselves)\b/i;

/**
 * Whether restating `firstPerson` (a complement still in the first person) as `restated` made its
 * pronouns inconsistent: the person became "they" beside another "he", "she" or "they", so a
 * reader cannot tell who is who ("I think he's one of the smartest people I've ever met" →
 * "Thinks that he's one of the smartest people they've ever met"). Such a statement is not shown.
 */
export function pronounsClash(firstPerson: string, restated: string): boolean {
  if (firstPerson === restated) return false;
  return OTHER_PERSON.test(firstPerson) || OTHER_THEY.test(firstPerson);
}
