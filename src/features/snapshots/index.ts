/** What other features may use of this one. */
export { snapshotsModule } from './module.ts';
export { SnapshotParams } from './schemas.ts';
export { getSnapshotRow } from './service.ts';
export { storageKey as artifactStorageKey } from './artifact-keys.ts';
export { CONTENT_TYPE } from './file-kinds.ts';
