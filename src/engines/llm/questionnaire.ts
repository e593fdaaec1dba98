/**
 * A questionnaire answered in character by the configured LLM: the person's own words (excerpts
 * of one snapshot, fenced and laid out as the simulation engine lays them out) and the snapshot's
 * topics and findings go in; the model rates each item of the inventory 1–5 as the person would
 * rate themself, or says it cannot (null). Items go in batches (10 by default, in the published
 * order, so a batch mixes every factor and both key directions), at temperature 0, asking for
 * JSON against a schema; a reply that does not fit the schema is still read leniently
 * (analysis/questionnaire.ts parseAnswers), and a batch with no readable JSON at all is asked once
 * more. Provider failures are thrown as LlmEngineError: the caller decides what to retry.
 *
 * The persona card's trait scores are deliberately left out: given the text model's Big Five,
 * the model would echo them, and the questionnaire would measure nothing of its own.
 */
import { generateText, NoObjectGeneratedError, Output, parsePartialJson } from 'ai';
import { z } from 'zod';
import { itemId, parseAnswers, type Instrument, type ItemAnswer } from '../../lib/analysis/questionnaire.ts';
import type { MemoryTurn, PersonaCard } from '../types.ts';
import type { LlmConfig } from './config.ts';
import { abortedError, timeoutError, toLlmError, type ErrorContext } from './errors.ts';
import { FENCE_RULE, fence, inline } from './fence.ts';
import { EXCERPTS_LABEL, excerptLines, PERSONA_LABEL, personaNotes } from './prompt.ts';
import { createLanguageModel, endpointOf } from './provider.ts';

export const BATCH_SIZE = 10;
const MAX_OUTPUT_TOKENS = 1024;
/** A batch whose reply held no JSON at all is asked again once; more rarely helps at temperature 0. */
const ATTEMPTS = 2;

const answersSchema = z.object({
  answers: z
    .array(
      z.object({
        item: z.string().describe('The statement id, e.g. "Q7"'),
        // No range in the schema: an out-of-range answer is counted as unparseable, not rejected wholesale.
        answer: z.number().int().nullable().describe('1–5 as the person would rate the statement, or null if the material gives no basis at all'),
        excerpt: z.number().int().nullable().describe('The number of the excerpt the answer rests on most, or null'),
      }),
    )
    .describe('One entry per statement, in the order given'),
});

export interface QuestionnaireMaterial {
  /** The person's name as the prompt calls them. */
  name: string;
  /** Their own turns, numbered in this order (excerpt 1 is the first). */
  excerpts: MemoryTurn[];
  /** Topics and findings of the same material (traits and style are ignored, see above). */
  notes: Pick<PersonaCard, 'topics' | 'findings'>;
}

/** Characters of the person's words shown with each batch (≈ 3,000 tokens with the layout). */
export const MATERIAL_CHARS = 12_000;
/** prompt.ts cuts an excerpt at 1,500 characters and its question at 400: what it shows is what counts. */
const SHOWN_TEXT = 1500;
const SHOWN_CONTEXT = 400;

/**
 * The turns to show, within MATERIAL_CHARS: the longest of the person's turns first (the ones
 * that say the most about them), then back in transcript order. Deterministic.
 */
export function selectExcerpts<T extends { text: string; context: string | null; seq: number }>(turns: readonly T[], budget = MATERIAL_CHARS): T[] {
  const cost = (t: T) => Math.min(t.text.length, SHOWN_TEXT) + Math.min(t.context?.length ?? 0, SHOWN_CONTEXT);
  const candidates = turns.filter((t) => /[\p{L}\p{N}]/u.test(t.text)).sort((a, b) => b.text.length - a.text.length || a.seq - b.seq);
  const picked: T[] = [];
  let used = 0;
  for (const t of candidates) {
    if (used + cost(t) > budget) continue;
    picked.push(t);
    used += cost(t);
  }
  return picked.sort((a, b) => a.seq - b.seq);
}

export interface Administered {
  /** One per item of the instrument, in its order. */
  answers: ItemAnswer[];
  /** Model calls made (batches, and repeats of batches with no readable reply). */
  calls: number;
}

export interface AdministerOptions {
  batchSize?: number;
  signal?: AbortSignal;
}

export async function administerQuestionnaire(
  config: LlmConfig,
  modelId: string,
  inst: Instrument,
  material: QuestionnaireMaterial,
  opts: AdministerOptions = {},
): Promise<Administered> {
  const model = createLanguageModel(config, modelId);
  const ctx: ErrorContext = { apiKey: config.apiKey, endpoint: endpointOf(config), model: modelId };
  const size = opts.batchSize ?? BATCH_SIZE;
  const system = systemPrompt(inst, material.name);
  const context = materialMessage(material);
  const answers: ItemAnswer[] = [];
  let calls = 0;
  for (let start = 0; start < inst.items.length; start += size) {
    const batch = inst.items.slice(start, start + size);
    const numbers = batch.map((i) => i.n);
    const content = `${context}\n\nStatements (rate each one as ${inline(material.name, 80)} would rate themself):\n${batch.map((i) => `${itemId(i.n)}: ${i.text}`).join('\n')}`;
    let parsed: ItemAnswer[] = [];
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      calls++;
      const reply = await ask(config, model, system, content, ctx, opts.signal);
      parsed = parseAnswers(reply, numbers, inst.anchors);
      if (!parsed.every((a) => a.status === 'unparseable' && a.raw === 'no JSON in the reply')) break;
    }
    answers.push(...parsed);
  }
  return { answers, calls };
}

/**
 * One model call: the schema-checked object; else what can be read of the reply — JSON that did
 * not fit the schema, JSON cut short (at the token limit) with its complete entries, or the raw
 * text for parseAnswers to search; a response that could not be read at all is an empty reply.
 */
async function ask(config: LlmConfig, model: ReturnType<typeof createLanguageModel>, system: string, content: string, ctx: ErrorContext, signal?: AbortSignal): Promise<unknown> {
  if (signal?.aborted) throw abortedError();
  try {
    const result = await generateText({
      model,
      system,
      messages: [{ role: 'user', content }],
      output: Output.object({ schema: answersSchema, name: 'questionnaire_answers', description: 'Ratings of the statements' }),
      temperature: 0,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      maxRetries: config.maxRetries,
      abortSignal: signal,
      timeout: { totalMs: config.timeoutMs },
    });
    return result.output;
  } catch (error) {
    if (NoObjectGeneratedError.isInstance(error)) {
      const text = error.text ?? '';
      const { value, state } = await parsePartialJson(text);
      return (state === 'successful-parse' || state === 'repaired-parse') && value !== null && typeof value === 'object' ? value : text;
    }
    if (signal?.aborted) throw abortedError();
    const mapped = toLlmError(error, ctx);
    if (mapped.code === 'invalid_response') return '';
    // An abort nobody asked for can only be the timeout.
    throw mapped.code === 'aborted' ? timeoutError(ctx, config.timeoutMs) : mapped;
  }
}

function systemPrompt(inst: Instrument, rawName: string): string {
  const name = inline(rawName, 80) || 'the person';
  const scale = inst.anchors.map((a, i) => `${i + 1} = ${a}`).join(', ');
  return [
    `You fill in a personality questionnaire as ${name}, a real person, would fill it in: each statement describes ` +
      `a way of being, and you rate how accurately it describes ${name}, as ${name} would honestly rate themself.`,
    `The questionnaire's own instructions to ${name}: "${inst.instructions}"`,
    `Scale: ${scale}.`,
    `Base every rating on what ${name} says and how they say it in the transcript excerpts, and on the notes drawn ` +
      `from them. Where the material says little, rate as ${name} most plausibly would from what it does show. ` +
      'Answer null only if the material gives no basis at all for the statement. Rate the person, never yourself (the model).',
    'For each statement also give the number of the excerpt your rating rests on most (null if none in particular).',
    `Return only a JSON object: {"answers": [{"item": "<statement id>", "answer": <1-5 or null>, "excerpt": <excerpt number or null>}, …]}, one entry per statement, in the order given.`,
    FENCE_RULE,
  ].join('\n\n');
}

function materialMessage(material: QuestionnaireMaterial): string {
  const name = inline(material.name, 80) || 'the person';
  const notes = personaNotes({ name, traits: [], style: {}, ...material.notes });
  const parts: string[] = [];
  if (notes.length > 0) parts.push(`Notes: topics ${name} talks about and findings from their transcripts (quoted data).`, fence(PERSONA_LABEL, notes));
  parts.push(
    `Transcript excerpts: things ${name} really said. Each starts with a header [excerpt n · turn <turnId> · <date said>]; "Asked:" is what the other speaker said just before.`,
    fence(EXCERPTS_LABEL, material.excerpts.flatMap((turn, i) => excerptLines(name, turn, i + 1))),
  );
  return parts.join('\n\n');
}
