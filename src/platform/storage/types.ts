/** What a stored object is, as counted while it streamed in. */
export interface StoredObject {
  size: number;
  /** sha256 of the bytes, lowercase hex. */
  sha256: string;
}

/** One stored object, as list() reports it. */
export interface ListedObject {
  key: string;
  size: number;
  /** When the bytes were last written (local: the file's mtime; S3: LastModified). */
  lastModified: Date;
}

export interface CreateUploadUrlOptions {
  key: string;
  artifactId: string;
  organizationId: string;
  contentType: string;
  maxBytes: number;
  expiresInSeconds: number;
  /** Base URL of this service as clients reach it, e.g. https://mindprint.example.com (local mode only). */
  publicBaseUrl: string;
}

export interface ArtifactStore {
  readonly kind: 'local' | 's3';
  /**
   * Stream `body` into the store under `key`. Counts bytes and hashes (sha256 hex) while
   * streaming; past `maxBytes` it stops reading, removes anything partly written and rejects
   * with PayloadTooLargeError. Never buffers the whole body.
   */
  put(
    key: string,
    body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
    opts: { contentType: string; maxBytes: number },
  ): Promise<StoredObject>;
  /**
   * Move a local file into the store (the upload route first spools to a temp file to sniff it).
   * On success the file at `filePath` is gone (renamed, or copied then removed); on failure it
   * is left for the caller to clean up.
   */
  putFile(key: string, filePath: string, opts: { contentType: string }): Promise<StoredObject>;
  /**
   * Run fn with a local file path holding the object (local: the file itself, which fn must not
   * change; s3: a temp download removed afterwards). Rejects with ArtifactNotFoundError if absent.
   */
  withLocalFile<T>(key: string, fn: (path: string) => Promise<T>): Promise<T>;
  stat(key: string): Promise<{ size: number } | null>;
  /** Missing key is not an error. The local store also removes the directories left empty. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` (which ends with '/'), e.g. a mind's folder. */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * Every object whose key starts with `prefix` (which ends with '/'), read page by page so a
   * large store is never held in memory at once; in no particular order. Objects written or
   * deleted while the listing runs may or may not appear. The local store's temp files (a write
   * in progress, or one a crash cut short) are not objects and never appear.
   */
  list(prefix: string): AsyncIterable<ListedObject>;
  /**
   * A URL the client PUTs raw bytes to. Local: a URL on this service
   * (`${publicBaseUrl}/uploads/${token}`); S3: a presigned PUT URL that binds the content type and
   * expiry. A presigned PUT cannot bind a maximum size: in S3 mode the caller must stat() the
   * object when the upload is confirmed and reject it when it is larger than maxBytes.
   */
  createUploadUrl(opts: CreateUploadUrlOptions): Promise<{ url: string; expiresAt: Date }>;
  close?(): Promise<void>;
}
