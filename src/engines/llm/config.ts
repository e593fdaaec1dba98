/**
 * LLM engine configuration from the environment. The service has LLM engines only when
 * MINDPRINT_LLM_MODEL is set; everything else either has a sensible default or is required
 * by the chosen provider. Bad values throw an Error naming the variable, so a misconfigured
 * deployment fails at start-up instead of on the first simulation.
 */

export type LlmProvider = 'openai-compatible' | 'anthropic';

export interface LlmConfig {
  provider: LlmProvider;
  /** API root, e.g. http://localhost:11434/v1. Required for openai-compatible; optional for anthropic. */
  baseUrl: string | null;
  /** Secret: never log it, never put it in an error message. Optional for local servers. */
  apiKey: string | null;
  /** Model names as the provider knows them; each one becomes an engine with that id. */
  models: string[];
  /**
   * Send JSON-schema structured output (response_format json_schema). OpenAI, vLLM, Ollama and
   * llama.cpp server support it; turn off for servers that only know `json_object`.
   */
  structuredOutputs: boolean;
  /** Retries for 429/5xx/network failures, honouring retry-after headers. */
  maxRetries: number;
  /**
   * Upper bound for one model call (answer or analysis), retries included. Generous by default:
   * a local model on CPU can take minutes over a long prompt; a hung server must still not hold a
   * background job or a stored message in `streaming` for ever.
   */
  timeoutMs: number;
}

const PROVIDERS: readonly LlmProvider[] = ['openai-compatible', 'anthropic'];
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 300_000;

/** Returns null when no LLM is configured (MINDPRINT_LLM_MODEL unset or blank). */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv): LlmConfig | null {
  const modelVar = env.MINDPRINT_LLM_MODEL?.trim() ?? '';
  const anyLlmVar = ['MINDPRINT_LLM_PROVIDER', 'MINDPRINT_LLM_BASE_URL', 'MINDPRINT_LLM_API_KEY'].some(
    (name) => (env[name]?.trim() ?? '') !== '',
  );
  if (modelVar === '') {
    if (anyLlmVar) {
      // Half a configuration is almost certainly a mistake: say so instead of silently running without an LLM.
      throw new Error('MINDPRINT_LLM_MODEL must name at least one model when other MINDPRINT_LLM_* variables are set');
    }
    return null;
  }

  const provider = parseProvider(env.MINDPRINT_LLM_PROVIDER);
  const models = parseModels(modelVar);
  const baseUrl = parseBaseUrl(env.MINDPRINT_LLM_BASE_URL);
  const apiKey = parseApiKey(env.MINDPRINT_LLM_API_KEY);

  if (provider === 'openai-compatible' && baseUrl === null) {
    throw new Error(
      'MINDPRINT_LLM_BASE_URL is required for the openai-compatible provider ' +
        '(e.g. https://api.openai.com/v1, http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM)',
    );
  }
  if (provider === 'anthropic' && apiKey === null) {
    throw new Error('MINDPRINT_LLM_API_KEY is required for the anthropic provider');
  }

  return {
    provider,
    baseUrl,
    apiKey,
    models,
    structuredOutputs: parseBoolean('MINDPRINT_LLM_STRUCTURED_OUTPUTS', env.MINDPRINT_LLM_STRUCTURED_OUTPUTS, true),
    maxRetries: parseMaxRetries(env.MINDPRINT_LLM_MAX_RETRIES),
    timeoutMs: parseTimeout(env.MINDPRINT_LLM_TIMEOUT_MS),
  };
}

function parseProvider(raw: string | undefined): LlmProvider {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '') return 'openai-compatible';
  const found = PROVIDERS.find((p) => p === value);
  if (!found) {
    throw new Error(`MINDPRINT_LLM_PROVIDER must be one of ${PROVIDERS.join(', ')} (got "${raw}")`);
  }
  return found;
}

function parseModels(raw: string): string[] {
  const models: string[] = [];
  for (const part of raw.split(',')) {
    const model = part.trim();
    if (model === '') continue;
    // Model ids travel in JSON bodies and URLs (GET /models); whitespace or control characters are typos.
    if (/[\s\p{Cc}]/u.test(model)) {
      throw new Error(`MINDPRINT_LLM_MODEL contains an invalid model name "${model}" (no spaces allowed)`);
    }
    if (!models.includes(model)) models.push(model);
  }
  if (models.length === 0) {
    throw new Error('MINDPRINT_LLM_MODEL must name at least one model (comma-separated)');
  }
  return models;
}

function parseBaseUrl(raw: string | undefined): string | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`MINDPRINT_LLM_BASE_URL is not a valid URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`MINDPRINT_LLM_BASE_URL must be an http or https URL (got "${url.protocol}")`);
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials in the URL would end up in logs and error messages; the key belongs in MINDPRINT_LLM_API_KEY.
    throw new Error('MINDPRINT_LLM_BASE_URL must not contain credentials; use MINDPRINT_LLM_API_KEY');
  }
  return value.replace(/\/+$/, '');
}

function parseApiKey(raw: string | undefined): string | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  if (/[\s\p{Cc}]/u.test(value)) {
    // Never echo the value: it is a secret.
    throw new Error('MINDPRINT_LLM_API_KEY contains whitespace or control characters');
  }
  return value;
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new Error(`${name} must be true or false (got "${raw}")`);
}

function parseMaxRetries(raw: string | undefined): number {
  const value = raw?.trim() ?? '';
  if (value === '') return DEFAULT_MAX_RETRIES;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 10) {
    throw new Error(`MINDPRINT_LLM_MAX_RETRIES must be an integer from 0 to 10 (got "${raw}")`);
  }
  return n;
}

function parseTimeout(raw: string | undefined): number {
  const value = raw?.trim() ?? '';
  if (value === '') return DEFAULT_TIMEOUT_MS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1000 || n > 3_600_000) {
    throw new Error(`MINDPRINT_LLM_TIMEOUT_MS must be an integer number of milliseconds from 1000 to 3600000 (got "${raw}")`);
  }
  return n;
}
