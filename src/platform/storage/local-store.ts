import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ArtifactNotFoundError } from './errors.ts';
import { assertValidKey, assertValidPrefix } from './keys.ts';
import { MeteredBody } from './metered-body.ts';
import type { ArtifactStore, CreateUploadUrlOptions, ListedObject, StoredObject } from './types.ts';
import { signUploadToken } from './upload-token.ts';

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

/** fsync a directory so a rename into it survives a crash; not every platform allows it. */
async function syncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Windows and some filesystems refuse fsync on directories; the rename itself is still atomic.
  } finally {
    await fh?.close();
  }
}

/**
 * Artifacts as files under `${dataDir}/artifacts/<key>`. Every write goes to a hidden temp file in
 * the target directory (same filesystem), is fsynced and then renamed into place, so a crash never
 * leaves a half-written file under a key's name. Keys never start a segment with a dot
 * (see keys.ts), so temp names cannot collide with keys.
 */
export class LocalArtifactStore implements ArtifactStore {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(dataDir: string, private readonly signingSecret: string) {
    this.root = path.resolve(dataDir, 'artifacts');
  }

  /** Absolute path of a key; validates it and double-checks it stays under the root. */
  pathOf(key: string): string {
    assertValidKey(key);
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new Error(`artifact key escapes the store: ${key}`);
    return full;
  }

  private tempPathFor(dest: string): string {
    return path.join(path.dirname(dest), `.${path.basename(dest)}.${randomBytes(6).toString('hex')}.tmp`);
  }

  async put(
    key: string,
    body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
    opts: { contentType: string; maxBytes: number },
  ): Promise<StoredObject> {
    const dest = this.pathOf(key);
    const tmp = this.tempPathFor(dest);
    const metered = new MeteredBody(body, opts.maxBytes);
    // Once the temp file is open in it, the directory cannot be pruned away (see delete()).
    const fh = await this.inDirectoryOf(dest, () => open(tmp, 'wx'));
    try {
      try {
        // Awaiting each write is the backpressure: the body is read no faster than the disk takes it.
        for await (const chunk of metered.chunks()) {
          for (let offset = 0; offset < chunk.length; ) {
            offset += (await fh.write(chunk, offset)).bytesWritten;
          }
        }
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, dest);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await syncDir(path.dirname(dest));
    return metered.result();
  }

  async putFile(key: string, filePath: string, opts: { contentType: string }): Promise<StoredObject> {
    const dest = this.pathOf(key);
    // Hash (and fsync) the source first: a rename moves the bytes without reading them.
    const metered = new MeteredBody(createReadStream(filePath), Number.POSITIVE_INFINITY);
    for await (const _chunk of metered.chunks()) {
      // reading is the point: MeteredBody hashes as it goes
    }
    const fh = await open(filePath, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await this.inDirectoryOf(dest, () => rename(filePath, dest));
    } catch (err) {
      // Spool dir on another filesystem (e.g. /tmp on tmpfs): copy through a temp file instead.
      if (!isErrno(err, 'EXDEV')) throw err;
      const source = createReadStream(filePath);
      let copied: StoredObject;
      try {
        copied = await this.put(key, source, { contentType: opts.contentType, maxBytes: Number.POSITIVE_INFINITY });
      } finally {
        source.destroy();
      }
      await unlink(filePath);
      return copied;
    }
    await syncDir(path.dirname(dest));
    return metered.result();
  }

  async withLocalFile<T>(key: string, fn: (path: string) => Promise<T>): Promise<T> {
    const file = this.pathOf(key);
    if ((await this.stat(key)) === null) throw new ArtifactNotFoundError(key);
    return fn(file);
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size } : null;
    } catch (err) {
      if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return null;
      throw err;
    }
  }

  /** Removes the file, then the directories it leaves empty (a deleted mind leaves no folder). */
  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await unlink(file);
    } catch (err) {
      if (!isErrno(err, 'ENOENT') && !isErrno(err, 'ENOTDIR')) throw err;
    }
    await this.pruneEmptyDirs(path.dirname(file));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    const dir = path.resolve(this.root, prefix);
    if (!dir.startsWith(this.root + path.sep)) throw new Error(`artifact prefix escapes the store: ${prefix}`);
    await rm(dir, { recursive: true, force: true });
    await this.pruneEmptyDirs(path.dirname(dir));
  }

  /**
   * Walks the prefix's directory tree one directory at a time (never the whole tree in memory).
   * Hidden entries are skipped: no key has a dot segment, so they are temp files of writes.
   */
  async *list(prefix: string): AsyncIterable<ListedObject> {
    assertValidPrefix(prefix);
    const pending = [path.resolve(this.root, prefix)];
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
      for (const entry of await this.entriesOf(dir)) {
        if (entry.name.startsWith('.')) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) pending.push(full);
        else if (entry.isFile()) {
          const listed = await this.listedFile(full);
          if (listed) yield listed;
        }
      }
    }
  }

  /** A directory's entries; none when it is gone (a concurrent delete pruned it). */
  private async entriesOf(dir: string) {
    try {
      return await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return [];
      throw err;
    }
  }

  private async listedFile(full: string): Promise<ListedObject | null> {
    try {
      const s = await stat(full);
      return { key: path.relative(this.root, full).split(path.sep).join('/'), size: s.size, lastModified: s.mtime };
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null; // deleted since the directory was read
      throw err;
    }
  }

  /** rmdir upwards while empty, stopping at the store's root or at the first directory in use. */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    for (let d = dir; d.startsWith(this.root + path.sep); d = path.dirname(d)) {
      try {
        await rmdir(d);
      } catch (err) {
        if (isErrno(err, 'ENOENT')) continue;
        return; // ENOTEMPTY / EEXIST: still in use
      }
    }
  }

  /**
   * Runs fn (which creates an entry in dest's directory) after making the directory; if a
   * concurrent delete() pruned the directory in between, makes it again and retries.
   */
  private async inDirectoryOf<T>(dest: string, fn: () => Promise<T>): Promise<T> {
    const dir = path.dirname(dest);
    for (let attempt = 1; ; attempt++) {
      try {
        // mkdir -p itself can lose a parent it just made to a concurrent prune.
        await mkdir(dir, { recursive: true });
        return await fn();
      } catch (err) {
        if (attempt >= 10 || !isErrno(err, 'ENOENT') || (await stat(dir).then(() => true, () => false))) throw err;
      }
    }
  }

  async createUploadUrl(opts: CreateUploadUrlOptions): Promise<{ url: string; expiresAt: Date }> {
    assertValidKey(opts.key);
    const expiresAt = new Date(Date.now() + opts.expiresInSeconds * 1000);
    const token = signUploadToken(
      {
        artifactId: opts.artifactId,
        organizationId: opts.organizationId,
        key: opts.key,
        contentType: opts.contentType,
        maxBytes: opts.maxBytes,
        expiresAt: expiresAt.getTime(),
      },
      this.signingSecret,
    );
    return { url: `${opts.publicBaseUrl.replace(/\/+$/, '')}/uploads/${token}`, expiresAt };
  }
}

/**
 * Temp files a killed process leaves behind: spooled uploads (`${dataDir}/tmp/upload-<uuid>`,
 * src/features/snapshots/spool.ts), the turns a parser handed to a snapshot job
 * (`${dataDir}/tmp/digest-<uuid>.ndjson`, src/features/snapshots/turns-file.ts) and, in the local
 * store, the hidden `.<name>.<hex>.tmp` files of writes (put above). A live upload is never older
 * than a request (the server's requestTimeout is 2 minutes, and the file is written to until
 * then), so anything older than STALE_TEMP_MS is dead; a live digest file is written until its
 * job opens it for reading, at once, and a file removed while open stays readable to its reader.
 */
export const STALE_TEMP_MS = 15 * 60 * 1000;

export interface TempSweep {
  /** Spooled uploads removed. */
  uploads: number;
  /** Digests' turns files removed (jobs a killed process left). */
  digests: number;
  /** Temp files of store writes removed (null: the store was not walked). */
  storeTemps: number | null;
}

/**
 * Removes the temp files under `dataDir` last written more than `olderThanMs` ago (0: all of
 * them, for a process that holds the data dir alone, at start). `walkStore` also walks the local
 * artifact store's tree (a directory per mind) for its temp files; the spool dir is one readdir.
 */
export async function sweepTempFiles(dataDir: string, opts: { olderThanMs: number; walkStore: boolean }): Promise<TempSweep> {
  const cutoff = Date.now() - opts.olderThanMs;
  const removeIfStale = async (file: string): Promise<boolean> => {
    try {
      if (opts.olderThanMs > 0 && (await stat(file)).mtimeMs > cutoff) return false;
      await unlink(file);
      return true;
    } catch {
      return false; // gone already, or not ours to remove
    }
  };
  let uploads = 0;
  let digests = 0;
  const spool = path.join(dataDir, 'tmp');
  for (const entry of await readdir(spool, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isFile()) continue;
    if (/^upload-[0-9a-f-]{36}$/.test(entry.name) && (await removeIfStale(path.join(spool, entry.name)))) uploads++;
    else if (/^digest-[0-9a-f-]{36}\.ndjson$/.test(entry.name) && (await removeIfStale(path.join(spool, entry.name)))) digests++;
  }
  if (!opts.walkStore) return { uploads, digests, storeTemps: null };
  let storeTemps = 0;
  const pending = [path.resolve(dataDir, 'artifacts')];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile() && /^\..+\.[0-9a-f]{12}\.tmp$/.test(entry.name) && (await removeIfStale(full))) storeTemps++;
    }
  }
  return { uploads, digests, storeTemps };
}
