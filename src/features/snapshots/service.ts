/**
 * Memory bank snapshots, the read and delete verbs: listing, status, details and their analysis,
 * linking, deletion. Every function takes the caller and scopes by organization and mind. Creating
 * one is upload.ts (and signed-upload.ts for the signed URL flow); processing is pipeline.ts.
 */
import { and, asc, desc, eq, ne } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../platform/db/client.ts';
import { artifacts, findings, keyTopics, psychometrics, snapshots, turns } from '../../platform/db/schema.ts';
import { notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import { assertMindExists } from '../minds/index.ts';
import { keysOf, mindPrefix } from './artifact-keys.ts';
import { attributionNote, selectSnapshots, semanticIndexOf, speakerWarning, toSnapshot, type SnapshotRow, type SnapshotView } from './views.ts';

export async function getSnapshotRow(db: Db, caller: Caller, mindId: string, snapshotId: string): Promise<SnapshotView> {
  const [row] = await selectSnapshots(db, caller, and(eq(snapshots.id, snapshotId), eq(snapshots.mindId, mindId))!);
  if (!row) throw notFound('Snapshot');
  return row;
}

export async function listSnapshots(db: Db, caller: Caller, mindId: string) {
  await assertMindExists(db, caller, mindId);
  const rows = await selectSnapshots(db, caller, eq(snapshots.mindId, mindId)).orderBy(desc(snapshots.mindsetDate), desc(snapshots.createdAt));
  return { snapshots: rows.map(toSnapshot), count: rows.length };
}

export async function snapshotStatus(db: Db, caller: Caller, mindId: string, snapshotId: string) {
  const s = await getSnapshotRow(db, caller, mindId, snapshotId);
  return {
    id: s.id,
    mindId: s.mindId,
    status: s.status,
    startedAt: iso(s.startedAt),
    completedAt: iso(s.completedAt),
    error: s.error,
    mindSpeaker: s.mindSpeaker,
    speakersLabelled: s.speakersLabelled,
    speakerWarning: speakerWarning(s.speakersLabelled, s.mindName),
    semanticIndex: semanticIndexOf(s),
  };
}

export async function snapshotDetails(db: Db, caller: Caller, mindId: string, snapshotId: string, opts: { includeTranscript?: boolean; includePsychometrics?: boolean }) {
  const s = await getSnapshotRow(db, caller, mindId, snapshotId);
  const [artifact] = await db.select().from(artifacts).where(eq(artifacts.id, s.artifactId));
  const details: Record<string, unknown> = {
    ...toSnapshot(s),
    artifact: { id: artifact!.id, fileName: artifact!.fileName, contentType: artifact!.contentType, kind: artifact!.kind, size: artifact!.size, sha256: artifact!.sha256 },
    speakers: s.speakers ?? [],
    attribution: s.attribution,
    attributionNote: attributionNote(s),
  };
  if (opts.includeTranscript) {
    details.transcript = await db
      .select({ id: turns.id, seq: turns.seq, speaker: turns.speaker, text: turns.text, startMs: turns.startMs, endMs: turns.endMs, isMind: turns.isMind })
      .from(turns)
      .where(eq(turns.snapshotId, snapshotId))
      .orderBy(asc(turns.seq));
  }
  if (opts.includePsychometrics) details.psychometrics = await snapshotPsychometrics(db, caller, mindId, snapshotId, s);
  return details;
}

export async function snapshotPsychometrics(db: Db, caller: Caller, mindId: string, snapshotId: string, known?: SnapshotRow) {
  if (!known) await getSnapshotRow(db, caller, mindId, snapshotId);
  return db.select().from(psychometrics).where(eq(psychometrics.snapshotId, snapshotId)).orderBy(asc(psychometrics.instrument), asc(psychometrics.name));
}

export async function snapshotTopics(db: Db, caller: Caller, mindId: string, snapshotId: string) {
  await getSnapshotRow(db, caller, mindId, snapshotId);
  const rows = await db.select().from(keyTopics).where(eq(keyTopics.snapshotId, snapshotId)).orderBy(asc(keyTopics.rank));
  return rows.map(({ rank: _rank, organizationId: _org, ...t }) => t);
}

export async function snapshotFindings(db: Db, caller: Caller, mindId: string, snapshotId: string) {
  await getSnapshotRow(db, caller, mindId, snapshotId);
  const rows = await db.select().from(findings).where(eq(findings.snapshotId, snapshotId)).orderBy(desc(findings.confidence), asc(findings.startMs));
  return rows.map(({ organizationId: _org, ...f }) => f);
}

export async function setLinked(db: Db, caller: Caller, mindId: string, snapshotId: string, linked: boolean) {
  const before = await getSnapshotRow(db, caller, mindId, snapshotId);
  const [row] = await db.update(snapshots).set({ linked, updatedAt: new Date() }).where(eq(snapshots.id, snapshotId)).returning();
  return {
    message: linked ? 'Snapshot linked: it feeds the mind’s simulations and profile again' : 'Snapshot unlinked: it is kept but no longer feeds the mind’s simulations or profile',
    snapshot: toSnapshot({ ...before, ...row! }),
  };
}

/** Deletes the snapshot (its turns and analysis cascade) and its file when no other snapshot uses it. */
export async function deleteSnapshot(ctx: Deps, caller: Caller, mindId: string, snapshotId: string) {
  const s = await getSnapshotRow(ctx.db, caller, mindId, snapshotId);
  const orphan = await ctx.db.transaction(async (tx) => {
    await tx.delete(snapshots).where(eq(snapshots.id, snapshotId));
    const [stillUsed] = await tx.select({ id: snapshots.id }).from(snapshots).where(and(eq(snapshots.artifactId, s.artifactId), ne(snapshots.id, snapshotId))).limit(1);
    if (stillUsed) return null;
    const [artifact] = await tx.delete(artifacts).where(eq(artifacts.id, s.artifactId)).returning();
    return artifact ?? null;
  });
  if (orphan) await Promise.all(keysOf(orphan).map((k) => ctx.store.delete(k)));
  return { message: 'Snapshot deleted', snapshotId };
}

/**
 * After a mind's deletion has committed (module.ts, `mind.deleted`): its folder goes, every
 * artifact and whatever a replayed or unfinished upload left there (the rows went with the mind).
 * Files first and rows after would leave a mind whose snapshots lost their files when the delete
 * of rows fails; rows first leaves at worst files no row owns, which the artifact sweeper removes
 * (sweeper.ts removeOrphanObjects) if this process dies or the store fails before they go.
 */
export async function deleteMindArtifacts(ctx: Pick<Deps, 'store'>, organizationId: string, mindId: string): Promise<void> {
  await ctx.store.deletePrefix(mindPrefix(organizationId, mindId));
}
