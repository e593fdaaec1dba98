/**
 * Snapshot API behaviours seen over HTTP that other files do not cover: choosing the digital
 * twin, the order of the snapshot list, hostile files (zip bomb, encrypted DOCX, truncated PDF, a
 * PNG in disguise) sent through the API, and the size limit of a local signed-URL PUT.
 * Runs on the embedded database, and on PostgreSQL with TEST_DATABASE_URL.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { documentXml, fixturePath, makeCfb, storedEntry, writeRawZip } from '../../lib/ingest/helpers.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { count, rows, storedFiles, upload, waitForSnapshot } from './support.ts';

const vtt = (speaker: string, line: string) => `WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Interviewer>What matters to you?\n\n00:00:04.000 --> 00:00:09.000\n<v ${speaker}>${line}\n`;
const VTT = vtt('Ada Lovelace', 'I care about engines that can weave algebraic patterns, the way a loom weaves flowers and leaves.');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Temp files of uploads in flight (spooled multipart bodies and signed-URL PUTs). */
const tmpFiles = (s: TestServer) => readdir(path.join(s.config.dataDir, 'tmp')).catch(() => [] as string[]);

/** What the server holds: rows of snapshots and artifacts, stored files and temp files. */
async function holdings(s: TestServer) {
  return { snapshots: await count(s, 'snapshots'), artifacts: await count(s, 'artifacts'), files: (await storedFiles(s)).sort(), tmp: await tmpFiles(s) };
}

describe('snapshot API coverage', () => {
  let s: TestServer;
  let ada: { mind: any; digitalTwin: any };
  let babbage: { mind: any; digitalTwin: any };
  before(async () => {
    s = await startTestServer();
    ada = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body;
    babbage = (await s.api('POST', '/minds', { name: 'Charles Babbage' })).body;
    assert.ok(ada.digitalTwin?.id && babbage.digitalTwin?.id, 'creating a mind creates its default twin');
  });
  after(() => s?.close());

  describe('digitalTwinId on POST /minds/{id}/snapshots', () => {
    test('without digitalTwinId the snapshot belongs to the mind’s default twin', async () => {
      const res = await upload(s, ada.mind.id, { file: { bytes: VTT, name: 'default.vtt' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const details = (await s.api('GET', `/minds/${ada.mind.id}/snapshots/${res.body.mindAssessmentId}`)).body;
      assert.equal(details.digitalTwinId, ada.digitalTwin.id);
      assert.equal(ada.digitalTwin.isDefault, true);
      assert.equal((await waitForSnapshot(s, ada.mind.id, res.body.mindAssessmentId)).status, 'completed');
    });

    test('the mind’s own twin id given explicitly is accepted and recorded', async () => {
      const res = await upload(s, ada.mind.id, { file: { bytes: VTT, name: 'explicit.vtt' }, digitalTwinId: ada.digitalTwin.id });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const listed = (await s.api('GET', `/minds/${ada.mind.id}/snapshots`)).body.snapshots.find((x: any) => x.id === res.body.mindAssessmentId);
      assert.equal(listed.digitalTwinId, ada.digitalTwin.id);
      assert.equal((await waitForSnapshot(s, ada.mind.id, res.body.mindAssessmentId)).status, 'completed');
    });

    test('the mind’s own twin id in upper case is accepted, as UUIDs are case-insensitive', async () => {
      const res = await upload(s, ada.mind.id, { file: { bytes: VTT, name: 'upper.vtt' }, digitalTwinId: ada.digitalTwin.id.toUpperCase() });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const details = (await s.api('GET', `/minds/${ada.mind.id}/snapshots/${res.body.mindAssessmentId}`)).body;
      assert.equal(details.digitalTwinId, ada.digitalTwin.id);
      await waitForSnapshot(s, ada.mind.id, res.body.mindAssessmentId);
    });

    test('another mind’s twin, another organization’s twin or a malformed id is 400 naming digitalTwinId, and nothing is stored', async () => {
      const other = await s.newKey('twin-elsewhere', 'someone@elsewhere.test');
      const foreign = (await s.api('POST', '/minds', { name: 'Foreign Mind' }, other.key)).body.digitalTwin;
      const before = await holdings(s);
      const cases: [string, string][] = [
        ['another mind’s twin (same organization)', babbage.digitalTwin.id],
        ['another organization’s twin', foreign.id],
        ['an id that is no twin at all', '00000000-0000-4000-8000-000000000000'],
        ['a malformed id', 'not-a-twin'],
        ['an SQL-looking id', "' or 1=1 --"],
      ];
      for (const [what, digitalTwinId] of cases) {
        const res = await upload(s, ada.mind.id, { file: { bytes: VTT, name: 'twin.vtt' }, digitalTwinId });
        assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'VALIDATION_FAILED', what);
        assert.match(res.body.message, /digitalTwinId/, what);
      }
      assert.deepEqual(await holdings(s), before, 'no snapshot, artifact, stored file or temp file from the refused uploads');
      // The twin that was refused for Ada is still Babbage's own, and works for him.
      const his = await upload(s, babbage.mind.id, { file: { bytes: vtt('Charles Babbage', 'Errors using inadequate data are much less than those using no data at all.'), name: 'b.vtt' }, digitalTwinId: babbage.digitalTwin.id });
      assert.equal(his.status, 200, JSON.stringify(his.body));
      assert.equal((await waitForSnapshot(s, babbage.mind.id, his.body.mindAssessmentId)).status, 'completed');
    });
  });

  test('GET /minds/{id}/snapshots lists the newest mindsetDate first, whatever the upload order, with its count', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Grace Hopper' })).body.mind;
    const dates = ['2019-06-01', '2023-01-15T09:30:00Z', '2011-03-10'];
    const ids = new Map<string, string>();
    for (const date of dates) {
      const res = await upload(s, mind.id, { file: { bytes: vtt('Grace Hopper', `On ${date} I said a ship in port is safe, but that is not what ships are built for.`), name: `${date.slice(0, 10)}.vtt` }, mindsetDate: date });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      ids.set(date, res.body.mindAssessmentId);
    }
    const list = (await s.api('GET', `/minds/${mind.id}/snapshots`)).body;
    assert.equal(list.count, 3);
    assert.equal(list.snapshots.length, 3);
    assert.deepEqual(list.snapshots.map((x: any) => x.mindsetDate), ['2023-01-15T09:30:00.000Z', '2019-06-01T00:00:00.000Z', '2011-03-10T00:00:00.000Z']);
    assert.deepEqual(list.snapshots.map((x: any) => x.id), [ids.get('2023-01-15T09:30:00Z'), ids.get('2019-06-01'), ids.get('2011-03-10')]);
    for (const id of ids.values()) assert.equal((await waitForSnapshot(s, mind.id, id)).status, 'completed');
    // Processing does not change the order.
    const after = (await s.api('GET', `/minds/${mind.id}/snapshots`)).body;
    assert.deepEqual(after.snapshots.map((x: any) => x.id), list.snapshots.map((x: any) => x.id));
  });

  describe('hostile files through the API', () => {
    const docxParts = [storedEntry('[Content_Types].xml', '<Types/>'), storedEntry('_rels/.rels', '<Relationships/>')];
    let mind: any;
    before(async () => {
      mind = (await s.api('POST', '/minds', { name: 'Mallory Hostile' })).body.mind;
    });

    /** Uploads a file that is accepted, then must end failed with `reason`, leaving no turns or analysis, and be deletable without trace. */
    async function failsCleanly(name: string, bytes: Uint8Array, kind: string, reason: RegExp) {
      const res = await upload(s, mind.id, { file: { bytes, name } });
      assert.equal(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
      const id = res.body.mindAssessmentId;
      const st = await waitForSnapshot(s, mind.id, id);
      assert.equal(st.status, 'failed', `${name}: ${JSON.stringify(st)}`);
      assert.match(st.error, reason, name);
      assert.doesNotMatch(st.error, /internal error|reference [0-9a-f]{8}|Error:|at \w+ \(/, `${name}: a reason for people, not a bug report`);
      assert.ok(st.completedAt, `${name}: settled`);

      const details = (await s.api('GET', `/minds/${mind.id}/snapshots/${id}?includeTranscript=true&includePsychometrics=true`)).body;
      assert.equal(details.artifact.kind, kind, name);
      assert.deepEqual([details.transcript, details.psychometrics, details.speakers, details.mindSpeaker, details.attributionNote], [[], [], [], null, null], name);
      assert.deepEqual([details.psychometricCount, details.keyTopicCount, details.findingCount], [0, 0, 0], name);
      for (const table of ['turns', 'psychometrics', 'key_topics', 'findings']) {
        assert.equal((await rows(s, sql`select count(*)::int as n from ${sql.identifier(table)} where snapshot_id = ${id}`))[0].n, 0, `${name}: ${table}`);
      }
      const [row] = await rows(s, sql`select attempts from snapshots where id = ${id}`);
      assert.equal(row.attempts, 1, `${name}: unreadable input is not retried`);
      const live = await rows(s, sql`select state from pgboss.job where data->>'snapshotId' = ${id} and state in ('created', 'retry', 'active')`);
      assert.deepEqual(live, [], `${name}: no job left to run`);
      assert.deepEqual(await tmpFiles(s), [], `${name}: no temp file left`);

      const files = await storedFiles(s);
      assert.equal((await s.api('DELETE', `/minds/${mind.id}/snapshots/${id}`)).status, 200);
      assert.equal((await storedFiles(s)).length, files.length - 1, `${name}: deleting the failed snapshot removes its file`);
      assert.equal((await rows(s, sql`select count(*)::int as n from artifacts where id = ${res.body.artifactId}`))[0].n, 0);
    }

    test('a DOCX zip bomb ends failed: “expands to more than 100 MB (zip bomb protection; decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB)”', async () => {
      // Declares 3 GB for word/document.xml; the "deflated" bytes are garbage, so only the
      // directory check can produce this message.
      const bomb = writeRawZip([...docxParts, { name: 'word/document.xml', stored: randomBytes(4096), method: 8, declaredUncompressedSize: 3_000_000_000 }]);
      await failsCleanly('minutes.docx', bomb, 'docx', /^The DOCX expands to more than 100 MB \(zip bomb protection; decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB\)$/);
    });

    test('a DOCX whose content compresses impossibly well ends failed as a zip bomb', async () => {
      const bomb = writeRawZip([...docxParts, { name: 'word/document.xml', stored: randomBytes(40_000), method: 8, declaredUncompressedSize: 40 * 1024 * 1024 }]);
      await failsCleanly('ratio.docx', bomb, 'docx', /zip bomb protection/);
    });

    test('a password-protected DOCX ends failed, saying to upload an unprotected copy', async () => {
      await failsCleanly('secret.docx', makeCfb(['EncryptionInfo', 'EncryptedPackage']), 'docx', /^The DOCX is encrypted \(password-protected\); save an unprotected copy and upload that$/);
      // ZipCrypto: the document entry itself flagged as encrypted.
      const zip = writeRawZip([...docxParts, storedEntry('word/document.xml', documentXml(['Mallory: you will never read this.']))]);
      zip.writeUInt16LE(1, zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 8);
      await failsCleanly('zipcrypto.docx', zip, 'docx', /^The DOCX is encrypted/);
    });

    test('a truncated PDF ends failed: “The PDF is damaged or truncated”', async () => {
      const full = await readFile(fixturePath('documents/pdf/scotus-17-1618_2a34.pdf'));
      await failsCleanly('argument.pdf', full.subarray(0, Math.floor(full.length / 2)), 'pdf', /^The PDF is damaged or truncated$/);
    });

    test('a PNG renamed .pdf is 400 “unsupported file type” at POST, and nothing is stored', async () => {
      const before = await holdings(s);
      const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex'), randomBytes(2048)]);
      const res = await upload(s, mind.id, { file: { bytes: png, name: 'transcript.pdf', type: 'application/pdf' } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.match(res.body.message, /unsupported file type/i);
      assert.match(res.body.message, /detected from the content, not the name/);
      assert.deepEqual(await holdings(s), before);
      assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots`)).body.count, 0);
    });

    test('after all of it, the service still processes a good file for the same mind', async () => {
      const res = await upload(s, mind.id, { file: { bytes: vtt('Mallory Hostile', 'After all that, here is an honest transcript at last, with real words in it.'), name: 'good.vtt' } });
      assert.equal(res.status, 200);
      assert.equal((await waitForSnapshot(s, mind.id, res.body.mindAssessmentId)).status, 'completed');
      const m = (await s.api('GET', `/minds/${mind.id}`)).body.mind;
      assert.equal(Number(m.snapshotCount), 1, 'the failed snapshots were deleted; only the good one counts');
    });
  });
});

/** A PUT on a connection of its own (not the fetch pool, which a stuck connection would poison): status, connection header, JSON body. */
function putAlone(url: string, body: Buffer, contentType: string): Promise<{ status: number; connection: string | undefined; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', agent: false, headers: { 'content-type': contentType, 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, connection: res.headers.connection, body: text ? JSON.parse(text) : null });
      });
    });
    // The server may answer before it has read the body, and then stop reading: do not wait for the write.
    req.on('error', reject);
    req.end(body);
  });
}

describe('a local signed-URL PUT over MINDPRINT_MAX_UPLOAD_MB', () => {
  let s: TestServer;
  let mind: any;
  let closed = false;
  const huge = Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ada Lovelace>' + 'numbers '.repeat(200_000) + '\n'); // 1.6 MB
  const signedUrl = async (fileName: string) => (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=${fileName}`)).body;
  before(async () => {
    s = await startTestServer({ MINDPRINT_MAX_UPLOAD_MB: '1' });
    mind = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
  });
  after(async () => {
    if (closed) return;
    // See the last test: without this, closing waits ~72 s for connections left after a 413.
    s.app.server.closeAllConnections();
    await s.close();
  });

  test('is 413; nothing is stored, the artifact cannot make a snapshot, and the URL still takes a file within the limit', async () => {
    const signed = await signedUrl('huge.vtt');
    assert.ok(signed.signedUrl, JSON.stringify(signed));
    const before = await holdings(s);
    const put = await putAlone(signed.signedUrl, huge, 'text/vtt');
    assert.equal(put.status, 413, JSON.stringify(put.body));
    assert.equal(put.body.code, 'PAYLOAD_TOO_LARGE');
    assert.match(put.body.message, /larger than the 1 MB limit/);

    assert.deepEqual(await holdings(s), before, 'no stored file and no temp file left');
    assert.ok(!(await storedFiles(s)).some((f) => f.includes(signed.artifactId)));
    const [artifact] = await rows(s, sql`select status, size, sha256 from artifacts where id = ${signed.artifactId}`);
    assert.deepEqual({ ...artifact }, { status: 'awaiting_upload', size: null, sha256: null });
    const refused = await upload(s, mind.id, { artifactId: signed.artifactId });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(refused.body.message, /not been uploaded/);
    assert.equal(await count(s, 'snapshots'), before.snapshots);

    const ok = await putAlone(signed.signedUrl, Buffer.from(VTT), 'text/vtt');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const res = await upload(s, mind.id, { artifactId: signed.artifactId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await waitForSnapshot(s, mind.id, res.body.mindAssessmentId)).status, 'completed');
  });

  test('after the 413, the client’s keep-alive connection answers its next request (or is closed)', async () => {
    const url = new URL((await signedUrl('again.vtt')).signedUrl);
    const sock = net.connect(Number(url.port), url.hostname);
    let received = '';
    let serverClosed = false;
    sock.on('data', (d) => (received += d));
    sock.on('end', () => (serverClosed = true));
    sock.on('error', () => (serverClosed = true));
    try {
      sock.write(`PUT ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/vtt\r\nContent-Length: ${huge.length}\r\n\r\n`);
      sock.write(huge);
      for (let i = 0; i < 100 && !/\r\n\r\n\{[^}]*\}/.test(received); i++) await sleep(50);
      assert.match(received, /^HTTP\/1\.1 413 /);
      const said = /\r\nconnection: (\S+)/i.exec(received)?.[1];
      sock.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
      for (let i = 0; i < 60 && !serverClosed && (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length < 2; i++) await sleep(50);
      const answered = (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 2;
      assert.ok(answered || (serverClosed && said === 'close'), `within 3 s the server neither answered GET /healthz on the connection it kept alive (connection: ${said}) nor closed it`);
    } finally {
      sock.destroy();
    }
  });

  test('after a 413 to a keep-alive client that then hangs up, the server still shuts down promptly', async () => {
    const url = new URL((await signedUrl('last.vtt')).signedUrl);
    const sock = net.connect(Number(url.port), url.hostname);
    let received = '';
    sock.on('data', (d) => (received += d));
    sock.on('error', () => {});
    sock.write(`PUT ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/vtt\r\nContent-Length: ${huge.length}\r\n\r\n`);
    sock.write(huge);
    for (let i = 0; i < 100 && !received.includes('PAYLOAD_TOO_LARGE'); i++) await sleep(50);
    assert.match(received, /^HTTP\/1\.1 413 /);
    sock.destroy();
    const started = Date.now();
    const closing = s.close().then(() => (closed = true));
    await Promise.race([closing, sleep(10_000)]);
    const tookMs = Date.now() - started;
    if (!closed) {
      s.app.server.closeAllConnections();
      await closing;
    }
    assert.ok(tookMs < 10_000, `stop() had not returned ${tookMs} ms after it was called`);
  });
});
