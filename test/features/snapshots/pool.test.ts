/** The parser pools: request-time label scans never wait behind the jobs' work, and are bounded. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ParseTimeoutError } from '../../../src/lib/ingest/index.ts';
import { closeParserPool, digestTranscriptFile, parseTranscriptFile, speakerLabels } from '../../../src/features/snapshots/pool.ts';
import { fixturePath, tempDir } from '../../lib/ingest/helpers.ts';

const tmp = tempDir('pool');
after(async () => {
  await closeParserPool();
  tmp.cleanup();
});

const BIG_PDF = fixturePath('documents/pdf/scotus-17-1618_2a34.pdf'); // 80 pages: most of a second of parsing and analysis
const small = () => tmp.file(`small-${Math.random()}.vtt`, 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ann>Hello.\n\n00:02.000 --> 00:03.000\n<v Ben>Hi Ann.\n');

test('a label scan answers while the job pool is busy with big files', async () => {
  await speakerLabels(small(), 'vtt'); // the request pool's thread is up
  let settled = 0;
  const jobs = [1, 2, 3].map(() => digestTranscriptFile(BIG_PDF, 'pdf', { mindName: 'Nobody', requestedSpeaker: null }).finally(() => settled++));
  const labels = await speakerLabels(small(), 'vtt');
  assert.deepEqual(labels, ['Ann', 'Ben']);
  assert.equal(settled, 0, 'answered before any of the queued digests finished');
  await Promise.all(jobs);
});

test('a label scan past its budget is stopped, queue wait included, and the pool keeps working', async () => {
  await assert.rejects(speakerLabels(BIG_PDF, 'pdf', 30), (err: unknown) => err instanceof ParseTimeoutError && /speaker labels took longer than 30 ms/.test(err.message));
  // A scan that waits behind another one runs out of budget while queued.
  const slow = speakerLabels(BIG_PDF, 'pdf', 60_000); // generous: a loaded machine slows a fresh process's first parse
  await assert.rejects(speakerLabels(small(), 'vtt', 50), ParseTimeoutError);
  assert.ok((await slow).length >= 1);
  assert.deepEqual(await speakerLabels(small(), 'vtt'), ['Ann', 'Ben']);
});

test('an errno code survives the trip back from the parser process', async () => {
  await assert.rejects(parseTranscriptFile(tmp.file('gone.txt', 'x') + '.missing', 'txt'), (err: any) => err.code === 'ENOENT');
});
