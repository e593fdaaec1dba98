import { InvalidArtifactKeyError } from './errors.ts';

const MAX_KEY_LENGTH = 512;
/**
 * Each segment is plain ASCII without a leading dot. This refuses `..`, `.`, hidden names,
 * backslashes, empty segments (so no absolute paths or `//`), control characters and anything
 * that needs URL-encoding, so a key maps to the same path on disk and in S3. It also keeps the
 * local store's temp names (which start with a dot) from ever colliding with a key.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Throws InvalidArtifactKeyError unless `key` is a safe relative key like `org/<id>/mind/<id>/<id>`. */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidArtifactKeyError(String(key), 'empty');
  if (key.length > MAX_KEY_LENGTH) throw new InvalidArtifactKeyError(key, 'too long');
  if (key.includes('\\')) throw new InvalidArtifactKeyError(key, 'backslash');
  if (key.startsWith('/')) throw new InvalidArtifactKeyError(key, 'absolute path');
  for (const segment of key.split('/')) {
    if (segment === '..' || segment === '.') throw new InvalidArtifactKeyError(key, 'dot segment');
    if (!SEGMENT.test(segment)) throw new InvalidArtifactKeyError(key, `bad segment ${JSON.stringify(segment)}`);
  }
}

/** A key prefix ends with '/' and is a valid key before it: `org/<id>/mind/<id>/`. */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !prefix.endsWith('/')) throw new InvalidArtifactKeyError(String(prefix), 'a prefix ends with /');
  assertValidKey(prefix.slice(0, -1));
}
