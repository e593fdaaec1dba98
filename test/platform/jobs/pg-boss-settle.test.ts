/**
 * src/platform/jobs/queue.ts contains the unawaited complete/fail of pg-boss's worker loop by recognising
 * the two statements they run (issue 21). If a pg-boss upgrade settled jobs with other statements,
 * the match would silently stop and a database restart could kill the process again: this test
 * reads pg-boss's manager and fails first.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);

test("pg-boss's worker loop settles jobs with the two statements queue.ts contains", () => {
  const manager = readFileSync(require.resolve('pg-boss/src/manager.js'), 'utf8');
  // The worker loop's settling calls, still not awaited (the reason for the containment).
  assert.match(manager, /^\s+this\.complete\(name, jobIds/m);
  assert.match(manager, /^\s+this\.fail\(name, jobIds, err\)/m);
  // …and what complete() and fail() execute: the plans queue.ts builds its statements from.
  assert.match(manager, /this\.completeJobsCommand = plans\.completeJobs\(config\.schema\)/);
  assert.match(manager, /this\.failJobsByIdCommand = plans\.failJobsById\(config\.schema\)/);
  assert.match(manager, /executeSql\(this\.completeJobsCommand,/);
  assert.match(manager, /executeSql\(this\.failJobsByIdCommand,/);
});
