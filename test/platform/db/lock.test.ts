import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { acquireLock, DataDirInUseError, readLock } from '../../../src/platform/db/lock.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-lock-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout as unknown as number;
}

const staleLock = (pid: number) => JSON.stringify({ pid: Number(pid), role: 'serve', url: null, startedAt: '2020-01-01T00:00:00.000Z' });

test('of many processes racing for the data dir exactly one gets it', async () => {
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => acquireLock(dir, { role: 'serve' })));
  const won = results.filter((r) => r.status === 'fulfilled');
  assert.equal(won.length, 1);
  for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof DataDirInUseError);
  assert.equal((await readLock(dir))?.pid, process.pid);
  await (won[0] as PromiseFulfilledResult<() => Promise<void>>).value();
  assert.equal(await readLock(dir), null);
});

test('a stale lock of a dead process is taken over, by exactly one of several', async () => {
  await writeFile(path.join(dir, 'mindprint.lock'), staleLock(deadPid()));
  assert.equal(await readLock(dir), null, 'a dead holder does not count');
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => acquireLock(dir, { role: 'serve' })));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const release = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<() => Promise<void>>).value;
  assert.equal(JSON.parse(await readFile(path.join(dir, 'mindprint.lock'), 'utf8')).pid, process.pid);
  await release();
});

test('a command waits for another command, never for a server; a server waits for a command', async () => {
  const command = await acquireLock(dir, { role: 'keys create' });
  const waiting = acquireLock(dir, { role: 'serve', waitForCommandMs: 10_000 });
  await new Promise((r) => setTimeout(r, 300));
  await command();
  const server = await waiting;
  await assert.rejects(acquireLock(dir, { role: 'keys list', waitForCommandMs: 10_000 }), /in use by a running Mindprint server/);
  await server();
  const first = await acquireLock(dir, { role: 'migrate' });
  await assert.rejects(acquireLock(dir, { role: 'keys list', waitForCommandMs: 200 }), /in use by `mindprint migrate`/);
  await first();
});

test('releasing never removes a lock another process has taken over', async () => {
  const release = await acquireLock(dir, { role: 'serve' });
  const other = staleLock(process.ppid);
  await writeFile(path.join(dir, 'mindprint.lock'), other);
  await release();
  assert.equal(await readFile(path.join(dir, 'mindprint.lock'), 'utf8'), other);
  await rm(path.join(dir, 'mindprint.lock'));
});
