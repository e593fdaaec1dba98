/**
 * The artifact store: where uploaded transcript files live. Local directory when no storage URL is
 * set (embedded mode), any S3-compatible store for `s3://bucket[/prefix]` (scale mode).
 */
import { LocalArtifactStore } from './local-store.ts';
import { S3ArtifactStore, createS3Client, parseS3Url } from './s3-store.ts';
import type { ArtifactStore } from './types.ts';

export type { ArtifactStore, CreateUploadUrlOptions, ListedObject, StoredObject } from './types.ts';
export {
  ArtifactNotFoundError,
  InvalidArtifactKeyError,
  InvalidUploadTokenError,
  PayloadTooLargeError,
  type InvalidUploadTokenReason,
} from './errors.ts';
export { signUploadToken, verifyUploadToken, type UploadClaims } from './upload-token.ts';
export { assertValidKey } from './keys.ts';
export { LocalArtifactStore } from './local-store.ts';
export { S3ArtifactStore, createS3Client, parseS3Url, type S3Location } from './s3-store.ts';

/**
 * Picks the store for `storageUrl`: unset, null or empty → files under `${dataDir}/artifacts/`;
 * `s3://bucket[/prefix]` → S3, configured from the AWS variables in `env` (default process.env).
 * `signingSecret` signs local upload URLs.
 */
export function createArtifactStore(opts: {
  storageUrl?: string | null;
  dataDir: string;
  signingSecret: string;
  env?: NodeJS.ProcessEnv;
}): ArtifactStore {
  if (!opts.storageUrl) return new LocalArtifactStore(opts.dataDir, opts.signingSecret);
  if (opts.storageUrl.startsWith('s3://')) {
    return new S3ArtifactStore(createS3Client(opts.env ?? process.env), parseS3Url(opts.storageUrl));
  }
  throw new Error(`unsupported storage URL ${JSON.stringify(opts.storageUrl)}: expected s3://bucket[/prefix]`);
}
