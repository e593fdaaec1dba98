/**
 * Export and import through the SDK and the CLI: `mindprint export --mind … > file` and
 * `mindprint import file` move a mind, and both commands have --help.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { MindprintApiError, MindprintClient } from '@mindprint/client';
import { cli } from '../../support/cli.ts';
import { fixtureFile, upload, waitForSnapshot } from '../snapshots/support.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

let s: TestServer;
let mp: MindprintClient;
let mindId: string;
let dir: string;
before(async () => {
  s = await startTestServer();
  mp = new MindprintClient({ baseUrl: s.url, apiKey: s.key });
  const { mind } = await mp.createMind({ name: 'Barack H Obama', tags: ['debates'] });
  mindId = mind.id;
  const res = await upload(s, mindId, { file: { bytes: await fixtureFile('transcripts/us-presidential-debates/2012-10-03.said.txt'), name: 'debate.txt' }, mindsetDate: '2012-10-03' });
  assert.equal((await waitForSnapshot(s, mindId, res.body.mindAssessmentId, 120_000)).status, 'completed');
  dir = await mkdtemp(path.join(os.tmpdir(), 'mp-exports-'));
});
after(async () => {
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('SDK: exportMind gives the bundle, importMind takes it (parsed, as text, or as bytes)', async () => {
  const bundle = await mp.exportMind(mindId, { artifacts: true });
  assert.equal(bundle.format, 'mindprint.mind.v1');
  assert.equal(bundle.artifacts?.length, 1);
  const imported = await mp.importMind(bundle);
  assert.equal(imported.snapshots, 1);
  assert.equal(imported.artifacts, 1);
  assert.equal((await mp.getMind(imported.mindId)).mind.name, 'Barack H Obama');
  const asText = await mp.importMind(await (await mp.exportMindResponse(mindId)).text());
  assert.equal(asText.turns, imported.turns);
  await assert.rejects(mp.importMind({ ...bundle, format: 'mindprint.mind.v9' } as never), (err: unknown) => err instanceof MindprintApiError && err.status === 400 && /newer version/.test(err.message));
});

test('CLI: export to stdout and to a file, import from a file, --help on both', async () => {
  const conn = ['--url', s.url, '--key', s.key];
  const out = await cli(['export', '--mind', mindId, ...conn], {});
  assert.equal(out.code, 0, out.stderr);
  assert.equal(JSON.parse(out.stdout).format, 'mindprint.mind.v1');
  const file = path.join(dir, 'obama.json');
  await writeFile(file, out.stdout);
  const imported = await cli(['import', file, '--json', ...conn], {});
  assert.equal(imported.code, 0, imported.stderr);
  const result = JSON.parse(imported.stdout);
  assert.equal(result.snapshots, 1);
  assert.equal((await mp.getMind(result.mindId)).mind.snapshotCount, 1);

  const second = path.join(dir, 'second.json');
  const toFile = await cli(['export', '--mind', mindId, '--artifacts', '--output', second, ...conn], {});
  assert.equal(toFile.code, 0, toFile.stderr);
  assert.equal(JSON.parse(await readFile(second, 'utf8')).artifacts.length, 1);
  const plain = await cli(['import', second, ...conn], {});
  assert.match(plain.stdout, /^Imported "Barack H Obama" as [0-9a-f-]{36} \(barack-h-obama-\d\): 1 snapshots, \d+ turns/);

  const bad = await cli(['import', path.join(dir, 'missing.json'), ...conn], {});
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /cannot read .*missing\.json: ENOENT/);
  await writeFile(path.join(dir, 'cut.json'), out.stdout.slice(0, 500));
  const cut = await cli(['import', path.join(dir, 'cut.json'), ...conn], {});
  assert.equal(cut.code, 1);
  assert.match(cut.stderr, /400 VALIDATION_FAILED: The body is not a valid JSON mind bundle/);

  for (const args of [['export', '--help'], ['import', '--help']]) {
    const r = await cli(args, {});
    assert.equal(r.code, 0, args.join(' '));
    assert.match(r.stdout, /Usage: mindprint/);
  }
});
