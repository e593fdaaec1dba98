/**
 * Upload forms with too many parts are the client's mistake (400, naming what to send), not a
 * body over the size limit (413): @fastify/multipart raises its count limits with a 413.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { count, storedFiles } from './support.ts';

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ada Lovelace>I care about careful work.\n';

/** A form with these parts in order; a part given as a file name is a VTT file. */
function formOf(parts: [name: string, value: string | { file: string }][]): FormData {
  const fd = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === 'string') fd.append(name, value);
    else fd.append(name, new Blob([VTT], { type: 'text/vtt' }), value.file);
  }
  return fd;
}

describe('multipart count limits on snapshot uploads', () => {
  let s: TestServer;
  let mind: any;
  before(async () => {
    s = await startTestServer();
    mind = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
  });
  after(() => s.close());

  /** Posts the form and expects a 400 VALIDATION_FAILED with nothing stored; returns the body. */
  async function refused(parts: Parameters<typeof formOf>[0]): Promise<any> {
    const before = { snapshots: await count(s, 'snapshots'), artifacts: await count(s, 'artifacts'), files: await storedFiles(s) };
    const res = await s.api('POST', `/minds/${mind.id}/snapshots`, formOf(parts));
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    assert.equal(await count(s, 'snapshots'), before.snapshots, 'no snapshot');
    assert.equal(await count(s, 'artifacts'), before.artifacts, 'no artifact');
    assert.deepEqual(await storedFiles(s), before.files, 'no stored file');
    assert.deepEqual(await readdir(path.join(s.config.dataDir, 'tmp')).catch(() => []), [], 'no spooled temp file left');
    return res.body;
  }

  test('two file parts: 400 "Send one file per snapshot", naming the field', async () => {
    const body = await refused([['file', { file: 'a.vtt' }], ['file', { file: 'b.vtt' }]]);
    assert.equal(body.message, 'Send one file per snapshot');
    assert.equal(body.field, 'file');
  });

  test('more fields than a snapshot has: 400', async () => {
    const body = await refused([['file', { file: 'a.vtt' }], ...Array.from({ length: 11 }, (): [string, string] => ['speaker', 'Ada Lovelace'])]);
    assert.match(body.message, /too many fields/);
  });

  test('one file and its fields are still accepted', async () => {
    const res = await s.api('POST', `/minds/${mind.id}/snapshots`, formOf([['file', { file: 'a.vtt' }], ['speaker', 'Ada Lovelace']]));
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
});
