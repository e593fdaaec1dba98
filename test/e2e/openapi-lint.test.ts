/**
 * `redocly lint` of the OpenAPI document the server serves (issue 10): the repository's
 * redocly.yaml (the `recommended` ruleset and stricter rules) with 0 errors and 0 warnings.
 * Redocly runs offline: its rules are built in, and telemetry and the update check are off.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';

const root = path.resolve(import.meta.dirname, '../..');
let s: TestServer;
let dir: string;
before(async () => {
  s = await startTestServer();
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-redocly-'));
});
after(async () => {
  await s?.close();
  await rm(dir, { recursive: true, force: true });
});

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

test('redocly lint: the served document has 0 errors and 0 warnings', async () => {
  const file = path.join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(await (await fetch(`${s.base}/openapi.json`)).json(), null, 2));
  const run = promisify(execFile);
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const result = await run(path.join(root, 'node_modules/.bin/redocly'), ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format=json'], { env, cwd: root, maxBuffer: 64 << 20 }).catch(
    (err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }),
  );
  const report = JSON.parse(result.stdout) as LintReport;
  const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  assert.deepEqual(problems, [], result.stderr);
  assert.deepEqual([report.totals.errors, report.totals.warnings], [0, 0]);
});
