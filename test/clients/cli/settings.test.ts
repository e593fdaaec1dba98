/** Where the client commands and `mindprint mcp` connect: flags over the environment, over the default. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withConnectionEnv } from '../../../src/clients/cli/index.ts';
import { DEFAULT_MINDPRINT_URL, mcpSettingsFromEnv } from '../../../src/clients/mcp/env.ts';

test('without --url or MINDPRINT_URL the service is http://127.0.0.1:3000', () => {
  assert.equal(DEFAULT_MINDPRINT_URL, 'http://127.0.0.1:3000');
  assert.equal(mcpSettingsFromEnv({ MINDPRINT_API_KEY: 'mp_x' }).url, 'http://127.0.0.1:3000');
  assert.equal(mcpSettingsFromEnv({ MINDPRINT_URL: '  ', MINDPRINT_API_KEY: 'mp_x' }).url, 'http://127.0.0.1:3000');
});

test('--url and --key replace the variables; absent flags leave them', () => {
  const env = { MINDPRINT_URL: 'http://a:1', MINDPRINT_API_KEY: 'mp_env', OTHER: 'kept' };
  assert.deepEqual(withConnectionEnv({ url: 'http://b:2', key: 'mp_flag' }, env), { MINDPRINT_URL: 'http://b:2', MINDPRINT_API_KEY: 'mp_flag', OTHER: 'kept' });
  assert.deepEqual(withConnectionEnv({}, env), env);
  const settings = mcpSettingsFromEnv(withConnectionEnv({ key: 'mp_flag' }, env));
  assert.deepEqual([settings.url, settings.apiKey], ['http://a:1', 'mp_flag']);
});
