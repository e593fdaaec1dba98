/**
 * thinking / feeling / saying / acting, derived from what the answer rests on: the sentences
 * used, the findings and style of the persona. Each line says where it comes from, so a
 * reader can tell an observation from a guess; nothing is canned beyond the sentence frames.
 */
import type { PersonaCard, SimulationAnalysis } from '../types.ts';
import type { UsedSentence } from './compose.ts';
import type { QueryTerm } from './query.ts';
import { describeFeeling, feelingOf } from './sentiment.ts';
import { contentStems } from './text.ts';

/** Sentences stating a view: what the person thinks, in their words. */
const STANCE = /\b(i think|i believe|i'm convinced|i am convinced|my view|in my view|the (real )?(question|point|key|problem|issue) is|what matters|the truth is|i feel)\b/i;
/** Sentences stating what the person does or will do. */
const ACTION = /\b(i will|i'll|i'm going to|i am going to|we will|we'll|we're going to|we are going to|i always|i try to|i tend to|i usually|i make sure|i do|i did|i've done|i have done|my plan|i would|i'd)\b/i;
/** Finding kinds that describe behaviour rather than belief. */
const BEHAVIOUR_KIND = /behav|habit|action|practice|routine|tend|do/i;

/** Shorten to about `max` words at a word boundary, marking the cut. */
export function shorten(text: string, max = 30): string {
  const parts = text.trim().split(/\s+/);
  return parts.length <= max ? text.trim() : `${parts.slice(0, max).join(' ')} …`;
}

/** Persona findings sharing vocabulary with the evidence, best overlap first. */
function relatedFindings(persona: PersonaCard, stems: ReadonlySet<string>): PersonaCard['findings'] {
  return persona.findings
    .map((f, i) => {
      const shared = new Set(contentStems(`${f.statement} ${f.quote}`).filter((s) => stems.has(s))).size;
      return { f, i, shared };
    })
    .filter((x) => x.shared >= 2)
    .sort((a, b) => b.shared - a.shared || a.i - b.i)
    .map((x) => x.f);
}

/** How the person's style shows in how they answer, when the persona measured it. */
function styleHabits(persona: PersonaCard): string[] {
  const habits: string[] = [];
  const wpt = persona.style.wordsPerTurn;
  if (typeof wpt === 'number' && wpt > 0) {
    habits.push(wpt >= 120 ? `answers at length (about ${Math.round(wpt)} words a turn)` : wpt <= 30 ? `keeps turns short (about ${Math.round(wpt)} words)` : `answers in about ${Math.round(wpt)} words a turn`);
  }
  const qr = persona.style.questionRate;
  if (typeof qr === 'number' && qr >= 0.3 && qr <= 1) habits.push('often turns the question back with questions of their own');
  return habits;
}

export interface AnalysisInput {
  used: readonly UsedSentence[];
  query: readonly QueryTerm[];
  persona: PersonaCard;
  answer: string;
}

/** The four-part analysis for an answer built from `used` sentences. */
export function analyse({ used, query, persona, answer }: AnalysisInput): SimulationAnalysis {
  const evidenceText = used.map((u) => u.span.text).join(' ');
  const evidenceStems = new Set(contentStems(evidenceText));
  const matchedWords = query.filter((q) => evidenceStems.has(q.stem)).sort((a, b) => b.weight - a.weight).map((q) => q.word);
  const themes = [...new Set(matchedWords)].slice(0, 4);
  const findings = relatedFindings(persona, evidenceStems);

  const stance = used.find((u) => STANCE.test(u.span.text)) ?? used[0];
  const thinkingParts = [`${themes.length ? `On ${themes.join(', ')}: ` : ''}"${shorten(stance?.span.text ?? '')}"`];
  const belief = findings.find((f) => !BEHAVIOUR_KIND.test(f.kind));
  if (belief) thinkingParts.push(`Related finding: ${shorten(belief.statement, 25)}`);

  const turns = new Set(used.map((u) => u.turn.turnId)).size;
  const saying = `Answers from ${turns} earlier turn${turns === 1 ? '' : 's'} in their own words, opening with "${shorten(used[0]?.span.text ?? answer, 20)}"`;

  const actionSentence = used.find((u) => ACTION.test(u.span.text));
  const behaviour = findings.find((f) => BEHAVIOUR_KIND.test(f.kind));
  const habits = styleHabits(persona);
  const actingParts: string[] = [];
  if (actionSentence) actingParts.push(`States what they do or would do: "${shorten(actionSentence.span.text, 25)}"`);
  if (behaviour) actingParts.push(`Per findings: ${shorten(behaviour.statement, 25)}`);
  if (habits.length) actingParts.push(`In conversation, ${habits.join('; ')}`);
  if (actingParts.length === 0) actingParts.push('Responds by restating their earlier position; the evidence names no action they would take');

  return {
    thinking: `${thinkingParts.join('. ')}.`,
    feeling: describeFeeling(feelingOf(evidenceText)),
    saying: `${saying}.`,
    acting: `${actingParts.join('. ')}.`,
  };
}

/** The analysis when memory holds nothing relevant to the message. */
export function analyseNothingRelevant(query: readonly QueryTerm[], persona: PersonaCard, answer: string): SimulationAnalysis {
  const asked = query.filter((q) => q.fromMessage).map((q) => q.word).slice(0, 4);
  const habits = styleHabits(persona);
  return {
    thinking: `Has said nothing in the available transcripts about ${asked.length ? asked.join(', ') : 'this'}; any opinion would be invented.`,
    feeling: 'Unknown: there is no evidence to read a feeling from.',
    saying: `Declines to guess: "${shorten(answer, 20)}"`,
    acting: habits.length ? `Would likely redirect to what they know; in conversation, ${habits.join('; ')}.` : 'Would likely redirect to what they have talked about.',
  };
}
