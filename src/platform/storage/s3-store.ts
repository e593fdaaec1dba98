import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ArtifactNotFoundError, PayloadTooLargeError } from './errors.ts';
import { assertValidKey, assertValidPrefix } from './keys.ts';
import { MeteredBody } from './metered-body.ts';
import type { ArtifactStore, CreateUploadUrlOptions, ListedObject, StoredObject } from './types.ts';

export interface S3Location {
  bucket: string;
  /** '' or a prefix ending in '/', prepended to every key. */
  prefix: string;
}

/** Parses `s3://bucket[/prefix]`. */
export function parseS3Url(storageUrl: string): S3Location {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(storageUrl);
  if (!match) throw new Error(`storage URL must look like s3://bucket[/prefix], got ${JSON.stringify(storageUrl)}`);
  const bucket = match[1]!;
  const rawPrefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket, prefix: rawPrefix ? `${rawPrefix}/` : '' };
}

/**
 * An S3 client configured from the standard AWS variables in `env` (not the process's, so tests
 * and embedding code can pass their own): AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION
 * (or AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, plus
 * MINDPRINT_S3_FORCE_PATH_STYLE=true for self-hosted stores without virtual-host buckets.
 * Without keys in env the SDK's default chain (profiles, instance roles) applies.
 */
export function createS3Client(env: NodeJS.ProcessEnv): S3Client {
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  return new S3Client({
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: /^(true|1|yes)$/i.test(env.MINDPRINT_S3_FORCE_PATH_STYLE ?? ''),
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) } }
      : {}),
    // Otherwise the SDK puts a CRC32 checksum of an empty body into presigned PUT URLs, which the
    // client's real bytes then fail; many S3-compatible stores also reject the checksum headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/** Bytes buffered per multipart part (S3's minimum); lib-storage keeps up to queueSize parts in flight. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/** Artifacts as objects in one bucket (under an optional prefix) of any S3-compatible store. */
export class S3ArtifactStore implements ArtifactStore {
  readonly kind = 's3' as const;

  constructor(
    readonly client: S3Client,
    readonly location: S3Location,
  ) {}

  /** The object key for an artifact key. */
  objectKey(key: string): string {
    assertValidKey(key);
    return this.location.prefix + key;
  }

  async put(
    key: string,
    body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
    opts: { contentType: string; maxBytes: number },
  ): Promise<StoredObject> {
    const objectKey = this.objectKey(key);
    const metered = new MeteredBody(body, opts.maxBytes);
    // Multipart streaming: a body under one part is sent as a single PutObject once read; a larger
    // one is sent part by part. When the meter throws, lib-storage stops and aborts the multipart
    // upload, so nothing appears under the key.
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.location.bucket, Key: objectKey, Body: Readable.from(metered.chunks()), ContentType: opts.contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // lib-storage may report the failed AbortMultipartUpload instead of the cause (some
      // S3-compatible servers do not implement it), so trust the meter over the error.
      if (metered.tooLarge) throw new PayloadTooLargeError(opts.maxBytes);
      throw err;
    }
    return metered.result();
  }

  async putFile(key: string, filePath: string, opts: { contentType: string }): Promise<StoredObject> {
    const source = createReadStream(filePath);
    let stored: StoredObject;
    try {
      stored = await this.put(key, source, { contentType: opts.contentType, maxBytes: Number.POSITIVE_INFINITY });
    } finally {
      source.destroy();
    }
    await unlink(filePath);
    return stored;
  }

  async withLocalFile<T>(key: string, fn: (path: string) => Promise<T>): Promise<T> {
    const objectKey = this.objectKey(key);
    const dir = await mkdtemp(path.join(tmpdir(), 'mindprint-artifact-'));
    try {
      const file = path.join(dir, path.basename(key));
      let response;
      try {
        response = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: objectKey }));
      } catch (err) {
        if (isNotFound(err)) throw new ArtifactNotFoundError(key);
        throw err;
      }
      await pipeline(response.Body as Readable, createWriteStream(file));
      return await fn(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for a missing key too.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    // One DeleteObject each, eight at a time (a mind holds a handful): DeleteObjects needs a
    // Content-MD5 that some S3-compatible stores and the SDK's checksum settings disagree about.
    let keys: string[] = [];
    const flush = async () => {
      await Promise.all(keys.map((key) => this.delete(key)));
      keys = [];
    };
    for await (const o of this.list(prefix)) {
      keys.push(o.key);
      if (keys.length === 8) await flush();
    }
    await flush();
  }

  /** ListObjectsV2 page by page (up to 1000 keys each), keys given back without the store's prefix. */
  async *list(prefix: string): AsyncIterable<ListedObject> {
    assertValidPrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.location.prefix + prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        if (!o.Key) continue;
        // A store that omits LastModified gets "now": an object of unknown age must look fresh, not old.
        yield { key: o.Key.slice(this.location.prefix.length), size: o.Size ?? 0, lastModified: o.LastModified ?? new Date() };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async createUploadUrl(opts: CreateUploadUrlOptions): Promise<{ url: string; expiresAt: Date }> {
    const command = new PutObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(opts.key), ContentType: opts.contentType });
    const expiresAt = new Date(Date.now() + opts.expiresInSeconds * 1000);
    const url = await getSignedUrl(this.client, command, {
      expiresIn: opts.expiresInSeconds,
      // The presigner leaves Content-Type unsigned by default; signing it means a PUT with another
      // type fails the signature check. The size limit cannot be bound here (see ArtifactStore).
      signableHeaders: new Set(['content-type']),
    });
    return { url, expiresAt };
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
