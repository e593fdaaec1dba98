import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  ArtifactNotFoundError,
  InvalidArtifactKeyError,
  PayloadTooLargeError,
  S3ArtifactStore,
  createArtifactStore,
} from '../../../src/platform/storage/index.ts';
import { startTestS3Server, type TestS3Server } from './s3-server.ts';
import { checkSigV4 } from './sigv4.ts';

// s3rver (see s3-server.ts) behind our own SigV4 check: protocol and signatures are both real.
let s3: TestS3Server;
let store: S3ArtifactStore;
const PREFIX = 'tenant-a/artifacts';

before(async () => {
  s3 = await startTestS3Server();
  store = createArtifactStore({
    storageUrl: `s3://${s3.bucket}/${PREFIX}/`,
    dataDir: '/nonexistent-never-used-in-s3-mode',
    signingSecret: 'unused-in-s3-mode',
    env: s3.env,
  }) as S3ArtifactStore;
  assert.equal(store.kind, 's3');
});

after(async () => {
  await store?.close();
  await s3?.close();
});

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `count` chunks of `size` bytes, generated lazily; records how many were pulled. */
function chunkedStream(count: number, size: number): { stream: Readable; pulled: () => number; expectedSha: () => string } {
  let pulled = 0;
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < count; i++) {
        pulled++;
        yield Buffer.alloc(size, i % 251);
      }
    })(),
  );
  const expectedSha = () => {
    const h = createHash('sha256');
    for (let i = 0; i < count; i++) h.update(Buffer.alloc(size, i % 251));
    return h.digest('hex');
  };
  return { stream, pulled: () => pulled, expectedSha };
}

async function objectKeysInBucket(): Promise<string[]> {
  const listed = await store.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

test('put, stat, withLocalFile and delete a small object under the prefix', async () => {
  const key = 'org/o1/mind/m1/small';
  const stored = await store.put(key, Readable.from([Buffer.from('WEBVTT\n\n'), Buffer.from('hello')]), { contentType: 'text/vtt', maxBytes: 1000 });
  assert.deepEqual(stored, { size: 13, sha256: sha256('WEBVTT\n\nhello') });
  assert.deepEqual(await store.stat(key), { size: 13 });
  assert.ok((await objectKeysInBucket()).includes(`${PREFIX}/${key}`));

  const got = await store.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}/${key}` }));
  assert.equal(got.ContentType, 'text/vtt');

  let tempPath = '';
  const text = await store.withLocalFile(key, async (p) => {
    tempPath = p;
    return readFile(p, 'utf8');
  });
  assert.equal(text, 'WEBVTT\n\nhello');
  await assert.rejects(stat(tempPath), { code: 'ENOENT' }, 'temp download removed afterwards');

  await store.delete(key);
  assert.equal(await store.stat(key), null);
  await store.delete(key); // missing key is not an error
});

test('a body larger than one part streams as a multipart upload', async () => {
  const key = 'org/o1/mind/m1/large';
  const { stream, expectedSha } = chunkedStream(12, 1024 * 1024); // 12 MiB: three 5 MiB parts
  const stored = await store.put(key, stream, { contentType: 'application/pdf', maxBytes: 20 * 1024 * 1024 });
  assert.deepEqual(stored, { size: 12 * 1024 * 1024, sha256: expectedSha() });
  assert.deepEqual(await store.stat(key), { size: 12 * 1024 * 1024 });
  const downloadedSha = await store.withLocalFile(key, async (p) => sha256(await readFile(p)));
  assert.equal(downloadedSha, expectedSha());
  await store.delete(key);
});

test('past maxBytes in a single-part body nothing is stored', async () => {
  const key = 'org/o1/mind/m1/too-big-small';
  const { stream } = chunkedStream(10, 1000);
  await assert.rejects(store.put(key, stream, { contentType: 'text/plain', maxBytes: 4999 }), PayloadTooLargeError);
  stream.destroy();
  assert.equal(await store.stat(key), null);
});

test('past maxBytes during a multipart upload it stops reading and nothing is stored', async () => {
  const key = 'org/o1/mind/m1/too-big-multipart';
  const { stream, pulled } = chunkedStream(64, 1024 * 1024); // offers 64 MiB
  await assert.rejects(store.put(key, stream, { contentType: 'text/plain', maxBytes: 11 * 1024 * 1024 }), PayloadTooLargeError);
  assert.ok(pulled() < 20, `pulled ${pulled()} MiB of 64`);
  stream.destroy();
  assert.equal(await store.stat(key), null);
  assert.ok(!(await objectKeysInBucket()).includes(`${PREFIX}/${key}`));
});

test('putFile uploads a spooled file and removes it', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mindprint-s3-spool-'));
  try {
    const spool = path.join(dir, 'upload.tmp');
    await writeFile(spool, 'spooled transcript');
    const stored = await store.putFile('org/o1/mind/m1/spooled', spool, { contentType: 'text/plain' });
    assert.deepEqual(stored, { size: 18, sha256: sha256('spooled transcript') });
    await assert.rejects(stat(spool), { code: 'ENOENT' });
    assert.equal(await store.withLocalFile('org/o1/mind/m1/spooled', (p) => readFile(p, 'utf8')), 'spooled transcript');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('deletePrefix deletes every object under a folder (over several list pages) and nothing else', async () => {
  const keys = Array.from({ length: 12 }, (_, i) => `org/o2/mind/m1/${i % 2 ? 'incoming/' : ''}a${i}`);
  for (const key of [...keys, 'org/o2/mind/m10/keep', 'org/o2/mind/m2/keep']) await store.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain', maxBytes: 10 });
  const client = store.client as { send: (command: unknown) => Promise<unknown> };
  const send = client.send.bind(client);
  // s3rver answers 500 to MaxKeys, so split its one listing into two pages here, to follow the
  // continuation token as with a large folder on real S3.
  const pages: string[] = [];
  let lastOfFirstPage = '';
  client.send = async (command: any) => {
    if (!(command instanceof ListObjectsV2Command)) return send(command);
    const all = (await send(new ListObjectsV2Command({ ...command.input, ContinuationToken: undefined }))) as { Contents?: { Key?: string }[] };
    const contents = all.Contents ?? [];
    pages.push(command.input.ContinuationToken ?? 'first');
    if (command.input.ContinuationToken === 'page-2') return { Contents: contents.filter((o) => o.Key! > lastOfFirstPage), IsTruncated: false };
    lastOfFirstPage = contents[4]!.Key!;
    return { Contents: contents.slice(0, 5), IsTruncated: true, NextContinuationToken: 'page-2' };
  };
  try {
    await store.deletePrefix('org/o2/mind/m1/');
  } finally {
    client.send = send;
  }
  assert.deepEqual(pages, ['first', 'page-2']);
  const left = (await objectKeysInBucket()).filter((k) => k.startsWith(`${PREFIX}/org/o2/`)).sort();
  assert.deepEqual(left, [`${PREFIX}/org/o2/mind/m10/keep`, `${PREFIX}/org/o2/mind/m2/keep`]);
  await assert.rejects(store.deletePrefix('org/o2'), InvalidArtifactKeyError);
});

test('list gives every object under a prefix without the store prefix, over several pages', async () => {
  const keys = Array.from({ length: 7 }, (_, i) => `org/o3/mind/m1/${i % 2 ? 'incoming/' : ''}a${i}`);
  for (const key of [...keys, 'org/o3/mind/m10/other']) await store.put(key, Readable.from([Buffer.from('xy')]), { contentType: 'text/plain', maxBytes: 10 });
  const client = store.client as { send: (command: unknown) => Promise<unknown> };
  const send = client.send.bind(client);
  // Two pages, as in the deletePrefix test (s3rver answers 500 to MaxKeys).
  const pages: string[] = [];
  client.send = async (command: any) => {
    if (!(command instanceof ListObjectsV2Command)) return send(command);
    const contents = ((await send(new ListObjectsV2Command({ ...command.input, ContinuationToken: undefined }))) as { Contents?: object[] }).Contents ?? [];
    pages.push(command.input.ContinuationToken ?? 'first');
    if (command.input.ContinuationToken === 'page-2') return { Contents: contents.slice(3), IsTruncated: false };
    return { Contents: contents.slice(0, 3), IsTruncated: true, NextContinuationToken: 'page-2' };
  };
  const listed = [];
  try {
    for await (const o of store.list('org/o3/mind/m1/')) listed.push(o);
  } finally {
    client.send = send;
  }
  assert.deepEqual(pages, ['first', 'page-2']);
  assert.deepEqual(listed.map((o) => o.key).sort(), [...keys].sort());
  for (const o of listed) {
    assert.equal(o.size, 2);
    assert.ok(Math.abs(o.lastModified.getTime() - Date.now()) < 60_000, 'LastModified is when it was written');
  }
  await assert.rejects(async () => {
    for await (const _ of store.list('org/o3')) break;
  }, InvalidArtifactKeyError);
});

test('missing objects and bad keys', async () => {
  assert.equal(await store.stat('org/o1/nothing'), null);
  await assert.rejects(store.withLocalFile('org/o1/nothing', async () => 1), ArtifactNotFoundError);
  await assert.rejects(store.put('../x', Readable.from([]), { contentType: 'text/plain', maxBytes: 1 }), InvalidArtifactKeyError);
  await assert.rejects(store.stat('a//b'), InvalidArtifactKeyError);
});

test('a presigned PUT URL works with fetch, binds its Content-Type and carries no checksum', async () => {
  const key = 'org/o1/mind/m1/presigned';
  const before = Date.now();
  const { url, expiresAt } = await store.createUploadUrl({
    key,
    artifactId: 'a1',
    organizationId: 'o1',
    contentType: 'text/vtt',
    maxBytes: 1000,
    expiresInSeconds: 300,
    publicBaseUrl: 'http://unused.example',
  });
  assert.ok(expiresAt.getTime() >= before + 300_000 && expiresAt.getTime() <= Date.now() + 300_000);
  const parsed = new URL(url);
  assert.equal(parsed.origin, s3.endpoint);
  assert.equal(parsed.pathname, `/${s3.bucket}/${PREFIX}/${key}`);
  assert.equal(parsed.searchParams.get('X-Amz-Expires'), '300');
  assert.deepEqual(parsed.searchParams.get('X-Amz-SignedHeaders')?.split(';'), ['content-type', 'host']);
  for (const name of parsed.searchParams.keys()) {
    assert.doesNotMatch(name.toLowerCase(), /checksum/, `no checksum parameter, got ${name}`);
  }

  // Another Content-Type breaks the signature (checked by the test server's SigV4 verifier).
  const wrongType = await fetch(url, { method: 'PUT', body: 'WEBVTT\n', headers: { 'content-type': 'application/pdf' } });
  assert.equal(wrongType.status, 403);
  assert.match(await wrongType.text(), /SignatureDoesNotMatch/);

  // So does pointing it at another key.
  const otherKey = new URL(url);
  otherKey.pathname = otherKey.pathname.replace('presigned', 'elsewhere');
  const moved = await fetch(otherKey, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/vtt' } });
  assert.equal(moved.status, 403);
  await moved.arrayBuffer();

  const body = 'WEBVTT\n\n00:00.000 --> 00:01.000\n<v Ana>Hello\n';
  const ok = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'text/vtt' } });
  assert.equal(ok.status, 200, await ok.text());
  assert.deepEqual(await store.stat(key), { size: Buffer.byteLength(body) });
  assert.equal(await store.withLocalFile(key, (p) => readFile(p, 'utf8')), body);
  assert.equal(await store.stat('org/o1/mind/m1/elsewhere'), null);
});

test('the test server refuses requests signed with the wrong secret', async () => {
  const wrong = createArtifactStore({
    storageUrl: `s3://${s3.bucket}`,
    dataDir: '/unused',
    signingSecret: 'unused',
    env: { ...s3.env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' },
  });
  try {
    await assert.rejects(wrong.put('org/o1/forged', Readable.from([Buffer.from('x')]), { contentType: 'text/plain', maxBytes: 10 }), (err: Error) => {
      return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 403;
    });
    const { url } = await wrong.createUploadUrl({ key: 'org/o1/forged', artifactId: 'a', organizationId: 'o', contentType: 'text/plain', maxBytes: 1, expiresInSeconds: 60, publicBaseUrl: '' });
    const res = await fetch(url, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(res.status, 403);
    await res.arrayBuffer();
    assert.equal(await store.stat('org/o1/forged'), null);
  } finally {
    await wrong.close?.();
  }
});

test('the SigV4 check refuses a presigned URL after its expiry', async () => {
  const { url } = await store.createUploadUrl({ key: 'org/o1/late', artifactId: 'a', organizationId: 'o', contentType: 'text/plain', maxBytes: 1, expiresInSeconds: 60, publicBaseUrl: '' });
  const u = new URL(url);
  const req = { method: 'PUT', url: u.pathname + u.search, headers: { host: u.host, 'content-type': 'text/plain' } };
  const secretFor = (id: string) => (id === s3.env.AWS_ACCESS_KEY_ID ? s3.env.AWS_SECRET_ACCESS_KEY : undefined);
  assert.equal(checkSigV4(req, secretFor), null);
  assert.equal(checkSigV4(req, secretFor, Date.now() + 61_000), 'presigned URL expired');
});
