/**
 * Prompt building for the LLM engine. Layout:
 *  - system: our fixed instructions, the fence rule, and the persona's measures (trait scores and
 *    style numbers, under our own labels): nothing derived from transcript text;
 *  - the conversation so far as real user/assistant messages;
 *  - a final user message: the persona notes (topics and findings, which quote the transcripts)
 *    and the retrieved excerpts, each fenced, followed by the scenario message.
 * Everything derived from transcripts goes in the user turn rather than the system prompt, so
 * untrusted text never sits in the message the model treats as most authoritative.
 */
import type { ModelMessage } from 'ai';
import type { EngineInput, MemoryTurn, PersonaCard } from '../types.ts';
import { FENCE_RULE, fence, inline, neutralise, truncate } from './fence.ts';

/** How many retrieved turns the model sees (in the order the service ranked them). */
export const MAX_EXCERPTS = 12;
const MAX_EXCERPT_CHARS = 1500;
const MAX_CONTEXT_CHARS = 400;
const MAX_HISTORY_MESSAGES = 20;
const MAX_HISTORY_CHARS = 4000;
const MAX_FINDINGS = 12;
const MAX_TOPICS = 10;

export const EXCERPTS_LABEL = 'TRANSCRIPT EXCERPTS';
export const PERSONA_LABEL = 'PERSONA NOTES';

export interface BuiltPrompt {
  system: string;
  messages: ModelMessage[];
  /** The excerpts actually shown to the model: the only turns evidence may cite. */
  excerpts: MemoryTurn[];
}

/** Prompt for the answer itself (streamed as plain text). */
export function buildAnswerPrompt(input: EngineInput): BuiltPrompt {
  const name = displayName(input);
  const excerpts = input.memory.slice(0, MAX_EXCERPTS);
  const system = [
    `You are simulating ${name}, a real person, in a conversation. Answer exactly as ${name} would: ` +
      `in the first person, in their own voice, vocabulary and register, as if you were ${name}.`,
    `Ground what you say in what ${name} really said: the transcript excerpts given with each message, and the ` +
      'persona card below. Reuse their views, reasons and phrasing where they fit. Do not invent facts, events, ' +
      'opinions or biography that the excerpts and the card do not support.',
    `If the excerpts do not cover the question, say so in ${name}'s voice (for example that you have not really ` +
      'thought or talked about it) instead of making something up; you may still react the way their personality suggests.',
    'Do not mention excerpts, transcripts, turn ids, the persona card, or that you are a simulation or an AI. ' +
      'Reply with the answer only: no preamble, no headings, no lists unless they would talk in lists.',
    FENCE_RULE,
    personaMeasures(name, input.persona),
  ].join('\n\n');

  return { system, messages: [...historyMessages(input), { role: 'user', content: finalUserMessage(name, input.message, excerpts, input.persona) }], excerpts };
}

/**
 * Prompt for the structured analysis of an answer already given: the same material, the answer
 * as the assistant's turn, and a request for JSON. A separate system prompt keeps the
 * "stay in character, never mention excerpts" rules of the answer out of the way.
 */
export function buildAnalysisPrompt(input: EngineInput, answer: string): BuiltPrompt {
  const name = displayName(input);
  const answerPrompt = buildAnswerPrompt(input);
  const system = [
    `You analyse a simulated answer given as ${name}, a real person, and the transcript excerpts it should rest on.`,
    'Return only a JSON object with these string fields, each one or two sentences, in the third person:',
    `- "thinking": what ${name} is thinking in this situation;`,
    `- "feeling": what ${name} is feeling;`,
    `- "saying": the gist of what ${name} says;`,
    `- "acting": what ${name} would do or how they would behave;`,
    'and "evidence": an array of {"turnId", "quote"} for the excerpts the answer actually rests on, most important ' +
      'first, at most 5. "turnId" is the id shown in the excerpt header; "quote" is the most relevant sentence or ' +
      'passage copied verbatim from that excerpt (without the leading "> " and indentation). Use [] if the answer ' +
      'rests on none of the excerpts.',
    'Base the analysis on the excerpts, the persona card, the persona notes and the answer; do not invent.',
    FENCE_RULE,
    personaMeasures(name, input.persona),
  ].join('\n');
  const messages: ModelMessage[] = [
    ...answerPrompt.messages,
    { role: 'assistant', content: answer },
    { role: 'user', content: 'Now return the JSON analysis of the answer you just gave, as described in the system instructions.' },
  ];
  return { system, messages, excerpts: answerPrompt.excerpts };
}

function displayName(input: EngineInput): string {
  return inline(input.persona.name || input.mindName, 80) || 'the person';
}

function historyMessages(input: EngineInput): ModelMessage[] {
  return input.history
    .slice(-MAX_HISTORY_MESSAGES)
    .filter((m) => m.text.trim() !== '')
    .map((m) => ({ role: m.role, content: truncate(m.text, MAX_HISTORY_CHARS) }));
}

function finalUserMessage(name: string, message: string, excerpts: MemoryTurn[], persona: PersonaCard): string {
  const intro =
    excerpts.length > 0
      ? `Transcript excerpts: things ${name} really said, most relevant first. Each starts with a header ` +
        `[excerpt n · turn <turnId> · <date said>]; "Asked:" is what the other speaker said just before.`
      : `No transcript excerpts matched this message: nothing ${name} said in the transcripts covers it.`;
  const notes = personaNotes(persona);
  const parts = notes.length > 0 ? [`Persona notes: topics ${name} talks about and findings from their transcripts (quoted data).`, fence(PERSONA_LABEL, notes), intro] : [intro];
  if (excerpts.length > 0) parts.push(fence(EXCERPTS_LABEL, excerpts.flatMap((turn, i) => excerptLines(name, turn, i + 1))));
  parts.push(`Message to ${name} (answer it as ${name}):\n${message}`);
  return parts.join('\n\n');
}

export function excerptLines(name: string, turn: MemoryTurn, n: number): string[] {
  const lines = [`[excerpt ${n} · turn ${safeId(turn.turnId)} · ${isoDay(turn.mindsetDate)}]`];
  if (turn.context && turn.context.trim() !== '') {
    lines.push(...indent(`Asked: ${truncate(turn.context.trim(), MAX_CONTEXT_CHARS)}`));
  }
  lines.push(...indent(`${name}: ${truncate(turn.text.trim(), MAX_EXCERPT_CHARS)}`), '');
  return lines;
}

/** Data lines are indented so that a forged "[excerpt …]" header inside a turn cannot pass for a real one. */
function indent(text: string): string[] {
  return neutralise(text)
    .split('\n')
    .map((line) => `    ${line}`);
}

/** Turn ids come from our database, but are still placed in the prompt; keep them to id characters. */
export function safeId(id: string): string {
  return id.replace(/[^\w.:-]/g, '').slice(0, 80);
}

function isoDay(date: Date): string {
  return Number.isNaN(date.getTime()) ? 'date unknown' : date.toISOString().slice(0, 10);
}

/** The persona's measures for the system prompt: numbers under our own labels, no transcript-derived text. */
function personaMeasures(name: string, persona: PersonaCard): string {
  const lines = ['Persona card', `Name: ${name}`];
  const traits = persona.traits.filter((t) => t.score !== null || t.percentile !== null);
  if (traits.length > 0) {
    lines.push('Personality (Big Five and other measured traits):');
    for (const t of traits) lines.push(`- ${inline(t.name, 40)}: ${traitValue(t)}`);
  }
  const style = Object.entries(persona.style).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
  if (style.length > 0) {
    lines.push(`Communication style: ${style.map(([k, v]) => `${safeId(k)} ${formatNumber(v)}`).join('; ')}`);
    const words = persona.style.wordsPerTurn;
    if (typeof words === 'number' && words > 0) {
      lines.push(`Their turns average about ${Math.round(words)} words: keep answers to a similar length.`);
    }
  }
  lines.push('Topics they talk about and findings from their transcripts come with each message, as quoted persona notes.');
  return lines.join('\n');
}

/**
 * Topics and findings: derived from, and quoting, the transcripts, so untrusted. They go in the
 * user message, fenced, never in the system prompt.
 */
export function personaNotes(persona: PersonaCard): string[] {
  const notes: string[] = [];
  for (const topic of persona.topics.slice(0, MAX_TOPICS)) {
    const keywords = topic.keywords.slice(0, 8).map((k) => inline(k, 30)).join(', ');
    notes.push(`Topic: ${inline(topic.label, 80)}${keywords ? ` (${keywords})` : ''}`);
  }
  for (const f of persona.findings.slice(0, MAX_FINDINGS)) {
    notes.push(`Finding (${inline(f.kind, 40)}): ${inline(f.statement, 300)}${f.quote ? ` — "${inline(f.quote, 300)}"` : ''}`);
  }
  return notes;
}

function traitValue(t: PersonaCard['traits'][number]): string {
  const parts: string[] = [];
  if (t.percentile !== null) parts.push(`percentile ${formatNumber(t.percentile)}`);
  if (t.score !== null) parts.push(`score ${formatNumber(t.score)}`);
  if (t.confidence !== null) parts.push(`confidence ${formatNumber(t.confidence)}`);
  return parts.join(', ');
}

function formatNumber(n: number): string {
  return String(Number(n.toPrecision(3)));
}
