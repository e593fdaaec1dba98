/**
 * The test runner's shared processes (scripts/test-groups.ts): the deal is balanced and complete,
 * and a generated group entry, run by `node --test`, keeps each file's hooks around its own tests,
 * reports each file as a suite of its name, and fails when one file fails while the others still run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dealIntoGroups, writeGroupEntries } from '../../scripts/test-groups.ts';

test('every file is dealt once, heaviest first to the lightest group', () => {
  const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const weight = (f: string) => ({ a: 3, b: 3, c: 3, d: 1, e: 1, f: 1, g: 1 })[f]!;
  const groups = dealIntoGroups(files, weight, 3);
  assert.deepEqual(groups.flat().sort(), files);
  const loads = groups.map((g) => g.reduce((s, f) => s + weight(f), 0));
  assert.ok(Math.max(...loads) - Math.min(...loads) <= 1, `balanced: ${JSON.stringify(groups)}`);
  assert.deepEqual(groups[0], ['a', 'd', 'g'], 'ties keep the given order');
  assert.deepEqual(dealIntoGroups(['x'], () => 1, 8), [['x']], 'no empty groups');
  assert.deepEqual(dealIntoGroups([], () => 1, 8), []);
});

test("a group runs its files one after another, each file's hooks around its own tests", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mp-groups-'));
  try {
    const log = path.join(dir, 'log.txt');
    const file = (name: string, body: string) => {
      writeFileSync(
        path.join(dir, `${name}.test.mjs`),
        `import { after, before, test } from 'node:test';\nimport { appendFileSync } from 'node:fs';\n` +
          `const say = (s) => appendFileSync(${JSON.stringify(log)}, s + '\\n');\n` +
          `before(() => say('before ${name}'));\nafter(() => say('after ${name}'));\n${body}\n`,
      );
      return `${name}.test.mjs`;
    };
    const a = file('a', `test('a1', () => say('test a'));`);
    const b = file('b', `test('b1', () => { say('test b'); throw new Error('b fails'); });`);
    const c = file('c', `test('c1', () => say('test c'));`);
    const [entry] = writeGroupEntries(dir, dir, [[a, b, c]]);
    // Without NODE_TEST_CONTEXT, which tells a node:test process it reports to a parent runner.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT'));
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', entry!], { encoding: 'utf8', cwd: dir, env });
    assert.equal(run.status, 1, 'a failing file fails the group');
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['before a', 'test a', 'after a', 'before b', 'test b', 'after b', 'before c', 'test c', 'after c']);
    for (const name of [a, b, c]) assert.match(run.stdout, new RegExp(`▶ ${name.replace('.', '\\.')}`), `suite named after ${name}`);
    assert.match(run.stdout, /b fails/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
