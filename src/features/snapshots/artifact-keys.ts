/**
 * Where an artifact's bytes live in the store: every key this feature writes, and reading one
 * back. Everything of a mind sits under one folder, so deleting the mind deletes the folder.
 */
import type { artifacts } from '../../platform/db/schema.ts';
import { UUID_PATTERN } from '../../lib/uuid.ts';

/** Every stored artifact lives under this folder (the artifact sweeper lists it). */
export const ARTIFACTS_PREFIX = 'org/';
/** Everything stored for a mind lives under this folder, so deleting the mind deletes the folder. */
export const mindPrefix = (organizationId: string, mindId: string) => `${ARTIFACTS_PREFIX}${organizationId}/mind/${mindId}/`;
/** Where an artifact's bytes live once it is usable. */
export const storageKey = (organizationId: string, mindId: string, artifactId: string) => `${mindPrefix(organizationId, mindId)}${artifactId}`;
/**
 * Where an S3 presigned URL puts the bytes. On first use they are checked and copied to the
 * artifact's own key, and this object is deleted: the URL stays valid until it expires (S3 cannot
 * revoke it), but a replayed PUT can only write here, never change an artifact a snapshot uses.
 */
export const incomingKey = (organizationId: string, mindId: string, artifactId: string) => `${mindPrefix(organizationId, mindId)}incoming/${artifactId}`;

type ArtifactRow = typeof artifacts.$inferSelect;

/**
 * Every key that may hold bytes of an artifact: its storage key, its incoming key (a replayed
 * presigned PUT can refill it) and its own key (a confirmation cut short may have copied there).
 */
export const keysOf = (a: Pick<ArtifactRow, 'id' | 'organizationId' | 'mindId' | 'storageKey'>) =>
  [...new Set([a.storageKey, incomingKey(a.organizationId, a.mindId, a.id), storageKey(a.organizationId, a.mindId, a.id)])];

// Keys are written with ids as the database returns them, in lower case (case-sensitive match): nothing else is ours.
const ARTIFACT_KEY = new RegExp(`^${ARTIFACTS_PREFIX}(${UUID_PATTERN})/mind/(${UUID_PATTERN})/(?:incoming/)?(${UUID_PATTERN})$`);

/** Whose artifact a stored key belongs to, or null for a key in no shape this service writes. */
export function parseArtifactKey(key: string): { organizationId: string; mindId: string; artifactId: string } | null {
  const m = ARTIFACT_KEY.exec(key);
  return m ? { organizationId: m[1]!, mindId: m[2]!, artifactId: m[3]! } : null;
}
