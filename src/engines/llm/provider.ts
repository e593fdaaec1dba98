/**
 * One place that knows how to talk to each provider through the Vercel AI SDK. Everything
 * above this file sees only the SDK's LanguageModel.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { LlmConfig } from './config.ts';

const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';

export function createLanguageModel(config: LlmConfig, modelId: string): LanguageModel {
  if (config.provider === 'anthropic') {
    return createAnthropic({
      // Passing the key explicitly stops the SDK from falling back to ANTHROPIC_API_KEY.
      apiKey: config.apiKey ?? '',
      baseURL: config.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
    })(modelId);
  }
  if (config.baseUrl === null) throw new Error('MINDPRINT_LLM_BASE_URL is required for the openai-compatible provider');
  return createOpenAICompatible({
    name: 'mindprint',
    baseURL: config.baseUrl,
    apiKey: config.apiKey ?? undefined,
    // Ask for usage in the final stream chunk (OpenAI only sends it when asked; others ignore the option).
    includeUsage: true,
    supportsStructuredOutputs: config.structuredOutputs,
  }).chatModel(modelId);
}

/** Where requests go, for error messages. */
export function endpointOf(config: LlmConfig): string {
  return config.baseUrl ?? (config.provider === 'anthropic' ? ANTHROPIC_DEFAULT_BASE_URL : 'unknown endpoint');
}
