import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { sql } from 'drizzle-orm';
import { signUploadToken, type S3ArtifactStore } from '../../../src/platform/storage/index.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { startTestS3Server } from '../../platform/storage/s3-server.ts';
import { fixtureFile, rows, storedFiles, upload, waitForSnapshot } from './support.ts';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

async function artifactRow(s: TestServer, id: string): Promise<any> {
  return (await rows(s, sql`select status, storage_key, sha256, size from artifacts where id = ${id}`))[0];
}

const exists = (p: string) => stat(p).then(() => true, () => false);

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Interviewer>What do you care about most in your work?\n\n00:00:04.000 --> 00:00:09.000\n<v Dana Scully>I care about evidence. I never accept a claim I cannot test myself.\n';

async function put(url: string, body: string | Uint8Array, contentType: string) {
  const res = await fetch(url, { method: 'PUT', body: body as BodyInit, headers: { 'content-type': contentType } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('signed upload URLs (local store)', () => {
  let s: TestServer;
  let mind: any;
  before(async () => {
    s = await startTestServer();
    mind = (await s.api('POST', '/minds', { name: 'Dana Scully' })).body.mind;
  });
  after(() => s.close());

  test('get a URL, PUT the bytes once, create the snapshot from the artifact', async () => {
    const signed = await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=interview.vtt`);
    assert.equal(signed.status, 200);
    assert.deepEqual(Object.keys(signed.body).sort(), ['artifactId', 'contentType', 'expiresAt', 'fileName', 'signedUrl']);
    assert.ok(new Date(signed.body.expiresAt).getTime() > Date.now());
    const first = await put(signed.body.signedUrl, VTT, 'text/vtt');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.artifactId, signed.body.artifactId);
    const again = await put(signed.body.signedUrl, VTT, 'text/vtt');
    assert.equal(again.status, 403, 'a signed URL works once');
    const res = await upload(s, mind.id, { artifactId: signed.body.artifactId, mindsetDate: '2024-05-01T10:00:00Z' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.artifactId, signed.body.artifactId);
    const st = await waitForSnapshot(s, mind.id, res.body.mindAssessmentId);
    assert.equal(st.status, 'completed', st.error);
    const details = (await s.api('GET', `/minds/${mind.id}/snapshots/${res.body.mindAssessmentId}`)).body;
    assert.equal(details.mindSpeaker, 'Dana Scully');
    assert.equal(details.artifact.fileName, 'interview.vtt');
  });

  test('tampered, expired, retargeted or wrongly typed URLs are 403 and store nothing', async () => {
    const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=a.vtt`)).body;
    const url = new URL(signed.signedUrl);
    const token = url.pathname.split('/').pop()!;
    const [payload, sig] = token.split('.');
    // Change one character of the signature (never to itself: that would be no tampering at all).
    const changed = sig!.at(-2) === 'A' ? 'B' : 'A';
    const flipped = `${url.origin}/uploads/${payload}.${sig!.slice(0, -2)}${changed}${sig!.slice(-1)}`;
    assert.equal((await put(flipped, VTT, 'text/vtt')).status, 403);
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const retarget = Buffer.from(JSON.stringify({ ...claims, maxBytes: claims.maxBytes * 10 })).toString('base64url');
    assert.equal((await put(`${url.origin}/uploads/${retarget}.${sig}`, VTT, 'text/vtt')).status, 403);
    const expired = signUploadToken({ ...claims, expiresAt: Date.now() - 1000 }, s.ctx.signingSecret);
    const exp = await put(`${url.origin}/uploads/${expired}`, VTT, 'text/vtt');
    assert.equal(exp.status, 403);
    assert.match(exp.body.message, /expired/);
    assert.equal((await put(signed.signedUrl, VTT, 'application/pdf')).status, 403);
    // Nothing of any refused PUT was stored, and the URL is still unused.
    assert.ok(!(await storedFiles(s)).some((f) => f.endsWith(signed.artifactId)), 'no file for the artifact');
    assert.equal((await artifactRow(s, signed.artifactId)).status, 'awaiting_upload');
    assert.deepEqual(await readdir(path.join(s.config.dataDir, 'tmp')).catch(() => []), [], 'no spooled temp file left');
    // Not yet uploaded: the artifact cannot make a snapshot.
    const early = await upload(s, mind.id, { artifactId: signed.artifactId });
    assert.equal(early.status, 400);
    assert.match(early.body.message, /not been uploaded/);
    // Content is sniffed on upload too; the URL stays usable for a correct file.
    const png = await put(signed.signedUrl, Buffer.from('89504e470d0a1a0a', 'hex'), 'text/vtt');
    assert.equal(png.status, 400);
    assert.ok(!(await storedFiles(s)).some((f) => f.endsWith(signed.artifactId)), 'the refused content was not stored');
    const good = await put(signed.signedUrl, VTT, 'text/vtt');
    assert.equal(good.status, 200);
    assert.equal(good.body.sha256, sha256(VTT));
  });

  test('two snapshots of one artifact: deleting one keeps the file, deleting the other removes it', async () => {
    const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=shared.vtt`)).body;
    assert.equal((await put(signed.signedUrl, VTT, 'text/vtt')).status, 200);
    const file = path.join(s.config.dataDir, 'artifacts', (await artifactRow(s, signed.artifactId)).storage_key);
    const ids: string[] = [];
    for (const date of ['2024-01-01', '2024-06-01']) {
      const res = await upload(s, mind.id, { artifactId: signed.artifactId, mindsetDate: date });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      ids.push(res.body.mindAssessmentId);
      assert.equal((await waitForSnapshot(s, mind.id, res.body.mindAssessmentId)).status, 'completed');
    }
    assert.equal((await s.api('DELETE', `/minds/${mind.id}/snapshots/${ids[0]}`)).status, 200);
    assert.ok(await exists(file), 'still used by the other snapshot');
    assert.ok(await artifactRow(s, signed.artifactId));
    assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots/${ids[1]}?includeTranscript=true`)).body.transcript.length, 2);
    assert.equal((await s.api('DELETE', `/minds/${mind.id}/snapshots/${ids[1]}`)).status, 200);
    assert.ok(!(await exists(file)), 'the last user took the file with it');
    assert.equal(await artifactRow(s, signed.artifactId), undefined);
  });

  test('a URL whose mind was deleted is no longer valid; a mind deleted during an upload leaves no file or folder', async () => {
    const doomed = (await s.api('POST', '/minds', { name: 'Doomed Mind' })).body.mind;
    const folder = path.join(s.config.dataDir, 'artifacts', 'org', doomed.organizationId, 'mind', doomed.id);
    const before = (await s.api('GET', `/minds/${doomed.id}/signed-url?contentType=text/vtt&fileName=a.vtt`)).body;
    const used = (await s.api('GET', `/minds/${doomed.id}/signed-url?contentType=text/vtt&fileName=b.vtt`)).body;
    assert.equal((await put(used.signedUrl, VTT, 'text/vtt')).status, 200);
    assert.ok(await exists(folder));

    // A PUT in flight: its artifact is claimed, then the mind goes, then the last bytes arrive.
    const inFlight = (await s.api('GET', `/minds/${doomed.id}/signed-url?contentType=text/vtt&fileName=c.vtt`)).body;
    let finish!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(VTT.slice(0, 40)));
        finish = () => {
          controller.enqueue(new TextEncoder().encode(VTT.slice(40)));
          controller.close();
        };
      },
    });
    const pending = fetch(inFlight.signedUrl, { method: 'PUT', body, headers: { 'content-type': 'text/vtt' }, duplex: 'half' } as RequestInit);
    for (let i = 0; i < 200 && (await artifactRow(s, inFlight.artifactId))?.status !== 'uploading'; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await artifactRow(s, inFlight.artifactId)).status, 'uploading');
    const early = await upload(s, doomed.id, { artifactId: inFlight.artifactId });
    assert.equal(early.status, 409, 'its bytes are still arriving');
    assert.match(early.body.message, /still being received or checked/);

    assert.equal((await s.api('DELETE', `/minds/${doomed.id}`)).status, 200);
    assert.ok(!(await exists(folder)), 'the mind’s folder is gone, not left empty');
    finish();
    const late = await pending;
    assert.equal(late.status, 403);
    assert.match((await late.json()).message, /no longer valid/);
    assert.ok(!(await exists(folder)), 'the late file was removed, and its folder with it');
    assert.ok(!(await storedFiles(s)).some((f) => f.includes(doomed.id)));

    const after = await put(before.signedUrl, VTT, 'text/vtt');
    assert.equal(after.status, 403);
    assert.match(after.body.message, /no longer valid: its artifact or mind was deleted/);
    assert.ok(!(await exists(folder)));
  });

  test('the OpenAPI document places PUT /uploads/{token} at the root, outside the API base path', async () => {
    const doc = (await s.api('GET', '/openapi.json')).body;
    assert.deepEqual(doc.servers, [{ url: '/api/svc' }]);
    assert.deepEqual(doc.paths['/uploads/{token}'].put.servers, [{ url: '/' }]);
    const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=a.vtt`)).body;
    assert.equal(new URL(signed.signedUrl).pathname.split('/').slice(0, 2).join('/'), '/uploads');
  });

  test('bad signed-url requests', async () => {
    assert.equal((await s.api('GET', `/minds/${mind.id}/signed-url?contentType=image/png&fileName=a.png`)).status, 400);
    assert.equal((await s.api('GET', `/minds/${mind.id}/signed-url?fileName=a.vtt`)).status, 400);
    assert.equal((await s.api('GET', `/minds/00000000-0000-4000-8000-000000000000/signed-url?contentType=text/vtt&fileName=a.vtt`)).status, 404);
    const other = await s.newKey('elsewhere', 'x@elsewhere.test');
    const theirMind = (await s.api('POST', '/minds', { name: 'Theirs' }, other.key)).body.mind;
    const theirs = (await s.api('GET', `/minds/${theirMind.id}/signed-url?contentType=text/vtt&fileName=a.vtt`, undefined, other.key)).body;
    await put(theirs.signedUrl, VTT, 'text/vtt');
    const foreign = await upload(s, mind.id, { artifactId: theirs.artifactId });
    assert.equal(foreign.status, 400, 'another organization’s artifact is unknown here');
  });
});

/** A GET with a Host of the test's choosing (fetch always sends the URL's own host). */
function getWithHost(url: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('signed upload URLs and the Host header', () => {
  let s: TestServer;
  let mind: any;
  before(async () => {
    s = await startTestServer();
    mind = (await s.api('POST', '/minds', { name: 'Dana Scully' })).body.mind;
  });
  after(() => s.close());

  test('without MINDPRINT_PUBLIC_URL a poisoned Host is refused (400 naming the setting) and creates no artifact; a Host the server listens on is used', async () => {
    const url = `${s.base}/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=a.vtt`;
    const port = new URL(s.url).port;
    const count = async () => Number((await rows(s, sql`select count(*)::int as n from artifacts`))[0].n);
    const before = await count();
    for (const host of ['attacker.example', `attacker.example:${port}`, `127.0.0.1:${Number(port) + 1}`, `127.0.0.1:${port}@attacker.example`]) {
      const res = await getWithHost(url, { host, authorization: `Bearer ${s.key}` });
      assert.equal(res.status, 400, host);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.equal(res.body.field, 'headers.host');
      assert.match(res.body.message, /MINDPRINT_PUBLIC_URL/);
      assert.doesNotMatch(JSON.stringify(res.body), /signedUrl/);
    }
    // Not taken from X-Forwarded-Host either (MINDPRINT_TRUST_PROXY is off).
    const forwarded = await getWithHost(url, { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'attacker.example', authorization: `Bearer ${s.key}` });
    assert.equal(forwarded.status, 200);
    assert.ok(forwarded.body.signedUrl.startsWith(`http://127.0.0.1:${port}/uploads/`), forwarded.body.signedUrl);
    const local = await getWithHost(url, { host: `localhost:${port}`, authorization: `Bearer ${s.key}` });
    assert.equal(local.status, 200);
    assert.ok(local.body.signedUrl.startsWith(`http://localhost:${port}/uploads/`), local.body.signedUrl);
    assert.equal(await count(), before + 2, 'only the two good requests created artifacts');
  });

  test('MINDPRINT_PUBLIC_URL is the URL’s base whatever the Host says', async () => {
    const other = await startTestServer({ MINDPRINT_PUBLIC_URL: 'https://mindprint.example.org/' });
    try {
      const m = (await other.api('POST', '/minds', { name: 'Fox Mulder' })).body.mind;
      const res = await getWithHost(`${other.base}/minds/${m.id}/signed-url?contentType=text/vtt&fileName=a.vtt`, { host: 'attacker.example', authorization: `Bearer ${other.key}` });
      assert.equal(res.status, 200);
      assert.ok(res.body.signedUrl.startsWith('https://mindprint.example.org/uploads/'), res.body.signedUrl);
    } finally {
      await other.close();
    }
  });
});

describe('S3-compatible storage', () => {
  let s3: Awaited<ReturnType<typeof startTestS3Server>>;
  let s: TestServer;
  let mind: any;
  const objectKeys = async (prefix = '') =>
    ((await (s.ctx.store as S3ArtifactStore).client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);
  const putS3 = (url: string, body: string | Uint8Array, type = 'text/vtt') => fetch(url, { method: 'PUT', body: body as BodyInit, headers: { 'content-type': type } }).then(async (r) => ({ status: r.status, text: await r.text() }));
  before(async () => {
    s3 = await startTestS3Server();
    s = await startTestServer({ ...s3.env, MINDPRINT_MAX_UPLOAD_MB: '1' });
    mind = (await s.api('POST', '/minds', { name: 'Dana Scully' })).body.mind;
  });
  after(async () => {
    await s?.close();
    await s3?.close();
  });

  test('uploads, processing, presigned URLs and deletion work against a real S3 server', async () => {
    const docx = await fixtureFile('documents/docx/meeting.docx');
    const direct = await upload(s, mind.id, { file: { bytes: docx, name: 'meeting.docx' } });
    assert.equal(direct.status, 200, JSON.stringify(direct.body));
    assert.equal((await waitForSnapshot(s, mind.id, direct.body.mindAssessmentId)).status, 'completed');
    assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots/${direct.body.mindAssessmentId}`)).body.artifact.sha256, sha256(docx));

    const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=s3.vtt`)).body;
    assert.ok(signed.signedUrl.startsWith(s3.endpoint), 'a presigned S3 URL');
    assert.equal((await putS3(signed.signedUrl, VTT)).status, 200);
    const fromArtifact = await upload(s, mind.id, { artifactId: signed.artifactId });
    assert.equal(fromArtifact.status, 200, JSON.stringify(fromArtifact.body));
    assert.equal((await waitForSnapshot(s, mind.id, fromArtifact.body.mindAssessmentId)).status, 'completed');
    const details = (await s.api('GET', `/minds/${mind.id}/snapshots/${fromArtifact.body.mindAssessmentId}`)).body;
    assert.equal(details.artifact.sha256, sha256(VTT), 'hashed when the upload was first used');
    assert.equal(details.artifact.size, Buffer.byteLength(VTT));
    assert.equal(details.artifact.kind, 'vtt');

    assert.equal((await s.api('DELETE', `/minds/${mind.id}`)).status, 200);
    const left = (await s.ctx.db.execute(sql`select count(*)::int as n from artifacts`)) as any;
    assert.equal(left.rows[0].n, 0);
    assert.deepEqual(await objectKeys(`org/${mind.organizationId}/mind/${mind.id}/`), [], 'every object of the mind is gone from S3');
    mind = (await s.api('POST', '/minds', { name: 'Dana Scully' })).body.mind;
  });

  test('a replayed presigned PUT cannot change the artifact a snapshot used', async () => {
    const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=once.vtt`)).body;
    assert.equal((await putS3(signed.signedUrl, VTT)).status, 200);
    const first = await upload(s, mind.id, { artifactId: signed.artifactId });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((await waitForSnapshot(s, mind.id, first.body.mindAssessmentId)).status, 'completed');
    const row = await artifactRow(s, signed.artifactId);

    // S3 cannot revoke the URL: the replay succeeds, but only writes the incoming key.
    const forged = VTT.replace('I care about evidence.', 'I believe anything I am told.');
    assert.equal((await putS3(signed.signedUrl, forged)).status, 200);
    assert.equal(await s.ctx.store.withLocalFile(row.storage_key, (p) => readFile(p, 'utf8')), VTT, 'the artifact’s bytes are unchanged');
    const second = await upload(s, mind.id, { artifactId: signed.artifactId });
    assert.equal(second.status, 200);
    assert.equal((await waitForSnapshot(s, mind.id, second.body.mindAssessmentId)).status, 'completed');
    const transcript = (await s.api('GET', `/minds/${mind.id}/snapshots/${second.body.mindAssessmentId}?includeTranscript=true`)).body.transcript;
    assert.ok(transcript.some((t: any) => t.text.includes('I care about evidence.')));
    assert.ok(!transcript.some((t: any) => t.text.includes('anything I am told')));
    assert.deepEqual(await artifactRow(s, signed.artifactId), row);

    // Deleting the last snapshot of the artifact deletes both keys, the replayed one included.
    for (const id of [first.body.mindAssessmentId, second.body.mindAssessmentId]) await s.api('DELETE', `/minds/${mind.id}/snapshots/${id}`);
    assert.deepEqual((await objectKeys()).filter((k) => k.includes(signed.artifactId)), []);
  });

  test('an oversize presigned upload is 413 at snapshot creation and deleted; an unsupported type is 400 and deleted', async () => {
    const big = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=big.vtt`)).body;
    assert.equal((await putS3(big.signedUrl, 'WEBVTT\n\n00:00.000 --> 00:01.000\n' + 'words '.repeat(300_000))).status, 200, 'S3 cannot bound the size');
    const tooBig = await upload(s, mind.id, { artifactId: big.artifactId });
    assert.equal(tooBig.status, 413, JSON.stringify(tooBig.body));
    assert.deepEqual((await objectKeys()).filter((k) => k.includes(big.artifactId)), [], 'the object was deleted');
    assert.equal((await artifactRow(s, big.artifactId)).status, 'awaiting_upload');

    const png = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=pic.vtt`)).body;
    assert.equal((await putS3(png.signedUrl, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).status, 200);
    const refused = await upload(s, mind.id, { artifactId: png.artifactId });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /Unsupported file type/);
    assert.deepEqual((await objectKeys()).filter((k) => k.includes(png.artifactId)), []);
    // The URL still works for a corrected upload until it expires.
    assert.equal((await putS3(png.signedUrl, VTT)).status, 200);
    const fixed = await upload(s, mind.id, { artifactId: png.artifactId });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal((await artifactRow(s, png.artifactId)).sha256, sha256(VTT));
  });
});
