/**
 * The mind as of its linked, completed snapshots: the analysis rows of every snapshot gathered in
 * three queries and combined by analysis/profile.ts (weights by words and recency).
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { buildProfile, type MindProfile, type ProfileSnapshotInput } from '../analysis/index.ts';
import type { Caller } from '../auth/authenticate.ts';
import type { Db } from '../db/client.ts';
import { findings, keyTopics, psychometrics, snapshots } from '../db/schema.ts';
import { assertMindExists } from '../minds/service.ts';

/** Analysis inputs of a mind's linked completed snapshots, optionally only those up to `asOf`. */
export async function loadProfileInputs(db: Db, mindId: string, asOf?: Date): Promise<ProfileSnapshotInput[]> {
  const snaps = await db
    .select({ id: snapshots.id, mindsetDate: snapshots.mindsetDate, mindWords: snapshots.mindWords })
    .from(snapshots)
    .where(and(eq(snapshots.mindId, mindId), eq(snapshots.status, 'completed'), eq(snapshots.linked, true), asOf ? lte(snapshots.mindsetDate, asOf) : undefined))
    .orderBy(asc(snapshots.mindsetDate), asc(snapshots.createdAt));
  if (!snaps.length) return [];
  const ids = snaps.map((s) => s.id);
  const [p, k, f] = await Promise.all([
    db.select().from(psychometrics).where(inArray(psychometrics.snapshotId, ids)),
    db.select().from(keyTopics).where(inArray(keyTopics.snapshotId, ids)).orderBy(asc(keyTopics.rank)),
    db.select().from(findings).where(inArray(findings.snapshotId, ids)),
  ]);
  return snaps.map((s) => ({
    snapshotId: s.id,
    mindsetDate: s.mindsetDate,
    mindWords: s.mindWords,
    psychometrics: p.filter((r) => r.snapshotId === s.id),
    keyTopics: k.filter((r) => r.snapshotId === s.id),
    findings: f
      .filter((r) => r.snapshotId === s.id)
      .map((r) => ({ kind: r.kind as never, statement: r.statement, quote: r.quote, turnId: r.turnId, startMs: r.startMs, polarity: r.polarity as never, confidence: r.confidence })),
  }));
}

export async function mindProfile(db: Db, caller: Caller, mindId: string): Promise<{ mindId: string; name: string; profile: MindProfile }> {
  const mind = await assertMindExists(db, caller, mindId);
  return { mindId, name: mind.name, profile: buildProfile(await loadProfileInputs(db, mindId)) };
}
