/**
 * The LLM simulation engine: two calls per simulation.
 *  1. The answer, streamed as plain text, so the client sees it word by word (onDelta).
 *  2. The analysis {thinking, feeling, saying, acting} and the cited excerpts, as structured
 *     output against a JSON schema, given the answer from step 1.
 * Why two calls rather than one JSON object with an `answer` field: streaming a field out of
 * partial JSON is brittle on small local models, a schema-constrained answer tends to be stiffer
 * prose, and the plain-text call works on every OpenAI-compatible server. The price is a second,
 * short call with the same context.
 */
import { generateText, Output, streamText } from 'ai';
import type { LanguageModel } from 'ai';
import { z } from 'zod';
import type { EngineInput, EngineResult, SimulationAnalysis, SimulationEngine } from '../types.ts';
import type { LlmConfig } from './config.ts';
import { abortedError, LlmEngineError, timeoutError, toLlmError } from './errors.ts';
import type { ErrorContext } from './errors.ts';
import { resolveEvidence } from './evidence.ts';
import { buildAnalysisPrompt, buildAnswerPrompt, MAX_EXCERPTS } from './prompt.ts';
import { createLanguageModel, endpointOf } from './provider.ts';

const ANSWER_MAX_TOKENS = 1024;
const ANALYSIS_MAX_TOKENS = 1024;
/** A model that produced unreadable JSON once often manages on a second try; more is wasted time. */
const ANALYSIS_ATTEMPTS = 2;

const analysisSchema = z.object({
  thinking: z.string().describe('What the person is thinking in this situation'),
  feeling: z.string().describe('What the person is feeling'),
  saying: z.string().describe('The gist of what the person says'),
  acting: z.string().describe('What the person would do or how they would behave'),
  evidence: z
    .array(
      z.object({
        turnId: z.string().describe('The turn id from the excerpt header'),
        quote: z.string().describe('The most relevant passage, copied verbatim from that excerpt'),
      }),
    )
    .describe('The excerpts the answer rests on, most important first; empty if none'),
});

type AnalysisOutput = z.infer<typeof analysisSchema>;

export function createLlmEngines(config: LlmConfig): SimulationEngine[] {
  return config.models.map((model) => createLlmEngine(config, model));
}

export function createLlmEngine(config: LlmConfig, modelId: string): SimulationEngine {
  const model = createLanguageModel(config, modelId);
  const ctx: ErrorContext = { apiKey: config.apiKey, endpoint: endpointOf(config), model: modelId };
  return {
    id: modelId,
    engine: 'llm',
    streams: true,
    async generate(input: EngineInput, onDelta?: (text: string) => void): Promise<EngineResult> {
      if (input.signal?.aborted) throw abortedError();
      try {
        const text = await streamAnswer(model, config, input, onDelta);
        const analysis = await analyse(model, config, input, text, ctx);
        return { text, analysis: toAnalysis(analysis), evidence: resolveEvidence(analysis.evidence, input.memory.slice(0, MAX_EXCERPTS)) };
      } catch (error) {
        if (input.signal?.aborted) throw abortedError();
        const mapped = toLlmError(error, ctx);
        // An abort the caller did not ask for can only be our own timeout.
        throw mapped.code === 'aborted' ? timeoutError(ctx, config.timeoutMs) : mapped;
      }
    },
  };
}

async function streamAnswer(
  model: LanguageModel,
  config: LlmConfig,
  input: EngineInput,
  onDelta: ((text: string) => void) | undefined,
): Promise<string> {
  const prompt = buildAnswerPrompt(input);
  const result = streamText({
    model,
    system: prompt.system,
    messages: prompt.messages,
    maxOutputTokens: ANSWER_MAX_TOKENS,
    maxRetries: config.maxRetries,
    abortSignal: input.signal,
    timeout: { totalMs: config.timeoutMs },
    // Errors arrive as stream parts below; the default handler would also print them to the console.
    onError: () => {},
  });
  let text = '';
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') {
      if (part.text === '') continue;
      text += part.text;
      onDelta?.(part.text);
    } else if (part.type === 'error') {
      throw part.error;
    } else if (part.type === 'abort') {
      throw abortedError();
    }
  }
  if (text.trim() === '') throw new LlmEngineError('invalid_response', 'The model returned an empty answer.');
  return text;
}

async function analyse(model: LanguageModel, config: LlmConfig, input: EngineInput, answer: string, ctx: ErrorContext): Promise<AnalysisOutput> {
  const prompt = buildAnalysisPrompt(input, answer);
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await generateText({
        model,
        system: prompt.system,
        messages: prompt.messages,
        output: Output.object({ schema: analysisSchema, name: 'analysis', description: 'Analysis of the simulated answer' }),
        temperature: 0,
        maxOutputTokens: ANALYSIS_MAX_TOKENS,
        maxRetries: config.maxRetries,
        abortSignal: input.signal,
        timeout: { totalMs: config.timeoutMs },
      });
      return result.output;
    } catch (error) {
      const mapped = toLlmError(error, ctx);
      if (mapped.code !== 'invalid_response' || attempt >= ANALYSIS_ATTEMPTS) throw error;
    }
  }
}

function toAnalysis(output: AnalysisOutput): SimulationAnalysis {
  return {
    thinking: output.thinking.trim(),
    feeling: output.feeling.trim(),
    saying: output.saying.trim(),
    acting: output.acting.trim(),
  };
}
