/**
 * packages/client/src/openapi-types.ts is generated from the service's OpenAPI document and committed:
 * regenerating it (the script itself, into a temp file) must give the same bytes, so a route
 * schema change without regenerating fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('the committed client types match the OpenAPI document the service serves now', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-client-types-'));
  try {
    const out = path.join(dir, 'openapi-types.ts');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/generate-client-types.ts', '--out', out], { cwd: root, timeout: 180_000 });
    const fresh = await readFile(out, 'utf8');
    const committed = await readFile(path.join(root, 'packages/client/src/openapi-types.ts'), 'utf8');
    assert.match(fresh, /"\/minds\/\{mindId\}\/snapshots\/\{snapshotId\}\/status"/);
    assert.ok(fresh === committed, 'packages/client/src/openapi-types.ts is out of date: run `node --import tsx scripts/generate-client-types.ts`');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
