/**
 * Greetings and "who are you?": a short reply in the person's voice, from how they describe
 * themselves in their own words ("I'm an engineer…", "I've been building product for almost 30
 * years", "my company…"), opened, for a greeting, with their own way of greeting when the
 * transcripts have one ("Great to be here."). With no self-description in memory, they say
 * what they mostly talk about (the persona's top topics).
 */
import type { MemoryTurn, PersonaCard } from '../types.ts';
import { usableSpan, type AlreadySaid, type Addressees, type UsedSentence } from './compose.ts';
import type { SocialIntent } from '../../lib/language/understand.ts';
import { contentStems, isQuestion, words } from '../../lib/language/text.ts';
import { sentencesOf } from './turn-index.ts';

/** How people describe themselves, with how strongly each says "this is who I am". */
const SELF_CUES: [RegExp, number][] = [
  [/\bmy name is\b/i, 3],
  [/\bI(?:'m| am) (?:a|an)\s+(?!lot\b|little\b|bit\b|big believer\b|huge\b|firm\b)\w+/i, 2],
  [/\bI(?:'m| am) the\s+(?!one\b|only\b|first\b|last\b|same\b|kind\b|type\b)\w+/i, 2],
  [/\bas (?:president|governor|senator|ceo|founder|mayor|secretary|chairman|head)\b/i, 1],
  [/\bI(?:'ve| have) (?:been|spent)\b[^.?!]*\b(?:years?|decades?|career|life)\b/i, 2],
  [/\b(?:my|our) (?:job|work|career|company|companies|business|profession|role|background|lab|research|podcast|show|team|book)\b/i, 1.5],
  // ("I wrote down" a note is not a career.)
  [/\bI (?:work|worked|run|ran|started|founded|co-founded|lead|led|build|built|teach|taught|study|studied|research|write|wrote|grew up|was born|serve|served|created|invented|trained)\b(?!\s+(?:\w+\s+)?down\b)/i, 1.5],
  [/\bas (?:a|an) (?:engineer|scientist|founder|doctor|teacher|businessman|businesswoman|researcher|writer|investor|lawyer|governor|senator|president|father|mother|parent|kid)\b/i, 1],
];
/** Their own ways of greeting, when a transcript opens with one. */
const GREETING_CUES = /\b((great|good|nice|glad|happy|wonderful|fun|a pleasure|an honor|an honour|thrilled|excited) to (be here|be back|see you|meet you|be with you|do this|be on)|thanks? (you )?(so much )?for having me|thank you for having me)\b/i;

const ANAPHORIC_START = /^["'\u201C]?(and|but|so|or|because|which|that|this|it|these|those|they|he|she)\b/i;
/** Self-descriptions are best short enough to introduce with, long enough to say something. */
const MIN_WORDS = 6;
const MAX_WORDS = 45;
/** An introduction is brief: about this many words of self-description at most. */
const INTRODUCTION_WORDS = 60;
/** Turns this early in a conversation are where people are introduced. */
const OPENING_SEQ = 20;

interface Scored {
  used: UsedSentence;
  score: number;
  words: number;
}

/** Sentences of memory in which the person says who they are, best first. */
function selfDescriptions(memory: readonly MemoryTurn[], addressees: Addressees, saidBefore: AlreadySaid): Scored[] {
  const out: Scored[] = [];
  for (const turn of memory) {
    sentencesOf(turn).forEach((raw, index) => {
      // Questions, wishes and sentences pointing back at something said before introduce no one.
      if (isQuestion(raw.text) || /\b(if I were|would I|I wish I)\b/i.test(raw.text) || ANAPHORIC_START.test(raw.text)) return;
      let cue = 0;
      for (const [re, w] of SELF_CUES) if (re.test(raw.text)) cue += w;
      if (cue === 0) return;
      const span = usableSpan(raw, addressees);
      if (!span) return;
      const n = words(span.text).length;
      if (n < MIN_WORDS || n > MAX_WORDS) return;
      if (saidBefore.said(turn, raw, new Set(contentStems(span.text)))) return;
      const early = turn.seq < OPENING_SEQ ? 0.5 : 0;
      out.push({ used: { turn, span, index, relevance: cue }, score: cue + early, words: n });
    });
  }
  // Ties: earlier in the conversation, then by id, so the result never depends on input order.
  return out.sort((a, b) => b.score - a.score || a.used.turn.seq - b.used.turn.seq || a.used.index - b.used.index || (a.used.turn.turnId < b.used.turn.turnId ? -1 : 1));
}

/** Their own greeting ("Great to be here."), if a transcript has one that stands on its own. */
function ownGreeting(memory: readonly MemoryTurn[], addressees: Addressees): UsedSentence | null {
  let best: { u: UsedSentence; n: number } | null = null;
  for (const turn of memory) {
    sentencesOf(turn).forEach((raw, index) => {
      if (!GREETING_CUES.test(raw.text)) return;
      const span = usableSpan(raw, addressees);
      const n = span ? words(span.text).length : 0;
      if (!span || n > 15) return;
      if (!best || turn.seq < best.u.turn.seq || (turn.seq === best.u.turn.seq && n < best.n)) best = { u: { turn, span, index, relevance: 1 }, n };
    });
  }
  return best ? (best as { u: UsedSentence }).u : null;
}

export interface Introduction {
  text: string;
  /** The person's own sentences in it, in order (a canned "Hello." is not one). */
  used: UsedSentence[];
}

/** The reply to a greeting or an introduction request. */
export function introduce(intent: SocialIntent, memory: readonly MemoryTurn[], persona: PersonaCard, addressees: Addressees, saidBefore: AlreadySaid, informal: boolean): Introduction {
  const selves = selfDescriptions(memory, addressees, saidBefore);
  const chosen: UsedSentence[] = [];
  let total = 0;
  const limit = intent === 'greeting' ? 1 : 3;
  for (const s of selves) {
    if (chosen.length >= limit || total + s.words > INTRODUCTION_WORDS) break;
    if (chosen.some((c) => c.turn.turnId === s.used.turn.turnId && c.index === s.used.index)) continue;
    chosen.push(s.used);
    total += s.words;
  }
  chosen.sort((a, b) => a.turn.seq - b.turn.seq || a.index - b.index);
  const parts: string[] = [];
  const used: UsedSentence[] = [];
  if (intent === 'greeting') {
    const greeting = ownGreeting(memory, addressees);
    if (greeting) used.push(greeting);
    else parts.push(informal ? 'Hi.' : 'Hello.');
  }
  used.push(...chosen.filter((c) => !used.some((u) => u.turn.turnId === c.turn.turnId && u.index === c.index)));
  parts.push(...used.map((u) => u.span.text));
  if (chosen.length === 0) {
    const topics = persona.topics.map((t) => t.label.trim()).filter(Boolean).slice(0, 2);
    if (topics.length > 0) parts.push(`${informal ? "What I've talked about most is" : 'What I have spoken about most is'} ${topics.join(' and ')}.`);
    // Nothing to say about themselves beyond their name: the name, never an empty reply.
    else if (intent === 'introduction' && persona.name.trim()) parts.push(`${informal ? "I'm" : 'I am'} ${persona.name.trim()}.`);
  }
  return { text: parts.join(' '), used };
}
