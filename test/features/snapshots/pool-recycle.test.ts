/**
 * A parser process that a task left big is replaced once it is done, so an idle service gives the
 * memory of its largest parse back to the system; the pool keeps working with the replacement.
 * No timing is asserted: only which process is there and that it ends.
 */
import { after, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { closeParserPool, configureParserPool, digestTranscriptFile, warmParserPool } from '../../../src/features/snapshots/pool.ts';
import { parserProcessIds, RECYCLE_RSS_MB } from '../../../src/features/snapshots/pool.ts';
import { largeTranscriptText } from '../../support/hostile-files.ts';
import { tempDir } from '../../lib/ingest/helpers.ts';

const tmp = tempDir('pool-recycle');
const defaults = { size: 1, recycleRssMb: RECYCLE_RSS_MB };
beforeEach(async () => {
  await closeParserPool();
  configureParserPool(defaults);
});
after(async () => {
  await closeParserPool();
  configureParserPool({ recycleRssMb: undefined });
  tmp.cleanup();
});

const small = () => tmp.file(`small-${Math.random()}.txt`, 'Interviewer: How are you?\n\nJane Doe: Very well, thank you, and busy with the engine as always.\n\n'.repeat(20));
const digest = (file: string) => digestTranscriptFile(file, 'txt', { mindName: 'Jane Doe', requestedSpeaker: null });

/** Waits until the process has ended (its /proc entry is gone). */
async function ended(pid: number): Promise<void> {
  while (existsSync(`/proc/${pid}/status`)) await new Promise((r) => setTimeout(r, 20));
}

test('a process left above the bound by a task is ended and replaced; the pool works on', { skip: process.platform !== 'linux' && 'RSS is read from /proc' }, async () => {
  configureParserPool({ ...defaults, recycleRssMb: 1 }); // every task leaves more than 1 MB
  await warmParserPool();
  const [first] = parserProcessIds();
  assert.ok(first, 'a process after warming');
  const d = await digest(small());
  assert.equal(d.turns.length, 40);
  await ended(first);
  const [second] = parserProcessIds();
  assert.ok(second && second !== first, 'a replacement process');
  assert.equal((await digest(small())).turns.length, 40, 'the replacement parses');
  assert.ok(!parserProcessIds().includes(second), 'and is replaced in turn');
});

test('a process below the bound is kept across tasks', { skip: process.platform !== 'linux' && 'RSS is read from /proc' }, async () => {
  configureParserPool({ ...defaults, recycleRssMb: 4096 });
  await warmParserPool();
  const before = parserProcessIds();
  await digest(small());
  await digest(small());
  assert.deepEqual(parserProcessIds(), before);
});

test('after a large transcript the process is replaced at the default bound', { skip: process.platform !== 'linux' && 'RSS is read from /proc' }, async () => {
  // 8 MB of text: ~21,000 turns, which leaves a process at ~390 MB resident (bench/memory.ts).
  const file = path.join(tmp.dir, 'large.txt');
  await largeTranscriptText(file, 8 * 1024 * 1024);
  await warmParserPool();
  const [first] = parserProcessIds();
  assert.ok((await digest(file)).turns.length > 10_000);
  await ended(first!);
  assert.equal((await digest(small())).turns.length, 40);
});
