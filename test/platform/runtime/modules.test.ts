/**
 * src/platform/runtime/modules.ts: a worker thread or child process started by path runs the compiled .js
 * beside a compiled caller, and the .ts through tsx beside a source caller — whether tsx came
 * with `--import tsx` (inherited) or was registered in code by the parent (bin/mindprint.js).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { childExecArgv, moduleUrl, runsFromSource, workerEntry } from '../../../src/platform/runtime/modules.ts';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'mp-runtime-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const MODULES = new URL('../../../src/platform/runtime/modules.ts', import.meta.url).href;

writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }');
// A module only tsx can run (an enum: Node's own type stripping refuses it) that reports back.
writeFileSync(
  path.join(dir, 'target.ts'),
  `import { parentPort } from 'node:worker_threads';
enum Answer { Yes = 'ran under tsx' }
if (parentPort) parentPort.postMessage(Answer.Yes); else process.send!(Answer.Yes);
`,
);
// The parent: starts target.ts as a worker and as a child process through modules.ts.
writeFileSync(
  path.join(dir, 'parent.ts'),
  `import { Worker } from 'node:worker_threads';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv, moduleUrl, workerEntry } from ${JSON.stringify(MODULES)};
const worker = new Worker(workerEntry('./target.ts', import.meta.url));
const fromWorker = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
await worker.terminate();
const child = fork(fileURLToPath(moduleUrl('./target.ts', import.meta.url)), [], { execArgv: [...childExecArgv(import.meta.url)] });
const fromChild = await new Promise((resolve, reject) => { child.once('message', resolve); child.once('error', reject); });
child.kill();
console.log(JSON.stringify([fromWorker, fromChild]));
`,
);

test('a compiled caller gets the .js beside it, with no loader', () => {
  const from = 'file:///opt/mindprint/dist/ingest/pool.js';
  assert.equal(runsFromSource(from), false);
  assert.equal(moduleUrl('./worker.ts', from).href, 'file:///opt/mindprint/dist/ingest/worker.js');
  assert.equal(workerEntry('./worker.ts', from).href, 'file:///opt/mindprint/dist/ingest/worker.js');
  assert.deepEqual(childExecArgv(from), []);
});

test('a source caller gets the .ts, with tsx for the new thread or process', () => {
  const from = 'file:///work/mindprint/src/ingest/pool.ts';
  assert.equal(runsFromSource(from), true);
  assert.equal(moduleUrl('./worker.ts', from).href, 'file:///work/mindprint/src/ingest/worker.ts');
  assert.equal(workerEntry('./worker.ts', from).protocol, 'data:');
  assert.deepEqual(childExecArgv(from), ['--import', import.meta.resolve('tsx')]);
});

test('from source, the worker and the child run under tsx when the process was started with --import tsx', async () => {
  const { stdout } = await run(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(dir, 'parent.ts')], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } });
  assert.deepEqual(JSON.parse(stdout), ['ran under tsx', 'ran under tsx']);
});

test('from source, the worker and the child run under tsx when the parent registered tsx in code', async () => {
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const launcher = path.join(dir, 'launch.mjs');
  writeFileSync(launcher, `import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import(${JSON.stringify(pathToFileURL(path.join(dir, 'parent.ts')).href)});\n`);
  // From an unrelated directory: nothing may depend on the working directory.
  const { stdout } = await run(process.execPath, [launcher], { cwd: tmpdir(), env: { ...process.env, NODE_OPTIONS: '' } });
  assert.deepEqual(JSON.parse(stdout), ['ran under tsx', 'ran under tsx']);
});
