/**
 * On a Node.js older than Mindprint needs, every entry point a reader types (`node
 * bin/mindprint.js`, `npx mindprint`, `npm start`, `npm test`) stops with one line naming the
 * version needed and where to get it — not with the SyntaxError of the first newer API it would
 * import. The old Node is Debian's /usr/bin/node (Node 20) or MINDPRINT_OLD_NODE; on a machine with
 * neither, those cases are skipped and say so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The guard's minimum, read from its source (a plain .js file without types, which must stay importable by old Node). */
const MINIMUM = /^export const MINIMUM = '(\d+\.\d+\.\d+)';$/m.exec(readFileSync(path.join(ROOT, 'bin/require-node.js'), 'utf8'))![1]!;
const NEEDS = /^mindprint needs Node\.js 22\.12 or later; this is v\d+\.\d+\.\d+ \(.+\)\. Get it from https:\/\/nodejs\.org\/en\/download \(or `nvm install 22`\), then run the command again\.$/m;
const STACK = /^\s+at |SyntaxError|Error \[/m;

/** The version of the Node at `file`, or null when there is none. */
async function versionOf(file: string): Promise<number[] | null> {
  if (!existsSync(file)) return null;
  const { stdout } = await run(file, ['-p', 'process.versions.node']);
  return stdout.trim().split('.').map(Number);
}
const older = (v: number[], than: number[]) => v[0]! < than[0]! || (v[0] === than[0] && v[1]! < than[1]!);

const oldNode = process.env.MINDPRINT_OLD_NODE || '/usr/bin/node';
const oldVersion = await versionOf(oldNode);
const minimum = MINIMUM.split('.').map(Number);
const skip = oldVersion && older(oldVersion, minimum) ? false : `no Node.js older than ${MINIMUM} at ${oldNode} (set MINDPRINT_OLD_NODE)`;
/** npm of the old Node, run as the reader would: that Node first on PATH, so the scripts' `node` is it. */
const npmCli = path.join(path.dirname(oldNode), '../lib/node_modules/npm/bin');

/** Runs `args` with the old Node first on PATH; a guard that failed to stop would run the real thing, so a timeout bounds it. */
async function withOldNode(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, PATH: `${path.dirname(oldNode)}${path.delimiter}${process.env.PATH}`, NODE_OPTIONS: '', npm_config_update_notifier: 'false' };
  try {
    const r = await run(file, args, { cwd: ROOT, env, timeout: 120_000 });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout, stderr: e.stderr };
  }
}

test('the minimum in bin/require-node.js is the engines.node of package.json', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.engines.node, `>=${MINIMUM.replace(/\.0$/, '')}`);
});

test('on this Node the guard says nothing and lets the command run', async () => {
  const guard = await run(process.execPath, [path.join(ROOT, 'bin/require-node.js')]);
  assert.equal(guard.stderr, '');
  const version = await run(process.execPath, [path.join(ROOT, 'bin/mindprint.js'), '--version'], { env: { ...process.env, NODE_OPTIONS: '' } });
  assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+$/);
});

for (const [name, file, args] of [
  ['node bin/mindprint.js', oldNode, ['bin/mindprint.js', '--version']],
  ['npx mindprint', oldNode, [path.join(npmCli, 'npx-cli.js'), '--no-install', 'mindprint', '--version']],
  ['npm start', oldNode, [path.join(npmCli, 'npm-cli.js'), 'start']],
  ['npm test', oldNode, [path.join(npmCli, 'npm-cli.js'), 'test']],
] as const) {
  test(`${name} on an older Node: one line naming the version needed, no stack trace`, { skip }, async () => {
    const r = await withOldNode(file, [...args]);
    assert.notEqual(r.code, 0, r.stdout + r.stderr);
    const lines = r.stderr.split('\n').filter((l) => NEEDS.test(l));
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0]!.includes(`this is v${oldVersion!.join('.')} `), lines[0]);
    assert.doesNotMatch(r.stderr, STACK, r.stderr);
  });
}
