import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signUploadToken } from '../../src/storage/index.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startTestS3Server } from '../storage/s3-server.ts';
import { dataFile, upload, waitForSnapshot } from './support.ts';

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
    // Not yet uploaded: the artifact cannot make a snapshot.
    const early = await upload(s, mind.id, { artifactId: signed.artifactId });
    assert.equal(early.status, 400);
    assert.match(early.body.message, /not been uploaded/);
    // Content is sniffed on upload too; the URL stays usable for a correct file.
    const png = await put(signed.signedUrl, Buffer.from('89504e470d0a1a0a', 'hex'), 'text/vtt');
    assert.equal(png.status, 400);
    assert.equal((await put(signed.signedUrl, VTT, 'text/vtt')).status, 200);
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

describe('S3-compatible storage', () => {
  test('uploads, processing, presigned URLs and deletion work against a real S3 server', async () => {
    const s3 = await startTestS3Server();
    const s = await startTestServer(s3.env);
    try {
      const mind = (await s.api('POST', '/minds', { name: 'Dana Scully' })).body.mind;
      const direct = await upload(s, mind.id, { file: { bytes: await dataFile('documents/docx/mom-generator-sample-transcript.docx'), name: 'meeting.docx' } });
      assert.equal(direct.status, 200, JSON.stringify(direct.body));
      assert.equal((await waitForSnapshot(s, mind.id, direct.body.mindAssessmentId)).status, 'completed');

      const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=s3.vtt`)).body;
      assert.ok(signed.signedUrl.startsWith(s3.endpoint), 'a presigned S3 URL');
      assert.equal((await fetch(signed.signedUrl, { method: 'PUT', body: VTT, headers: { 'content-type': 'text/vtt' } })).status, 200);
      const fromArtifact = await upload(s, mind.id, { artifactId: signed.artifactId });
      assert.equal(fromArtifact.status, 200, JSON.stringify(fromArtifact.body));
      assert.equal((await waitForSnapshot(s, mind.id, fromArtifact.body.mindAssessmentId)).status, 'completed');

      assert.equal((await s.api('DELETE', `/minds/${mind.id}`)).status, 200);
      const { sql } = await import('drizzle-orm');
      const left = (await s.ctx.db.execute(sql`select count(*)::int as n from artifacts`)) as any;
      assert.equal(left.rows[0].n, 0);
      assert.equal(await s.ctx.store.stat(`org/${mind.organizationId}/mind/${mind.id}/${signed.artifactId}`), null, 'the object is gone from S3');
    } finally {
      await s.close();
      await s3.close();
    }
  });
});
