/**
 * The test runner behind `npm test` and `npm run test:all`.
 *
 *   node --import tsx scripts/test.ts            the fast set: every test file not listed in test/slow.txt
 *   node --import tsx scripts/test.ts --all      every test file
 *   node --import tsx scripts/test.ts FILE…      the files given (a `*` or `**` in one is expanded here)
 *   … --list                                     prints the files instead of running them
 *   … --isolate                                  every file in a process of its own (as `node --test` does)
 *
 * Other arguments starting with `--test` (`--test-name-pattern=…`, `--test-reporter=…`) go to
 * `node --test`. Test files are test/**\/*.test.ts and packages/*\/test/**\/*.test.ts, found here
 * rather than by the shell, so the same command works in every shell (and on Windows).
 * test/slow.txt is the one place that says which suites are slow; a line naming no test file stops
 * the run, so the list cannot go stale when files move.
 *
 * Why files share processes: a process per file paid for starting Node, tsx and the service's
 * imports over a hundred times, and that, not the tests, was a third of `npm test`'s CPU time.
 * The other files are dealt into GROUPS processes; each imports its files one after another,
 * each inside a `describe` named after the file, so a file's `before`/`after` hooks run around
 * that file's tests alone (at the top level of a shared process they would all run first and
 * last, and every file's servers would be alive at once). A file of test/slow.txt still runs
 * alone: those kill processes, read 45 MB inputs or measure memory.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dealIntoGroups, writeGroupEntries } from './test-groups.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SLOW_LIST = 'test/slow.txt';
/** Processes the shared files are dealt into: enough for two at a time to stay balanced, few enough to share the start-up. */
const GROUPS = 8;

/** Every file under `dir` (relative to the root, with forward slashes), or none when there is no such directory. */
function filesUnder(dir: string): string[] {
  if (!existsSync(path.join(ROOT, dir))) return [];
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** A pattern with `*` (within a folder) and `**` (any folders) as a regular expression over relative paths. */
function patternOf(glob: string): RegExp {
  const parts = glob.split('/');
  const last = parts.length - 1;
  const re = parts
    .map((part, i) => {
      if (part === '**') return i === last ? '.*' : '(?:[^/]+/)*';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*').replaceAll('?', '[^/]') + (i === last ? '' : '/');
    })
    .join('');
  return new RegExp(`^${re}$`);
}

const allTests = [...filesUnder('test'), ...readdirSync(path.join(ROOT, 'packages')).flatMap((p) => filesUnder(`packages/${p}/test`))]
  .filter((f) => f.endsWith('.test.ts'))
  .sort();

/** The files `glob` names; none is an error, so a typo does not pass as an empty, green run. */
function expand(glob: string, origin: string): string[] {
  const pattern = patternOf(glob.replace(/^\.\//, ''));
  const hits = allTests.filter((f) => pattern.test(f));
  if (!hits.length) {
    process.stderr.write(`scripts/test.ts: ${origin} names no test file: ${glob}\n`);
    process.exit(2);
  }
  return hits;
}

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--test'));
const all = args.includes('--all');
const named = args.filter((a) => !a.startsWith('--'));

const slow = new Set(
  readFileSync(path.join(ROOT, SLOW_LIST), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .flatMap((g) => expand(g, SLOW_LIST)),
);
let files: string[];
if (named.length) {
  files = [...new Set(named.flatMap((g) => expand(g, 'the command line')))];
} else {
  files = all ? allTests : allTests.filter((f) => !slow.has(f));
  process.stderr.write(`scripts/test.ts: ${files.length} test files${all ? '' : ` (the ${slow.size} of ${SLOW_LIST} run with npm run test:all)`}\n`);
}

if (args.includes('--list')) {
  process.stdout.write(files.map((f) => `${f}\n`).join(''));
  process.exit(0);
}

/** The entry files `node --test` runs: a slow file as it is, the others dealt into GROUPS shared processes. */
function entries(): { entries: string[]; cleanup(): void } {
  const shared = files.filter((f) => !slow.has(f));
  if (args.includes('--isolate') || shared.length <= 2) return { entries: files, cleanup() {} };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mindprint-test-groups-'));
  // A file that starts servers weighs more, so the deal spreads them over the processes.
  const weight = (f: string) => (readFileSync(path.join(ROOT, f), 'utf8').includes('startTestServer(') ? 3 : 1);
  const generated = writeGroupEntries(dir, ROOT, dealIntoGroups(shared, weight, GROUPS));
  return { entries: [...generated, ...files.filter((f) => slow.has(f))], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const run = entries();
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...flags, ...run.entries], { cwd: ROOT, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  run.cleanup();
  process.exit(code ?? (signal ? 1 : 0));
});
