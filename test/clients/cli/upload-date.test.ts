/**
 * `mindprint upload` never gives a file today's date in silence: the date of the file (a date key
 * in its header, else a date in its name) is its mindset date; --date overrides; a file with none
 * is named on stderr (cli-speakers.test.ts runs the command).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileDate, mindsetDates } from '../../../src/clients/cli/upload.ts';
import { fixturePath, sharedDataPath, hasSharedData } from '../../support/shared-data.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-upload-date-'));
});
after(() => rm(dir, { recursive: true, force: true }));

test('the date of a file: a date key in its header first, else a calendar date in its name', async () => {
  const write = async (name: string, text: string) => {
    const f = path.join(dir, name);
    await writeFile(f, text);
    return f;
  };
  assert.equal(await fileDate(fixturePath('transcripts/us-presidential-debates/2012-10-03.vtt')), '2012-10-03');
  assert.equal(await fileDate(await write('episode.md.txt', '---\nguest: Bob\npublish_date: 2025-02-23\n---\nLenny (00:00:05):\nHello.\n')), '2025-02-23');
  assert.equal(await fileDate(await write('2019-01-01 notes.txt', 'Date: 2020-05-06\nA: hi\n')), '2020-05-06', 'the header wins over the name');
  assert.equal(await fileDate(await write('debate_2016-09-26.txt', 'A: hi\n')), '2016-09-26');
  assert.equal(await fileDate(await write('interview.txt', 'A: I was born on 1990-01-02.\n')), null, 'a date in the speech is not the file’s');
  assert.equal(await fileDate(await write('2021-02-30.txt', 'A: hi\n')), null, 'not a calendar date');
  assert.equal(await fileDate(await write('v12345-2024-05-01x.txt', 'A: hi\n')), '2024-05-01');
  assert.equal(await fileDate(path.join(dir, 'missing-2024-01-01.txt')), '2024-01-01', 'an unreadable file still has its name');
});

test('--date applies to every file; without it each file has its own date or none', async () => {
  const a = fixturePath('transcripts/us-presidential-debates/2012-10-16.said.txt');
  const undated = path.join(dir, 'undated.txt');
  await writeFile(undated, 'A: hi\n');
  assert.deepEqual(await mindsetDates([a, undated], '2030-01-01'), [
    { mindsetDate: '2030-01-01', dateFrom: 'flag' },
    { mindsetDate: '2030-01-01', dateFrom: 'flag' },
  ]);
  assert.deepEqual(await mindsetDates([a, undated], undefined), [
    { mindsetDate: '2012-10-16', dateFrom: 'file' },
    { mindsetDate: null, dateFrom: 'upload-day' },
  ]);
});

test('the podcast transcripts of ../shared/data carry their publish date', { skip: !hasSharedData }, async () => {
  assert.equal(await fileDate(sharedDataPath('transcripts/lennys-podcast/bob-moesta.transcript.md.txt')), '2025-02-23');
});
