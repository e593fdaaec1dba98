/**
 * Embedding provider configuration from the environment. Without MINDPRINT_EMBEDDINGS_MODEL the
 * offline GloVe-SIF embedder is used (no network, no key). With it, an OpenAI-compatible
 * `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio…) computes them.
 * Bad values throw an Error naming the variable, so start-up fails instead of the first upload.
 */

export interface EmbeddingsConfig {
  /** API root including /v1, e.g. http://localhost:11434/v1. */
  baseUrl: string;
  model: string;
  /** Secret: never logged, never in an error message. Optional for local servers. */
  apiKey: string | null;
  /** Ask the model for vectors of this length (models that support `dimensions`), else its own. */
  dimensions: number | null;
  /** Texts per request. */
  batchSize: number;
  /** Upper bound for one request, retries included. */
  timeoutMs: number;
  maxRetries: number;
}

const VARS = ['MINDPRINT_EMBEDDINGS_BASE_URL', 'MINDPRINT_EMBEDDINGS_MODEL', 'MINDPRINT_EMBEDDINGS_API_KEY', 'MINDPRINT_EMBEDDINGS_DIMENSIONS'];

/** Returns null for the offline default (MINDPRINT_EMBEDDINGS_MODEL unset or blank). */
export function embeddingsConfigFromEnv(env: NodeJS.ProcessEnv): EmbeddingsConfig | null {
  const model = env.MINDPRINT_EMBEDDINGS_MODEL?.trim() ?? '';
  if (model === '') {
    const stray = VARS.find((name) => (env[name]?.trim() ?? '') !== '');
    if (stray) throw new Error(`MINDPRINT_EMBEDDINGS_MODEL must name a model when ${stray} is set`);
    return null;
  }
  if (/[\s\p{Cc}]/u.test(model)) throw new Error(`MINDPRINT_EMBEDDINGS_MODEL contains whitespace or control characters (got "${model}")`);
  const rawUrl = env.MINDPRINT_EMBEDDINGS_BASE_URL?.trim() ?? '';
  if (rawUrl === '') {
    throw new Error('MINDPRINT_EMBEDDINGS_BASE_URL is required with MINDPRINT_EMBEDDINGS_MODEL (e.g. https://api.openai.com/v1, http://localhost:11434/v1 for Ollama)');
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new Error(`MINDPRINT_EMBEDDINGS_BASE_URL is not a valid URL (got "${rawUrl}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`MINDPRINT_EMBEDDINGS_BASE_URL must be an http or https URL (got "${url.protocol}")`);
  if (url.username !== '' || url.password !== '') throw new Error('MINDPRINT_EMBEDDINGS_BASE_URL must not contain credentials; use MINDPRINT_EMBEDDINGS_API_KEY');
  const apiKey = env.MINDPRINT_EMBEDDINGS_API_KEY?.trim() || null;
  if (apiKey && /[\s\p{Cc}]/u.test(apiKey)) throw new Error('MINDPRINT_EMBEDDINGS_API_KEY contains whitespace or control characters');
  return {
    baseUrl: rawUrl.replace(/\/+$/, ''),
    model,
    apiKey,
    dimensions: integer(env, 'MINDPRINT_EMBEDDINGS_DIMENSIONS', null, 8, 8192),
    batchSize: integer(env, 'MINDPRINT_EMBEDDINGS_BATCH_SIZE', 64, 1, 2048)!,
    timeoutMs: integer(env, 'MINDPRINT_EMBEDDINGS_TIMEOUT_MS', 60_000, 1000, 600_000)!,
    maxRetries: integer(env, 'MINDPRINT_EMBEDDINGS_MAX_RETRIES', 2, 0, 10)!,
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number | null, min: number, max: number): number | null {
  const raw = env[name]?.trim() ?? '';
  if (raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return n;
}
