/** The LLM simulation engines (Vercel AI SDK): OpenAI-compatible servers and Anthropic. */
export { llmConfigFromEnv } from './config.ts';
export type { LlmConfig, LlmProvider } from './config.ts';
export { createLlmEngine, createLlmEngines } from './engine.ts';
export { LlmEngineError } from './errors.ts';
export type { LlmErrorCode } from './errors.ts';
