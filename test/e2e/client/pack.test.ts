/**
 * @mindprint/client as another project gets it: `npm pack` of the workspace (its prepack builds
 * dist/), the tarball installed into a blank project offline (its one dependency,
 * eventsource-parser, packed from this repository's node_modules beside it), then a plain
 * JavaScript program — no tsx, no TypeScript — that uses it against a running Mindprint: a mind,
 * a transcript, the wait, the profile, a streamed answer, an error. It runs on this Node and on
 * Node 20 when the machine has one (Debian's /usr/bin/node). A TypeScript consumer type-checks
 * against the installed .d.ts alone.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../../support/server.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLIENT = path.join(ROOT, 'packages/client');
const EXAMPLE = path.join(ROOT, 'examples/debate-2012-10-03.txt');
const NPM_CLI = path.join(path.dirname(process.execPath), '../lib/node_modules/npm/bin/npm-cli.js');
/** npm of this Node (the one on PATH may belong to another). */
const npm = (args: string[], cwd: string) =>
  existsSync(NPM_CLI) ? run(process.execPath, [NPM_CLI, ...args], { cwd, maxBuffer: 1 << 24 }) : run('npm', args, { cwd, maxBuffer: 1 << 24 });

let s: TestServer;
let dir: string;
let app: string;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-client-pack-'));
  app = path.join(dir, 'app');
  await mkdir(app);
  s = await startTestServer();
});
after(async () => {
  await s?.close();
  await rm(dir, { recursive: true, force: true });
});

test('npm pack: compiled ESM and .d.ts only, one runtime dependency', async () => {
  const { stdout } = await npm(['pack', '--json', '--pack-destination', dir], CLIENT);
  const [pack] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  const files = (pack.files as { path: string }[]).map((f) => f.path).sort();
  assert.deepEqual(files, ['dist/index.d.ts', 'dist/index.js', 'dist/openapi-types.d.ts', 'dist/openapi-types.js', 'dist/sse.d.ts', 'dist/sse.js', 'package.json', 'README.md'].sort());
  const manifest = JSON.parse(readFileSync(path.join(CLIENT, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest.dependencies ?? {}), ['eventsource-parser']);
  assert.equal(manifest.exports['.'].types, './dist/index.d.ts');
  assert.equal(manifest.exports['.'].default, './dist/index.js');
  // The runtime dependency, packed from what this repository installed, so the install below needs no network.
  await npm(['pack', '--pack-destination', dir, '--ignore-scripts', path.join(ROOT, 'node_modules/eventsource-parser')], ROOT);
});

test('installed offline into a blank project, plain Node uses it against a running server', async () => {
  const tarballs = (await readdir(dir)).filter((f) => f.endsWith('.tgz')).map((f) => path.join('..', f));
  assert.equal(tarballs.length, 2, 'the client and its dependency');
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'blank', private: true, type: 'module' }));
  await npm(['install', '--offline', '--no-audit', '--no-fund', ...tarballs], app);
  assert.ok(!existsSync(path.join(app, 'node_modules/@mindprint/client/src')), 'no TypeScript sources shipped');

  await writeFile(
    path.join(app, 'use.mjs'),
    `import { MindprintApiError, MindprintClient } from '@mindprint/client';
const [url, key, file] = process.argv.slice(2);
const mp = new MindprintClient({ baseUrl: url, apiKey: key });
const { mind } = await mp.createMind({ name: 'Barack Obama ' + process.versions.node });
const { mindAssessmentId } = await mp.uploadSnapshot(mind.id, { file, mindsetDate: '2012-10-03' });
const status = await mp.waitForSnapshot(mind.id, mindAssessmentId, { intervalMs: 100 });
const profile = await mp.getProfile(mind.id);
const events = [];
let answer = '';
for await (const e of mp.simulateStream({ mindId: mind.id, scenario: { message: 'What would you do about taxes?' } })) {
  events.push(e.event);
  if (e.event === 'delta') answer += e.data.text;
}
let error;
try { await new MindprintClient({ baseUrl: url, apiKey: 'mp_' + 'A'.repeat(43) }).listMinds(); }
catch (e) { error = e instanceof MindprintApiError ? [e.status, e.code] : String(e); }
console.log(JSON.stringify({ node: process.versions.node, from: import.meta.resolve('@mindprint/client'), status: status.status, snapshots: profile.snapshotCount ?? null, events: [...new Set(events)], answer, error }));
`,
  );
  const nodes = [process.execPath];
  const node20 = '/usr/bin/node';
  if (existsSync(node20) && /^v20\./.test((await run(node20, ['--version'])).stdout)) nodes.push(node20);
  else console.log('# no Node 20 at /usr/bin/node: the program runs on this Node only');
  for (const node of nodes) {
    const { stdout } = await run(node, ['use.mjs', s.url, s.key, EXAMPLE], { cwd: app, env: { ...process.env, NODE_OPTIONS: '' } });
    const out = JSON.parse(stdout);
    assert.match(out.from, /\/app\/node_modules\/@mindprint\/client\/dist\/index\.js$/, 'the installed build');
    assert.equal(out.status, 'completed', node);
    assert.deepEqual(out.events, ['start', 'delta', 'done'], node);
    assert.ok(out.answer.length > 20, out.answer);
    assert.deepEqual(out.error, [401, 'AUTH_FAILED']);
  }
});

test('a TypeScript project type-checks against the installed .d.ts', async () => {
  await writeFile(
    path.join(app, 'use.ts'),
    `import { MindprintClient, MindprintApiError, type Mind, type SimulateStreamEvent } from '@mindprint/client';
export async function names(mp: MindprintClient): Promise<string[]> {
  const { minds } = await mp.listMinds();
  return minds.map((m: Mind) => m.name);
}
export function text(e: SimulateStreamEvent): string {
  return e.event === 'delta' ? e.data.text : e.event === 'error' ? e.data.code : '';
}
export const isApi = (e: unknown) => e instanceof MindprintApiError && e.status >= 400;
// @ts-expect-error a mind's name is a string, not a number
export const wrong: Mind['name'] = 42;
`,
  );
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  // What a Node or bundler project would have: strict, NodeNext resolution (exports, types), DOM types, no @types/node.
  const check = async (file: string) => {
    const options = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], types: [] };
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: [file] }));
    return run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).then(() => '', (err) => `${err.stdout}${err.stderr}`);
  };
  assert.equal(await check('use.ts'), '');
  // …and the check is real: a call with a wrong argument is an error.
  await writeFile(path.join(app, 'bad.ts'), `import { MindprintClient } from '@mindprint/client';\nexport const p = (mp: MindprintClient) => mp.createMind({ name: 7 });\n`);
  assert.match(await check('bad.ts'), /bad\.ts.*error TS2322/);
});
