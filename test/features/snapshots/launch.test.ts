import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { fixturePath, tempDir } from '../../lib/ingest/helpers.ts';

const run = promisify(execFile);
const tmp = tempDir('launch');
after(() => tmp.cleanup());

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const POOL = new URL('../../../src/features/snapshots/pool.ts', import.meta.url).href;
const FILE = fixturePath('documents/docx/meeting.docx');

// A small program that parses one file through the worker pool and prints the speakers.
const program = `
import { parseTranscriptFile, closeParserPool } from ${JSON.stringify(POOL)};
const t = await parseTranscriptFile(${JSON.stringify(FILE)}, 'docx');
await closeParserPool();
console.log(JSON.stringify(t.turns.map((x) => x.speaker)));
`;
const expected = ['Speaker 1', 'Speaker 2', 'Speaker 1', 'Speaker 3', 'Speaker 2'];

test('parser workers start when the process was launched with node --import tsx', async () => {
  const script = tmp.file('with-import.mts', program);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { cwd: REPO });
  assert.deepEqual(JSON.parse(stdout), expected);
});

test('parser workers start when tsx was registered programmatically (as bin/mindprint.js does)', async () => {
  const tsxApi = import.meta.resolve('tsx/esm/api');
  tmp.file('program.mts', program);
  const script = tmp.file('with-register.mjs', `import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import('./program.mts');\n`);
  // Run from an unrelated directory: nothing may depend on the working directory.
  const { stdout } = await run(process.execPath, [script], { cwd: tmpdir() });
  assert.deepEqual(JSON.parse(stdout), expected);
});
