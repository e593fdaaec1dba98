/**
 * The `mindprint` command as users get it:
 * - bin/mindprint.js runs the compiled dist/ when it is current, the sources through tsx when a
 *   source is newer than the build (or there is no build), and dist/ alone in an installed package;
 * - `npm run build` produces a dist/ that works on its own: the packed package (no src/, the
 *   client bundled) lays out as npm would install it, serves from a fresh data dir (migrations,
 *   the dashboard), processes an upload made with its own CLI (parser threads, models) and answers;
 * - `npx mindprint` in the clone and `npm i -g` of the clone give a working `mindprint`.
 * Builds and packs happen in a copy of the clone (made once), never in the clone the tests run from.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitForFirstStartKey } from '../../support/cli.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NPM_CLI = path.join(path.dirname(process.execPath), '../lib/node_modules/npm/bin/npm-cli.js');
/** npm (or npx) of this Node, with its bin directory first on PATH as npm's own scripts expect. */
function npmCommand(cli: 'npm' | 'npx', args: string[], cwd: string, env: Record<string, string> = {}) {
  const file = path.join(path.dirname(NPM_CLI), `${cli}-cli.js`);
  const opts = { cwd, maxBuffer: 1 << 26, env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, NODE_OPTIONS: '', ...env } };
  return existsSync(file) ? run(process.execPath, [file, ...args], opts) : run(cli, args, opts);
}

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-install-'));
});
after(() => rm(dir, { recursive: true, force: true }));

test('bin/mindprint.js: the build when current, the sources when newer or unbuilt, the build alone when installed', async () => {
  // A package laid out like this one, whose two entry points say which one ran.
  const pkg = path.join(dir, 'layout');
  await mkdir(path.join(pkg, 'bin'), { recursive: true });
  await mkdir(path.join(pkg, 'src/deep'), { recursive: true });
  await mkdir(path.join(pkg, 'dist'));
  for (const f of ['mindprint.js', 'require-node.js']) await cp(path.join(ROOT, 'bin', f), path.join(pkg, 'bin', f));
  await symlink(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
  await writeFile(path.join(pkg, 'package.json'), '{ "type": "module" }');
  // An enum: only tsx runs it, so "source" proves the sources ran through tsx.
  await writeFile(path.join(pkg, 'src/main.ts'), "enum Ran { Source = 'source' }\nconsole.log(Ran.Source);\n");
  await writeFile(path.join(pkg, 'src/deep/asset.bin'), 'x');
  await writeFile(path.join(pkg, 'dist/main.js'), "console.log('compiled');\n");
  const which = async () => (await run(process.execPath, [path.join(pkg, 'bin/mindprint.js')], { cwd: os.tmpdir(), env: { ...process.env, NODE_OPTIONS: '' } })).stdout.trim();
  const built = Date.now();
  const past = new Date(built - 60_000);
  for (const f of ['src/main.ts', 'src/deep/asset.bin']) await utimes(path.join(pkg, f), past, past);

  assert.equal(await which(), 'source', 'no build record: the sources');
  await writeFile(path.join(pkg, 'dist/.build.json'), JSON.stringify({ startedAt: built }));
  assert.equal(await which(), 'compiled', 'built after the last change');
  await utimes(path.join(pkg, 'src/deep/asset.bin'), new Date(built + 1000), new Date(built + 1000));
  assert.equal(await which(), 'source', 'any file under src/ changed since');
  await rm(path.join(pkg, 'src'), { recursive: true });
  assert.equal(await which(), 'compiled', 'an installed package has no sources');
  await rm(path.join(pkg, 'dist/main.js'));
  await assert.rejects(which(), 'no build and no sources: nothing to run');
});

/**
 * A copy of the clone to build and pack in. `npm run build` empties dist/ first, and other test
 * files (run at the same time) start the CLI from this clone's dist/: building here would pull it
 * from under them. The copy has everything but dist/ and the tests; its node_modules links to this
 * clone's packages, except the workspace's client, which links to the copy's own (built there).
 */
let copy: string | undefined;
async function copyOfClone(): Promise<string> {
  if (copy) return copy;
  copy = path.join(dir, 'clone');
  const skip = new Set(['.git', 'node_modules', 'dist', 'test', 'bench'].map((f) => path.join(ROOT, f)));
  await cp(ROOT, copy, { recursive: true, filter: (from) => !skip.has(from) && path.basename(from) !== 'node_modules' });
  await mkdir(path.join(copy, 'node_modules/@mindprint'), { recursive: true });
  for (const entry of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '@mindprint' || entry.startsWith('.')) continue;
    await symlink(path.join(ROOT, 'node_modules', entry), path.join(copy, 'node_modules', entry));
  }
  await symlink('../../packages/client', path.join(copy, 'node_modules/@mindprint/client'));
  return copy;
}

test('the packed package runs from its build alone: serve, upload with its own CLI, ask', async () => {
  const clone = await copyOfClone();
  await npmCommand('npm', ['run', 'build'], clone);
  const { stdout } = await npmCommand('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], clone);
  const [pack] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  const files = new Set((pack.files as { path: string }[]).map((f) => f.path));
  for (const f of ['bin/mindprint.js', 'dist/main.js', 'dist/features/snapshots/child.js', 'dist/lib/embeddings/models/glove-6b-100d-100k.bin', 'dist/lib/analysis/models/big-five.json', 'drizzle/0000_init.sql', 'drizzle/meta/_journal.json', 'node_modules/@mindprint/client/dist/index.js']) {
    assert.ok(files.has(f), `${f} is in the package`);
  }
  assert.ok(![...files].some((f) => /^(src|test|bench|scripts)\//.test(f)), 'no sources, tests or scripts');
  assert.ok(!files.has('node_modules/tsx/package.json'), 'tsx is for development only');

  // Unpacked as npm installs it: <prefix>/node_modules/mindprint, its dependencies hoisted beside it
  // (here: links to this clone's), its bundled client inside.
  const modules = path.join(dir, 'prefix/node_modules');
  await mkdir(modules, { recursive: true });
  await run('tar', ['-xzf', path.join(dir, pack.filename), '-C', modules]);
  const installed = path.join(modules, 'mindprint');
  await cp(path.join(modules, 'package'), installed, { recursive: true });
  await rm(path.join(modules, 'package'), { recursive: true });
  for (const entry of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '@mindprint' || entry === 'tsx' || entry.startsWith('.')) continue;
    await symlink(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  const bin = path.join(installed, 'bin/mindprint.js');
  const help = await run(process.execPath, [bin, '--help'], { cwd: os.tmpdir() });
  assert.match(help.stdout, /^Usage: mindprint /m);

  const dataDir = path.join(dir, 'data');
  const proc = spawn(process.execPath, [bin, 'serve'], { cwd: os.tmpdir(), env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'warn', DATABASE_URL: '', HOST: '127.0.0.1', PORT: '0', MINDPRINT_DATA_DIR: dataDir, MINDPRINT_BOOTSTRAP_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const { key, base } = await waitForFirstStartKey(proc);
    const origin = new URL(base!).origin;
    const dashboard = await fetch(`${origin}/`);
    assert.equal(dashboard.status, 200, 'the dashboard is served from web/dist');

    const cliEnv = { ...process.env, NODE_OPTIONS: '', MINDPRINT_URL: '', MINDPRINT_API_KEY: '', NO_COLOR: '1' };
    const upload = await run(process.execPath, [bin, 'upload', '--url', origin, '--key', key!, '--mind', 'Barack Obama', '--create', '--date', '2012-10-03', '--json', path.join(ROOT, 'examples/debate-2012-10-03.txt')], { cwd: os.tmpdir(), env: cliEnv });
    const summary = JSON.parse(upload.stdout);
    assert.equal(summary.completed, 1, upload.stderr);
    assert.equal(summary.files[0].mindSpeaker, 'Barack H Obama');
    const ask = await run(process.execPath, [bin, 'ask', '--url', origin, '--key', key!, '--mind', 'Barack Obama', 'What would you do about taxes?'], { cwd: os.tmpdir(), env: cliEnv });
    assert.ok(ask.stdout.trim().length > 20, ask.stdout);
    assert.match(ask.stderr, /^conversationId: /m);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));
  }
});

test('npx mindprint in the clone and npm i -g of the clone give a working mindprint', async () => {
  // In the copy: npx installs a clone into its cache (~/.npm/_npx) as a link and runs its
  // `prepare` (the build) the first time; in this clone that would rebuild dist/ under other tests.
  const clone = await copyOfClone();
  const npx = await npmCommand('npx', ['--no-install', 'mindprint', '--version'], clone);
  assert.match(npx.stdout.trim(), /^\d+\.\d+\.\d+$/);

  const prefix = path.join(dir, 'global');
  await npmCommand('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ROOT], os.tmpdir());
  const installed = path.join(prefix, 'bin/mindprint');
  assert.ok(existsSync(installed), 'mindprint is on the global bin path');
  const help = await run(installed, ['--help'], { cwd: os.tmpdir(), env: { ...process.env, NODE_OPTIONS: '', PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` } });
  assert.match(help.stdout, /^Usage: mindprint /m);
  assert.match(help.stdout, /upload \[options\] <files\.\.\.>/);
});
