import { test } from 'node:test';
import assert from 'node:assert/strict';
import { llmConfigFromEnv } from '../../../src/engines/llm/index.ts';

test('no LLM variables: not configured', () => {
  assert.equal(llmConfigFromEnv({}), null);
  assert.equal(llmConfigFromEnv({ MINDPRINT_LLM_MODEL: '  ' }), null);
});

test('openai-compatible by default, comma-separated models, trailing slash trimmed', () => {
  const config = llmConfigFromEnv({
    MINDPRINT_LLM_BASE_URL: 'http://localhost:11434/v1/',
    MINDPRINT_LLM_MODEL: 'llama3.1:8b, qwen2.5:7b,,llama3.1:8b',
  });
  assert.deepEqual(config, {
    provider: 'openai-compatible',
    baseUrl: 'http://localhost:11434/v1',
    apiKey: null,
    models: ['llama3.1:8b', 'qwen2.5:7b'],
    structuredOutputs: true,
    maxRetries: 2,
    timeoutMs: 300_000,
  });
});

test('anthropic needs a key, not a base URL', () => {
  const config = llmConfigFromEnv({
    MINDPRINT_LLM_PROVIDER: 'Anthropic',
    MINDPRINT_LLM_API_KEY: 'sk-ant-secret',
    MINDPRINT_LLM_MODEL: 'claude-sonnet-4-5',
  });
  assert.equal(config?.provider, 'anthropic');
  assert.equal(config?.baseUrl, null);
  assert.equal(config?.apiKey, 'sk-ant-secret');
  assert.throws(
    () => llmConfigFromEnv({ MINDPRINT_LLM_PROVIDER: 'anthropic', MINDPRINT_LLM_MODEL: 'claude-sonnet-4-5' }),
    /MINDPRINT_LLM_API_KEY/,
  );
});

test('optional switches parse', () => {
  const config = llmConfigFromEnv({
    MINDPRINT_LLM_BASE_URL: 'https://api.openai.com/v1',
    MINDPRINT_LLM_MODEL: 'gpt-4o-mini',
    MINDPRINT_LLM_STRUCTURED_OUTPUTS: 'false',
    MINDPRINT_LLM_MAX_RETRIES: '0',
    MINDPRINT_LLM_TIMEOUT_MS: '60000',
  });
  assert.equal(config?.structuredOutputs, false);
  assert.equal(config?.maxRetries, 0);
  assert.equal(config?.timeoutMs, 60_000);
});

test('bad values throw an error naming the variable', () => {
  const base = { MINDPRINT_LLM_BASE_URL: 'http://localhost:8000/v1', MINDPRINT_LLM_MODEL: 'm' };
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ ...base, MINDPRINT_LLM_PROVIDER: 'gemini' }, /MINDPRINT_LLM_PROVIDER/],
    [{ ...base, MINDPRINT_LLM_BASE_URL: 'not a url' }, /MINDPRINT_LLM_BASE_URL/],
    [{ ...base, MINDPRINT_LLM_BASE_URL: 'ftp://host/v1' }, /MINDPRINT_LLM_BASE_URL/],
    [{ ...base, MINDPRINT_LLM_BASE_URL: 'http://user:pw@host/v1' }, /MINDPRINT_LLM_BASE_URL/],
    [{ MINDPRINT_LLM_MODEL: 'm' }, /MINDPRINT_LLM_BASE_URL is required/],
    [{ ...base, MINDPRINT_LLM_MODEL: ' , ' }, /MINDPRINT_LLM_MODEL/],
    [{ ...base, MINDPRINT_LLM_MODEL: 'llama 3' }, /MINDPRINT_LLM_MODEL/],
    [{ MINDPRINT_LLM_BASE_URL: 'http://localhost:8000/v1' }, /MINDPRINT_LLM_MODEL/],
    [{ ...base, MINDPRINT_LLM_STRUCTURED_OUTPUTS: 'maybe' }, /MINDPRINT_LLM_STRUCTURED_OUTPUTS/],
    [{ ...base, MINDPRINT_LLM_MAX_RETRIES: '-1' }, /MINDPRINT_LLM_MAX_RETRIES/],
    [{ ...base, MINDPRINT_LLM_TIMEOUT_MS: '5s' }, /MINDPRINT_LLM_TIMEOUT_MS/],
  ];
  for (const [env, pattern] of cases) assert.throws(() => llmConfigFromEnv(env), pattern, JSON.stringify(env));
});

test('a malformed key is rejected without echoing it', () => {
  assert.throws(
    () => llmConfigFromEnv({ MINDPRINT_LLM_BASE_URL: 'http://h/v1', MINDPRINT_LLM_MODEL: 'm', MINDPRINT_LLM_API_KEY: 'sk-top secret' }),
    (error: Error) => /MINDPRINT_LLM_API_KEY/.test(error.message) && !error.message.includes('top secret'),
  );
});

test('MINDPRINT_DEFAULT_MODEL: the first LLM model by default, else extractive; a named one must exist', async () => {
  const { defaultModelFrom, EXTRACTIVE_MODEL_ID } = await import('../../../src/engines/models.ts');
  const { loadConfig, ConfigError } = await import('../../../src/config.ts');
  assert.equal(defaultModelFrom({}, []), EXTRACTIVE_MODEL_ID);
  assert.equal(defaultModelFrom({}, ['gpt-4o-mini', 'llama3.1:8b']), 'gpt-4o-mini');
  assert.equal(defaultModelFrom({ MINDPRINT_DEFAULT_MODEL: 'llama3.1:8b' }, ['gpt-4o-mini', 'llama3.1:8b']), 'llama3.1:8b');
  assert.equal(defaultModelFrom({ MINDPRINT_DEFAULT_MODEL: ` ${EXTRACTIVE_MODEL_ID} ` }, ['gpt-4o-mini']), EXTRACTIVE_MODEL_ID);
  assert.throws(() => defaultModelFrom({ MINDPRINT_DEFAULT_MODEL: 'gpt-5' }, ['gpt-4o-mini']), /MINDPRINT_DEFAULT_MODEL "gpt-5" is not an available model; available models: mindprint-extractive-1, gpt-4o-mini/);
  // Through the configuration: a bad default stops start-up naming the variable.
  const base = { MINDPRINT_LLM_MODEL: 'gpt-4o-mini', MINDPRINT_LLM_BASE_URL: 'http://127.0.0.1:9/v1' };
  assert.equal(loadConfig({ ...base }).defaultModel, 'gpt-4o-mini');
  assert.equal(loadConfig({ ...base, MINDPRINT_DEFAULT_MODEL: EXTRACTIVE_MODEL_ID }).defaultModel, EXTRACTIVE_MODEL_ID);
  assert.throws(() => loadConfig({ ...base, MINDPRINT_DEFAULT_MODEL: 'nope' }), (err: unknown) => err instanceof ConfigError && /MINDPRINT_DEFAULT_MODEL/.test(err.message));
});
