import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  ArtifactNotFoundError,
  InvalidArtifactKeyError,
  LocalArtifactStore,
  PayloadTooLargeError,
  createArtifactStore,
  verifyUploadToken,
} from '../../../src/platform/storage/index.ts';

const SECRET = 'test-secret-test-secret-test-secret';
const KEY = 'org/o1/mind/m1/a1';

async function withStore(fn: (store: LocalArtifactStore, dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mindprint-local-store-'));
  try {
    const store = createArtifactStore({ dataDir, signingSecret: SECRET });
    assert.equal(store.kind, 'local');
    await fn(store as LocalArtifactStore, dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Every file under dir, relative, including hidden temp files. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name))).sort();
}

/** A small stream body made of the given parts. */
function body(...parts: string[]): Readable {
  return Readable.from(parts.map((p) => Buffer.from(p)));
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A stream of `count` chunks of `size` bytes; records how many chunks were pulled from it. */
function chunkedStream(count: number, size: number): { stream: Readable; pulled: () => number } {
  let pulled = 0;
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < count; i++) {
        pulled++;
        yield Buffer.alloc(size, i % 256);
      }
    })(),
  );
  return { stream, pulled: () => pulled };
}

test('put streams a body to disk, returning its size and sha256', async () => {
  await withStore(async (store, dataDir) => {
    const { stream } = chunkedStream(40, 64 * 1024);
    const expected = Buffer.concat(Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * 1024, i)));
    const stored = await store.put(KEY, stream, { contentType: 'text/vtt', maxBytes: 10 * 1024 * 1024 });
    assert.deepEqual(stored, { size: expected.length, sha256: sha256(expected) });
    const onDisk = await readFile(path.join(dataDir, 'artifacts', KEY));
    assert.ok(onDisk.equals(expected));
    assert.deepEqual(await store.stat(KEY), { size: expected.length });
    assert.deepEqual(await filesUnder(path.join(dataDir, 'artifacts')), [KEY]);
  });
});

test('put accepts any async iterable of bytes and overwrites an existing key', async () => {
  await withStore(async (store) => {
    await store.put(KEY, body('old contents'), { contentType: 'text/plain', maxBytes: 100 });
    async function* generated() {
      yield new TextEncoder().encode('WEBVTT\n\n');
      yield new Uint8Array([0x41, 0x42]);
    }
    const stored = await store.put(KEY, generated(), { contentType: 'text/vtt', maxBytes: 100 });
    assert.deepEqual(stored, { size: 10, sha256: sha256('WEBVTT\n\nAB') });
    assert.equal(await store.withLocalFile(KEY, (p) => readFile(p, 'utf8')), 'WEBVTT\n\nAB');
  });
});

test('an empty body is stored as an empty file', async () => {
  await withStore(async (store) => {
    const stored = await store.put(KEY, body(), { contentType: 'text/plain', maxBytes: 0 });
    assert.deepEqual(stored, { size: 0, sha256: sha256('') });
    assert.deepEqual(await store.stat(KEY), { size: 0 });
  });
});

test('past maxBytes put rejects, stops reading and leaves no file', async () => {
  await withStore(async (store, dataDir) => {
    const { stream, pulled } = chunkedStream(1000, 1024);
    await assert.rejects(
      store.put(KEY, stream, { contentType: 'text/vtt', maxBytes: 10 * 1024 + 1 }),
      (err: unknown) => err instanceof PayloadTooLargeError && err.maxBytes === 10 * 1024 + 1,
    );
    // Readable.from reads a little ahead, but nowhere near the whole body.
    assert.ok(pulled() < 100, `pulled ${pulled()} chunks`);
    // Left paused for the caller (an HTTP route must still be able to answer 413).
    assert.equal(stream.destroyed, false);
    stream.destroy();
    assert.equal(await store.stat(KEY), null);
    assert.deepEqual(await filesUnder(path.join(dataDir, 'artifacts')), []);
  });
});

test('a failed overwrite keeps the previous object intact', async () => {
  await withStore(async (store) => {
    await store.put(KEY, body('first'), { contentType: 'text/plain', maxBytes: 100 });
    await assert.rejects(store.put(KEY, body('x'.repeat(200)), { contentType: 'text/plain', maxBytes: 100 }), PayloadTooLargeError);
    assert.equal(await store.withLocalFile(KEY, (p) => readFile(p, 'utf8')), 'first');
  });
});

test('a body that errors mid-stream leaves no file', async () => {
  await withStore(async (store, dataDir) => {
    async function* failing() {
      yield Buffer.from('partial');
      throw new Error('client went away');
    }
    await assert.rejects(store.put(KEY, failing(), { contentType: 'text/plain', maxBytes: 100 }), /client went away/);
    assert.deepEqual(await filesUnder(path.join(dataDir, 'artifacts')), []);
  });
});

test('keys that could escape the store or are oddly shaped are refused everywhere', async () => {
  await withStore(async (store, dataDir) => {
    const bad = [
      '../escape',
      'org/../../etc/passwd',
      'org/..',
      '/etc/passwd',
      'org\\mind\\a',
      'org//a',
      'org/a/',
      '',
      './a',
      'org/.hidden',
      'org/a b',
      'org/a\u0000b',
      'x'.repeat(600),
    ];
    for (const key of bad) {
      await assert.rejects(store.put(key, body('x'), { contentType: 'text/plain', maxBytes: 10 }), InvalidArtifactKeyError, key);
      await assert.rejects(store.stat(key), InvalidArtifactKeyError, key);
      await assert.rejects(store.delete(key), InvalidArtifactKeyError, key);
      await assert.rejects(store.withLocalFile(key, async () => 1), InvalidArtifactKeyError, key);
      await assert.rejects(
        store.createUploadUrl({ key, artifactId: 'a', organizationId: 'o', contentType: 'text/plain', maxBytes: 1, expiresInSeconds: 60, publicBaseUrl: 'http://x' }),
        InvalidArtifactKeyError,
        key,
      );
    }
    assert.deepEqual(await readdir(dataDir), []);
  });
});

test('delete removes the file; deleting a missing key is fine', async () => {
  await withStore(async (store) => {
    await store.put(KEY, body('bye'), { contentType: 'text/plain', maxBytes: 10 });
    await store.delete(KEY);
    assert.equal(await store.stat(KEY), null);
    await store.delete(KEY);
    await store.delete('org/never/written');
  });
});

test('delete and deletePrefix leave no empty folders behind, and stop at folders still in use', async () => {
  await withStore(async (store, dataDir) => {
    const root = path.join(dataDir, 'artifacts');
    const dirs = async () => (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => path.relative(root, path.join(e.parentPath ?? e.path, e.name))).sort();
    for (const key of ['org/o1/mind/m1/a1', 'org/o1/mind/m1/incoming/a2', 'org/o1/mind/m2/a3']) await store.put(key, body('x'), { contentType: 'text/plain', maxBytes: 10 });
    await store.delete('org/o1/mind/m1/incoming/a2');
    assert.deepEqual(await dirs(), ['org', 'org/o1', 'org/o1/mind', 'org/o1/mind/m1', 'org/o1/mind/m2']);
    await store.deletePrefix('org/o1/mind/m1/');
    assert.deepEqual(await dirs(), ['org', 'org/o1', 'org/o1/mind', 'org/o1/mind/m2']);
    await store.delete('org/o1/mind/m2/a3');
    assert.deepEqual(await readdir(root), [], 'the root stays, empty');
    await store.deletePrefix('org/o9/mind/m9/'); // nothing there: fine
    await assert.rejects(store.deletePrefix('org/../x/'), InvalidArtifactKeyError);
    await assert.rejects(store.deletePrefix('org/o1'), InvalidArtifactKeyError, 'a prefix ends with /');
  });
});

test('list walks a prefix: every file with its size and mtime, no temp files, nothing outside it', async () => {
  await withStore(async (store) => {
    for (const key of ['org/o1/mind/m1/a1', 'org/o1/mind/m1/incoming/a2', 'org/o1/mind/m2/a3']) await store.put(key, body('abc'), { contentType: 'text/plain', maxBytes: 10 });
    // What a write in progress (or cut short by a crash) looks like on disk.
    await writeFile(path.join(store.root, 'org/o1/mind/m1/.a9.0123456789ab.tmp'), 'partial');
    const list = async (prefix: string) => {
      const out = [];
      for await (const o of store.list(prefix)) out.push(o);
      return out;
    };
    const listed = await list('org/o1/mind/m1/');
    assert.deepEqual(listed.map((o) => o.key).sort(), ['org/o1/mind/m1/a1', 'org/o1/mind/m1/incoming/a2']);
    assert.ok(listed.every((o) => o.size === 3 && Math.abs(o.lastModified.getTime() - Date.now()) < 60_000));
    assert.equal((await list('org/')).length, 3);
    assert.deepEqual(await list('org/o9/'), [], 'a prefix with nothing under it');
    await assert.rejects(list('org/../'), InvalidArtifactKeyError);
  });
});

test('a put racing a delete that prunes its folder still lands', async () => {
  await withStore(async (store) => {
    for (let i = 0; i < 50; i++) {
      await store.put('org/o1/mind/m1/old', body('x'), { contentType: 'text/plain', maxBytes: 10 });
      await Promise.all([store.delete('org/o1/mind/m1/old'), store.put(`org/o1/mind/m1/new${i}`, body('y'), { contentType: 'text/plain', maxBytes: 10 })]);
      assert.deepEqual(await store.stat(`org/o1/mind/m1/new${i}`), { size: 1 });
      await store.delete(`org/o1/mind/m1/new${i}`);
    }
  });
});

test('withLocalFile hands over the stored file and fails clearly for a missing key', async () => {
  await withStore(async (store, dataDir) => {
    await store.put(KEY, body('hello'), { contentType: 'text/plain', maxBytes: 10 });
    const seen = await store.withLocalFile(KEY, async (p) => ({ p, text: await readFile(p, 'utf8') }));
    assert.deepEqual(seen, { p: path.join(dataDir, 'artifacts', KEY), text: 'hello' });
    await assert.rejects(store.withLocalFile('org/missing', async () => 1), ArtifactNotFoundError);
    // The store's file stays after fn (it is the object itself).
    assert.deepEqual(await store.stat(KEY), { size: 5 });
  });
});

test('putFile moves a spooled file into the store and hashes it', async () => {
  await withStore(async (store, dataDir) => {
    const spool = path.join(dataDir, 'spool.tmp');
    const vtt = 'WEBVTT\n\n00:00.000 --> 00:01.000\n<v Ana>Hi\n';
    await writeFile(spool, vtt);
    const stored = await store.putFile(KEY, spool, { contentType: 'text/vtt' });
    assert.deepEqual(stored, { size: Buffer.byteLength(vtt), sha256: sha256(vtt) });
    assert.equal(await store.withLocalFile(KEY, (p) => readFile(p, 'utf8')), vtt);
    await assert.rejects(readFile(spool), { code: 'ENOENT' });
  });
});

test('putFile copies across filesystems when rename is impossible', async (t) => {
  // /dev/shm is a tmpfs on Linux: a rename from there into the data dir fails with EXDEV.
  const shm = await mkdtemp('/dev/shm/mindprint-').catch(() => null);
  if (!shm) return t.skip('no /dev/shm here');
  try {
    await withStore(async (store, dataDir) => {
      // Precondition: this machine really gives EXDEV, so the copy path is what runs below.
      const probe = path.join(shm, 'probe');
      await writeFile(probe, '');
      const renameError = await rename(probe, path.join(dataDir, 'probe')).then(() => null, (err: NodeJS.ErrnoException) => err.code);
      if (renameError !== 'EXDEV') return t.skip('/dev/shm is on the same filesystem here');
      const spool = path.join(shm, 'spool.tmp');
      await writeFile(spool, 'across filesystems');
      const stored = await store.putFile(KEY, spool, { contentType: 'text/plain' });
      assert.deepEqual(stored, { size: 18, sha256: sha256('across filesystems') });
      assert.equal(await readFile(path.join(dataDir, 'artifacts', KEY), 'utf8'), 'across filesystems');
      await assert.rejects(readFile(spool), { code: 'ENOENT' });
      assert.deepEqual(await filesUnder(path.join(dataDir, 'artifacts')), [KEY]);
    });
  } finally {
    await rm(shm, { recursive: true, force: true });
  }
});

test('createUploadUrl points at this service with a token bound to the artifact', async () => {
  await withStore(async (store) => {
    const before = Date.now();
    const { url, expiresAt } = await store.createUploadUrl({
      key: KEY,
      artifactId: 'a1',
      organizationId: 'o1',
      contentType: 'text/vtt',
      maxBytes: 5000,
      expiresInSeconds: 600,
      publicBaseUrl: 'https://mindprint.example.com/',
    });
    const prefix = 'https://mindprint.example.com/uploads/';
    assert.ok(url.startsWith(prefix), url);
    const claims = verifyUploadToken(url.slice(prefix.length), SECRET);
    assert.deepEqual(claims, { artifactId: 'a1', organizationId: 'o1', key: KEY, contentType: 'text/vtt', maxBytes: 5000, expiresAt: expiresAt.getTime() });
    assert.ok(expiresAt.getTime() >= before + 600_000 && expiresAt.getTime() <= Date.now() + 600_000);
  });
});

test('createArtifactStore refuses storage URLs it does not know', () => {
  assert.throws(() => createArtifactStore({ storageUrl: 'gs://bucket', dataDir: '/tmp', signingSecret: SECRET }), /unsupported storage URL/);
  assert.equal(createArtifactStore({ storageUrl: null, dataDir: '/tmp', signingSecret: SECRET }).kind, 'local');
});
