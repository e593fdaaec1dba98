/** The error codes the server answers with are the ones the API guide and the OpenAPI document list, with the same statuses. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { STATUS } from '../../../src/platform/http/errors.ts';
import { ErrorResponse } from '../../../src/platform/http/schemas.ts';

test('docs/api.md lists every error code with its status, and no other', async () => {
  const guide = await readFile(new URL('../../../docs/api.md', import.meta.url), 'utf8');
  const documented = Object.fromEntries([...guide.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
  assert.deepEqual(documented, { ...STATUS });
});

test('the OpenAPI error schema enumerates every code', () => {
  const codes = (ErrorResponse.properties.code as unknown as { enum: string[] }).enum;
  assert.deepEqual([...codes].sort(), Object.keys(STATUS).sort());
});
