/**
 * The README's first block — install, start, test — run as written in a fresh copy of the clone
 * (no node_modules, no dist/, nothing beside it): `npm ci` must install and build the service and
 * the dashboard, `npm start` must serve on the embedded default and print the first API key. The
 * copy keeps the clone it was made from untouched: building here would empty the dist/ other test
 * files run from. `npm test`, the block's third command, is not run from inside a test run (it is
 * this run); what is checked is that it is the fast set of the same runner CI runs with `--all`.
 * Slow (a real install from the npm registry or its cache, then a build): in test/slow.txt.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Lexer, type Tokens } from 'marked';
import { waitForFirstStartKey } from '../../support/cli.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The commands of the README's first shell block under "## Quick start", comments dropped. */
function setUpCommands(): string[] {
  const tokens = Lexer.lex(README);
  const start = tokens.findIndex((t) => t.type === 'heading' && (t as Tokens.Heading).depth === 2 && /^quick start$/i.test((t as Tokens.Heading).text));
  assert.ok(start >= 0, 'README.md has a "## Quick start" section');
  const block = tokens.slice(start + 1).find((t): t is Tokens.Code => t.type === 'code' && (t as Tokens.Code).lang === 'sh');
  assert.ok(block, 'the quick start opens with a shell block');
  return block.text
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

let dir: string;
let fresh: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-readme-setup-'));
  fresh = path.join(dir, 'clone');
  // What a clone holds: the files git tracks (with this checkout's changes), nothing it ignores
  // (node_modules, dist/, web/dist/, data).
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 1 << 26 });
  for (const f of stdout.split('\0').filter(Boolean)) {
    if (existsSync(path.join(ROOT, f))) await cp(path.join(ROOT, f), path.join(fresh, f), { recursive: true });
  }
});
after(() => rm(dir, { recursive: true, force: true }));

/** This Node first on PATH (npm's scripts run `node`), without the test runner's options. */
const env = (extra: Record<string, string> = {}) => ({
  ...process.env,
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
  NODE_OPTIONS: '',
  NODE_TEST_CONTEXT: '',
  // The packages come from npm's cache when it has them (the command is the README's, unchanged).
  npm_config_prefer_offline: 'true',
  ...extra,
});

test('the README set-up block, as written, in a fresh copy: npm ci builds service and dashboard, npm start serves and prints the first key', { timeout: 900_000 }, async () => {
  const [install, start, tests, ...rest] = setUpCommands();
  assert.deepEqual([install, start, tests, rest], ['npm ci', 'npm start', 'npm test', []], 'three commands: install, start, test');

  await run('bash', ['-c', install!], { cwd: fresh, env: env(), timeout: 840_000, maxBuffer: 1 << 26 });
  assert.ok(existsSync(path.join(fresh, 'dist/main.js')), 'npm ci built the service (dist/)');
  assert.ok(existsSync(path.join(fresh, 'web/dist/index.html')), 'npm ci built the dashboard (web/dist/)');

  // `npm start` as written; where it listens and keeps its data come from the environment
  // (docs/operations.md), so it cannot meet another server or another run's data.
  const dataDir = path.join(dir, 'data');
  const proc = spawn('bash', ['-c', start!], {
    cwd: fresh,
    detached: true, // its own process group: npm, node and the server stop together
    env: env({ LOG_LEVEL: 'warn', DATABASE_URL: '', HOST: '127.0.0.1', PORT: '0', MINDPRINT_DATA_DIR: dataDir, MINDPRINT_BOOTSTRAP_KEY: '' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const { key, base } = await waitForFirstStartKey(proc);
    const minds = await fetch(`${base}/minds`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(minds.status, 200, 'the printed key works against the printed address');
    const dashboard = await fetch(`${new URL(base!).origin}/app/`);
    assert.equal(dashboard.status, 200, 'the dashboard it built is served');
    assert.ok(existsSync(dataDir), 'its data went where MINDPRINT_DATA_DIR says');
  } finally {
    if (proc.exitCode === null) process.kill(-proc.pid!, 'SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));
  }

  // `npm test` is the fast set of scripts/test.ts; CI runs the same runner with --all.
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.match(pkg.scripts.test, /scripts\/test\.ts$/);
  assert.equal(pkg.scripts['test:all'], `${pkg.scripts.test} --all`);
  assert.match(readFileSync(path.join(ROOT, '.ci/run'), 'utf8'), /^npm run test:all$/m);
});
