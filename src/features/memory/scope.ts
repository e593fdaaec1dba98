/**
 * Which snapshots count — the one rule every reader of a mind's memory uses (simulations, the
 * profile, the semantic index): completed, linked, and — "as of" a snapshot or a date — none
 * with a later mindsetDate.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../platform/db/client.ts';

export interface MindScope {
  mindId: string;
  mindName: string;
  organizationId: string;
  defaultTwinId: string | null;
  /** The "as of" snapshot (validated to be this mind's), or null for all linked snapshots. */
  asOfSnapshotId: string | null;
  asOfDate: Date | null;
  /** Completed, linked snapshots in scope. */
  snapshotCount: number;
  /** The newest of them: the simulation's mindAssessmentId. */
  latestSnapshotId: string | null;
  /**
   * Changes whenever the set of snapshots in scope changes or one of them is reprocessed
   * (id, completedAt and updatedAt of each): the persona cache key.
   */
  fingerprint: string | null;
  /**
   * The semantic index of the scope, for the embedder asked about: how many of its snapshots
   * are embedded with it, and a fingerprint of those (id and embeddedAt of each) that keys the
   * in-process vector index. Null fingerprint: none is embedded yet.
   */
  embedder?: string;
  embeddedSnapshotCount?: number;
  semanticFingerprint?: string | null;
}

export type AsOfProblem = 'not_found' | 'other_mind';

/** The snapshots that count, as a SQL condition on `s` (snapshots). */
export function inScope(organizationId: string, mindId: string, asOfDate: Date | null): SQL {
  return sql`s.organization_id = ${organizationId} and s.mind_id = ${mindId} and s.status = 'completed' and s.linked
    ${asOfDate ? sql`and s.mindset_date <= ${asOfDate.toISOString()}::timestamptz` : sql``}`;
}

export const toDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

/**
 * The mind (null when it is not in the organization) and its scope, in one statement. When the
 * as-of snapshot is unknown or belongs to another mind, `asOfProblem` says which. With `embedder`
 * (the id of the process's embedder), also the state of the scope's semantic index.
 */
export async function loadMindScope(
  db: Db,
  organizationId: string,
  mindId: string,
  asOfSnapshotId: string | null,
  embedder: string | null = null,
): Promise<{ scope: MindScope; asOfProblem: AsOfProblem | null } | null> {
  const rows = rowsOf<{
    id: string;
    name: string;
    twin_id: string | null;
    as_of_mind_id: string | null;
    as_of_date: string | Date | null;
    snapshot_count: number | string;
    latest_id: string | null;
    fingerprint: string | null;
    embedded_count: number | string;
    semantic_fingerprint: string | null;
  }>(
    await db.execute(sql`
      with as_of as (
        select s.mind_id, s.mindset_date from snapshots s
        where s.id = ${asOfSnapshotId}::uuid and s.organization_id = ${organizationId}
      ),
      scope as (
        select s.id, s.mindset_date, s.completed_at, s.updated_at, s.embedder, s.embedded_at from snapshots s
        where s.organization_id = ${organizationId} and s.mind_id = ${mindId} and s.status = 'completed' and s.linked
          and (${asOfSnapshotId}::uuid is null
            or s.mindset_date <= (select a.mindset_date from as_of a where a.mind_id = ${mindId}))
      )
      select m.id, m.name,
        (select t.id from digital_twins t where t.mind_id = m.id and t.is_default order by t.created_at limit 1) as twin_id,
        (select a.mind_id from as_of a) as as_of_mind_id,
        (select a.mindset_date from as_of a) as as_of_date,
        (select count(*) from scope) as snapshot_count,
        (select sc.id from scope sc order by sc.mindset_date desc, sc.id desc limit 1) as latest_id,
        (select md5(string_agg(sc.id::text || '/' || coalesce(sc.completed_at::text, '') || '/' || sc.updated_at::text, ',' order by sc.id)) from scope sc) as fingerprint,
        (select count(*) from scope sc where sc.embedder = ${embedder}::text and sc.embedded_at is not null) as embedded_count,
        (select md5(string_agg(sc.id::text || '/' || sc.embedded_at::text, ',' order by sc.id)) from scope sc
          where sc.embedder = ${embedder}::text and sc.embedded_at is not null) as semantic_fingerprint
      from minds m
      where m.id = ${mindId} and m.organization_id = ${organizationId}
    `),
  );
  const r = rows[0];
  if (!r) return null;
  let asOfProblem: AsOfProblem | null = null;
  if (asOfSnapshotId) {
    if (!r.as_of_mind_id) asOfProblem = 'not_found';
    else if (r.as_of_mind_id !== mindId) asOfProblem = 'other_mind';
  }
  return {
    asOfProblem,
    scope: {
      mindId: r.id,
      mindName: r.name,
      organizationId,
      defaultTwinId: r.twin_id,
      asOfSnapshotId: asOfProblem ? null : asOfSnapshotId,
      asOfDate: asOfSnapshotId && !asOfProblem && r.as_of_date ? toDate(r.as_of_date) : null,
      snapshotCount: Number(r.snapshot_count),
      latestSnapshotId: r.latest_id,
      fingerprint: r.fingerprint,
      ...(embedder ? { embedder, embeddedSnapshotCount: Number(r.embedded_count), semanticFingerprint: r.semantic_fingerprint } : {}),
    },
  };
}
