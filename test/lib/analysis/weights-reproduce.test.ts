/**
 * The committed model files (src/lib/analysis/models/big-five.json, background.json) are what the
 * training script makes from ../shared/data: a change to the features, the lexicons or the
 * training that is not followed by retraining fails here, not silently in production.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { skipUnlessSharedData } from '../../support/shared-data.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('scripts/train-big-five.ts --check reproduces the committed weight files exactly', skipUnlessSharedData, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/train-big-five.ts', '--check'], { cwd: root, timeout: 1_800_000, maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string; stderr?: string }) =>
    assert.fail(`--check failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`),
  );
  assert.match(stdout, /committed weight files are reproduced exactly/);
  // The cross-validated accuracy it prints is the one BENCHMARKS.md reports: each trait is there.
  for (const trait of ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism']) assert.match(stdout, new RegExp(`${trait}: .*written \\(essays\\) AUC`));
});
