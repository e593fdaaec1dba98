/**
 * Export and import of a mind (format mindprint.mind.v1), end to end: a mind exported from the
 * embedded database imports into PostgreSQL (TEST_DATABASE_URL; a second PGlite server without
 * it) and back, with the same counts, the same profile and the same extractive answer; the
 * bundle read back is the bundle sent. Then what a bad bundle, another organization's mind and
 * a bundle over the limit answer.
 */
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { fixtureFile, upload, waitForSnapshot } from '../snapshots/support.ts';
import { onPostgres, startTestServer, type TestServer } from '../../support/server.ts';

const TRANSCRIPTS = ['2012-10-03', '2012-10-16'].map((d) => `transcripts/us-presidential-debates/${d}.said.txt`);
const QUESTION = 'What would you do about taxes on the middle class?';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

async function waitForIndex(s: TestServer, mindId: string, timeoutMs = 120_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api('GET', `/minds/${mindId}/semantic-index`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`semantic index still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** GET /export as raw bytes, with the headers. */
async function exportRaw(s: TestServer, mindId: string, query = '', headers: Record<string, string> = {}) {
  const res = await fetch(`${s.base}/minds/${mindId}/export${query}`, { headers: { authorization: `Bearer ${s.key}`, ...headers } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function importBundle(s: TestServer, body: string | Uint8Array, headers: Record<string, string> = {}, key = s.key) {
  const res = await fetch(`${s.base}/minds/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/vnd.mindprint.mind+json', ...headers },
    body: body as BodyInit,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: parsed };
}

/** What must be the same of a mind on two servers: ids (new on import) and times of the mind itself aside. */
async function sameness(s: TestServer, mindId: string) {
  const mind = (await s.api('GET', `/minds/${mindId}`)).body.mind;
  const profile = (await s.api('GET', `/minds/${mindId}/profile`)).body;
  const answer = (await s.api('POST', '/simulate', { mindId, scenario: { message: QUESTION } })).body;
  assert.ok(answer.message, JSON.stringify(answer));
  const strip = (v: unknown) => JSON.parse(JSON.stringify(v).replace(UUID, '<id>'));
  return {
    counts: { snapshotCount: mind.snapshotCount, psychometricCount: mind.psychometricCount, keyTopicCount: mind.keyTopicCount, findingCount: mind.findingCount },
    name: mind.name,
    tags: mind.tags.map((t: { name: string }) => t.name),
    profile: strip(profile),
    answer: strip({ message: answer.message, evidence: answer.evidence.map((e: any) => e.quote), analysis: answer.analysis }),
  };
}

/** The value with every array of objects sorted: the same content in any order. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(canonical);
    return items.every((i) => i !== null && typeof i === 'object') ? items.sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1)) : items;
  }
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(x)]));
  return v;
}

/** A bundle read back, without what differs by design: when it was exported and when its mind was created. */
const comparable = (text: string) => {
  const b = JSON.parse(text);
  delete b.exportedAt;
  delete b.mind.createdAt;
  return b;
};

describe(`mind export and import: PGlite → ${onPostgres() ? 'PostgreSQL' : 'PGlite'} → PGlite`, () => {
  let a: TestServer;
  let b: TestServer;
  let mindId: string;

  before(async () => {
    [a, b] = await Promise.all([startTestServer({}, { database: 'pglite' }), startTestServer({}, onPostgres() ? { database: 'postgres' } : {})]);
    const mind = (await a.api('POST', '/minds', { name: 'Barack H Obama', tags: 'politics,debates', email: 'barack@example.com' })).body.mind;
    mindId = mind.id;
    for (const [i, t] of TRANSCRIPTS.entries()) {
      const res = await upload(a, mindId, { file: { bytes: await fixtureFile(t), name: `debate-${i + 1}.txt` }, mindsetDate: i ? '2012-10-16' : '2012-10-03' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal((await waitForSnapshot(a, mindId, res.body.mindAssessmentId, 120_000)).status, 'completed');
    }
    assert.equal((await waitForIndex(a, mindId)).status, 'ready');
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  test('round trip: the same counts, profile and extractive answer on the other database and back; the bundle read back is the one sent', async () => {
    const original = await sameness(a, mindId);
    assert.equal(original.counts.snapshotCount, 2);

    const exported = await exportRaw(a, mindId, '?artifacts=true', { 'accept-encoding': 'identity' });
    assert.equal(exported.status, 200, exported.text);
    assert.match(exported.headers.get('content-type')!, /^application\/vnd\.mindprint\.mind\+json/);
    assert.match(exported.headers.get('content-disposition')!, /attachment; filename="barack-h-obama\.mindprint\.json"/);
    const bundle = JSON.parse(exported.text);
    assert.equal(bundle.format, 'mindprint.mind.v1');
    assert.equal(bundle.semanticIndex.embedder, 'glove-6b-100d-sif@1');
    assert.equal(bundle.snapshots.length, 2);
    assert.equal(bundle.artifacts.length, 2);
    assert.deepEqual(bundle.omittedArtifacts, []);
    assert.deepEqual(bundle.tags.sort(), ['debates', 'politics']);
    // Ids are local to the file.
    assert.doesNotMatch(exported.text.replace(/"contentBase64":"[^"]*"/g, ''), UUID);

    const there = await importBundle(b, exported.text);
    assert.equal(there.status, 200, JSON.stringify(there.body));
    const imported = there.body.imported;
    assert.equal(imported.snapshots, 2);
    assert.equal(imported.artifacts, 2);
    assert.equal(imported.turns, bundle.snapshots[0].turns.length + bundle.snapshots[1].turns.length);
    assert.equal(imported.semanticIndex.status, 'indexing');
    assert.equal((await waitForIndex(b, imported.mindId)).status, 'ready');
    assert.deepEqual(await sameness(b, imported.mindId), original);
    const snaps = (await b.api('GET', `/minds/${imported.mindId}/snapshots`)).body.snapshots;
    assert.deepEqual(snaps.map((s: any) => s.status), ['completed', 'completed']);

    // Back, gzipped both ways: into the embedded database as a second mind of the same name.
    const again = await exportRaw(b, imported.mindId, '?artifacts=true', { 'accept-encoding': 'gzip' });
    assert.equal(again.status, 200);
    assert.deepEqual(comparable(again.text), comparable(exported.text));
    const back = await importBundle(a, gzipSync(again.text));
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.notEqual(back.body.imported.mindId, mindId);
    assert.equal(back.body.imported.slug, 'barack-h-obama-2');
    assert.equal((await waitForIndex(a, back.body.imported.mindId)).status, 'ready');
    // The same, but lists in the profile may come in another order here: the profile reads a
    // snapshot's analysis rows by ctid, and in a table that already holds rows (the original's)
    // PostgreSQL may put some of them in free space of earlier pages.
    const home = await sameness(a, back.body.imported.mindId);
    assert.deepEqual(canonical(home), canonical(original));
    assert.deepEqual(home.answer, original.answer);
  });

  test('the export is gzipped when Accept-Encoding allows it, and plain otherwise', async () => {
    const res = await fetch(`${a.base}/minds/${mindId}/export`, { headers: { authorization: `Bearer ${a.key}`, 'accept-encoding': 'gzip' } });
    assert.equal(res.status, 200);
    // fetch decompresses; the header says what came over the wire.
    assert.equal(res.headers.get('content-encoding'), 'gzip');
    const bundle = JSON.parse(await res.text());
    assert.equal(bundle.artifacts, undefined, 'no files unless asked for');
    const plain = await exportRaw(a, mindId, '', { 'accept-encoding': 'identity' });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(JSON.parse(plain.text).snapshots.length, 2);
    assert.ok(gunzipSync(gzipSync(plain.text)).length > 0);
  });

  test('another organization’s mind is not found, to export or after importing', async () => {
    const other = await a.newKey('exports-other-org', 'other@example.com');
    const res = await a.api('GET', `/minds/${mindId}/export`, undefined, other.key);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'NOT_FOUND');
    const missing = await a.api('GET', `/minds/00000000-0000-4000-8000-000000000000/export`);
    assert.equal(missing.status, 404);
    // An import lands in the importer's organization only.
    const small = await a.api('POST', '/minds', { name: 'Tiny Mind' });
    const exported = await exportRaw(a, small.body.mind.id);
    const imported = await importBundle(a, exported.text, {}, other.key);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.equal((await a.api('GET', `/minds/${imported.body.imported.mindId}`)).status, 404);
    assert.equal((await a.api('GET', `/minds/${imported.body.imported.mindId}`, undefined, other.key)).status, 200);
  });

  describe('a bad bundle is a 400 naming what is wrong, and nothing is stored', () => {
    let bundle: any;
    let minds: number;
    before(async () => {
      bundle = JSON.parse((await exportRaw(a, mindId)).text);
      minds = (await a.api('GET', '/minds')).body.minds.length;
    });
    const refused = async (body: string | Uint8Array, message: RegExp, headers: Record<string, string> = {}) => {
      const res = await importBundle(a, body, headers);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.match(res.body.message, message);
      assert.equal((await a.api('GET', '/minds')).body.minds.length, minds, 'no mind was created');
    };
    const edited = (edit: (b: any) => void) => {
      const copy = structuredClone(bundle);
      edit(copy);
      return JSON.stringify(copy);
    };

    test('malformed or truncated JSON', async () => {
      const text = JSON.stringify(bundle);
      await refused(text.slice(0, Math.floor(text.length / 2)), /not a valid JSON mind bundle.*cut short/);
      await refused('{"format": "mindprint.mind.v1",', /not a valid JSON mind bundle/);
      await refused(gzipSync(text).subarray(0, 200), /gzip.*does not decompress/);
      await refused('[1,2]', /must be a mind bundle/);
    });

    test('a newer format version, or another format', async () => {
      await refused(edited((b) => (b.format = 'mindprint.mind.v2')), /body\.format is mindprint\.mind\.v2, a newer version than this server reads \(mindprint\.mind\.v1\): upgrade Mindprint/);
      await refused(edited((b) => (b.format = 'something.else')), /body\.format is "something\.else", not a mind bundle format/);
      await refused(edited((b) => delete b.format), /body\.format is required/);
    });

    test('a field against the schema is named by its path', async () => {
      await refused(edited((b) => (b.snapshots[1].turns[3].seq = 'three')), /^body\.snapshots\.1\.turns\.3\.seq must be integer/);
      await refused(edited((b) => delete b.snapshots[0].findings[0].quote), /^body\.snapshots\.0\.findings\.0\.quote/);
      await refused(edited((b) => (b.snapshots[0].extra = 1)), /^body\.snapshots\.0\.extra is not a known field/);
      await refused(edited((b) => (b.mind.imageUrl = 'javascript:alert(1)')), /^body\.mind\.imageUrl must be an http\(s\):\/\/ URL/);
    });

    test('turn references that point nowhere, and duplicate ids', async () => {
      await refused(edited((b) => (b.snapshots[0].findings[0].turnId = 't999999')), /^body\.snapshots\.0\.findings\.0\.turnId "t999999" names no turn of the bundle/);
      await refused(edited((b) => (b.snapshots[1].keyTopics[0].evidence[0].turnId = 'nowhere')), /^body\.snapshots\.1\.keyTopics\.0\.evidence\.0\.turnId "nowhere" names no turn/);
      await refused(edited((b) => (b.snapshots[1].turns[0].id = b.snapshots[0].turns[0].id)), /^body\.snapshots\.1\.turns\.0\.id "t1" is the id of an earlier turn/);
      await refused(edited((b) => (b.artifacts = [{ snapshotId: 's9', contentBase64: 'aGk=' }])), /^body\.artifacts\.0\.snapshotId "s9" names no snapshot/);
      await refused(edited((b) => (b.artifacts = [{ snapshotId: 's1', contentBase64: 'not base64!' }])), /^body\.artifacts\.0\.contentBase64 is not base64/);
    });
  });

  test('a bundle over the upload size limit is a 413, gzipped or not', async () => {
    const small = await startTestServer({ MINDPRINT_MAX_UPLOAD_MB: '1' }, { database: 'pglite' });
    try {
      // A bundle of that mind, padded past 1 MB where the schema allows anything.
      const padded = JSON.parse((await exportRaw(a, mindId, '?artifacts=true')).text);
      padded.mind.socialMedia = { note: 'x'.repeat(1024 * 1024) };
      const text = JSON.stringify(padded);
      const res = await importBundle(small, text);
      assert.equal(res.status, 413, JSON.stringify(res.body));
      assert.equal(res.body.code, 'PAYLOAD_TOO_LARGE');
      const zipped = await importBundle(small, gzipSync(text));
      assert.equal(zipped.status, 413, JSON.stringify(zipped.body));
      // Its export with files stays within its own limit: what does not fit is listed, not sent.
      const imported = await importBundle(small, (await exportRaw(a, mindId)).text);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      const own = await exportRaw(small, imported.body.imported.mindId, '?artifacts=true');
      assert.ok(Buffer.byteLength(own.text) <= 1024 * 1024);
      const b = JSON.parse(own.text);
      assert.equal(b.artifacts.length, 0);
      assert.deepEqual(b.omittedArtifacts, ['s1', 's2']);
    } finally {
      await small.close();
    }
  });
});
