/**
 * How a snapshot row is shown: its API shape (toSnapshot), its semantic index as the row records
 * it, the sentences every surface says of its speakers, and the query that reads rows in that
 * shape (selectSnapshots, with the file and mind names beside each).
 */
import { and, eq, getTableColumns, type SQL } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Db } from '../../platform/db/client.ts';
import { artifacts, minds, snapshots } from '../../platform/db/schema.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { Snapshot } from './schemas.ts';

export type SnapshotRow = typeof snapshots.$inferSelect;
/** A snapshot row with what its API shape shows beside it: its file's name and its mind's name. */
export type SnapshotView = SnapshotRow & { fileName: string; mindName: string };

export const toSnapshot = (s: SnapshotView): Snapshot => ({
  id: s.id,
  mindId: s.mindId,
  artifactId: s.artifactId,
  digitalTwinId: s.digitalTwinId,
  mindsetDate: iso(s.mindsetDate)!,
  status: s.status,
  linked: s.linked,
  error: s.error,
  startedAt: iso(s.startedAt),
  completedAt: iso(s.completedAt),
  createdAt: iso(s.createdAt)!,
  updatedAt: iso(s.updatedAt)!,
  psychometricCount: s.psychometricCount,
  keyTopicCount: s.keyTopicCount,
  findingCount: s.findingCount,
  fileName: s.fileName,
  mindSpeaker: s.mindSpeaker,
  mindWords: s.mindWords,
  speakersLabelled: s.speakersLabelled,
  speakerWarning: speakerWarning(s.speakersLabelled, s.mindName),
  semanticIndex: semanticIndexOf(s),
});

/**
 * The snapshot's semantic index as its row records it. A row queued for another embedder
 * (`embeddingQueued`, set by the re-embedding sweep) is `indexing` even while it still holds the
 * old embedder's vectors.
 */
export function semanticIndexOf(s: Pick<SnapshotRow, 'status' | 'embedder' | 'embeddedAt' | 'embeddingError' | 'embeddingQueued'>): Snapshot['semanticIndex'] {
  const done = s.embeddedAt !== null && s.embedder !== null && (s.embeddingQueued === null || s.embeddingQueued === s.embedder);
  const status = s.status === 'failed' ? 'none' : s.status !== 'completed' ? 'waiting' : done ? 'ready' : s.embeddingError !== null ? 'failed' : 'indexing';
  return { status, embedder: done || status === 'indexing' ? s.embedder : null, embeddedAt: done || status === 'indexing' ? iso(s.embeddedAt) : null, error: status === 'failed' ? s.embeddingError : null };
}

/**
 * What every surface says of a file that names no speakers (null for one that does, or is not
 * processed yet): the mind now holds every voice in it.
 */
export function speakerWarning(speakersLabelled: boolean | null, mindName: string): string | null {
  if (speakersLabelled !== false) return null;
  return `The file names no speakers, so every voice in this file counts as ${mindName}: interviewers, moderators and other guests too. Upload a transcript that labels its speakers to keep only ${mindName}’s words.`;
}

/** Snapshots of the caller's organization matching `where`, with their file and mind names (two joins on primary keys). */
export function selectSnapshots(db: Db, caller: Caller, where: SQL) {
  return db
    .select({ ...getTableColumns(snapshots), fileName: artifacts.fileName, mindName: minds.name })
    .from(snapshots)
    .innerJoin(artifacts, eq(artifacts.id, snapshots.artifactId))
    .innerJoin(minds, eq(minds.id, snapshots.mindId))
    .where(and(eq(snapshots.organizationId, caller.organizationId), where));
}

/**
 * How the mind's words were told apart from the others', for people: above all, that a file
 * without speaker labels gave the mind every voice in it. Null until the snapshot is processed.
 */
export function attributionNote(s: Pick<SnapshotRow, 'status' | 'speakersLabelled' | 'attribution' | 'mindSpeaker'>): string | null {
  if (s.status !== 'completed') return null;
  if (s.speakersLabelled === false) {
    return 'The file names no speakers (auto-captions, or a document without speaker labels), so every voice in it was taken to be this mind’s: interviewers, moderators and other guests too, and simulations may quote their words. Upload a transcript with speaker labels to keep only this person’s words.';
  }
  const label = s.mindSpeaker ? `“${s.mindSpeaker}”` : 'The mind’s speaker';
  switch (s.attribution) {
    case 'requested':
      return `${label} was chosen as the mind’s speaker (at upload, or afterwards); the other speakers’ turns are kept only as the questions the mind answered.`;
    case 'name':
      return `${label} matches the mind’s name; the other speakers’ turns are kept only as the questions the mind answered.`;
    case 'inferred':
      return `No speaker label matches the mind’s name, so ${label}, the speaker with the most words, was taken to be the mind; choose another among the file’s speakers if that is wrong.`;
    default:
      return null;
  }
}
