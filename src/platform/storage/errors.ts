/** Errors the artifact store raises; HTTP routes map them to status codes (413, 400, 404, 403). */

/** The body went past the size limit; nothing was kept. */
export class PayloadTooLargeError extends Error {
  readonly code = 'payload_too_large';
  constructor(readonly maxBytes: number) {
    super(`payload exceeds the limit of ${maxBytes} bytes`);
    this.name = 'PayloadTooLargeError';
  }
}

/** A key that could escape the store's root or is not in the expected shape. */
export class InvalidArtifactKeyError extends Error {
  readonly code = 'invalid_artifact_key';
  constructor(readonly key: string, reason: string) {
    super(`invalid artifact key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'InvalidArtifactKeyError';
  }
}

/** withLocalFile on a key that holds nothing. */
export class ArtifactNotFoundError extends Error {
  readonly code = 'artifact_not_found';
  constructor(readonly key: string) {
    super(`no stored artifact under ${JSON.stringify(key)}`);
    this.name = 'ArtifactNotFoundError';
  }
}

export type InvalidUploadTokenReason = 'expired' | 'bad signature' | 'malformed';

/** A local upload token that was tampered with, signed with another secret, garbled or expired. */
export class InvalidUploadTokenError extends Error {
  readonly code = 'invalid_upload_token';
  constructor(readonly reason: InvalidUploadTokenReason) {
    super(`invalid upload token: ${reason}`);
    this.name = 'InvalidUploadTokenError';
  }
}
