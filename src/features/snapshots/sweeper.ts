/**
 * Periodic maintenance of snapshots and their files, run by every process that runs the queue.
 *
 * Snapshots that can never finish: their job will not run again (every attempt was lost: the worker
 * was killed, or a SIGTERM's grace period ran out, on the last attempt, so pg-boss failed the job
 * without any handler recording it). They are marked `failed` with a reason a person can act on.
 * Only the job's state decides (jobs/sweeper.ts JOB_STATE_MAY_RUN), never how long the snapshot
 * has waited: workers down for longer than all attempts take leave the job waiting, and it runs
 * once one starts. And if an attempt does finish after all (one that pg-boss gave up on while its
 * handler still ran), its result wins: the pipeline completes a snapshot this sweeper failed.
 *
 * Artifacts nobody will finish: (a) a signed URL that expired unused, (b) an upload a crash left
 * `uploading`, (c) stored bytes no row owns (a crash between storing a direct upload and
 * inserting its rows, a replayed presigned PUT). They are removed, or (b) reopened.
 */
import { inArray, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import { rowsOf } from '../../platform/db/client.ts';
import { artifacts } from '../../platform/db/schema.ts';
import type { JobLogger } from '../../platform/jobs/log.ts';
import type { QueueDefinition } from '../../platform/jobs/queue.ts';
import { ARTIFACTS_PREFIX, keysOf, parseArtifactKey } from './artifact-keys.ts';
import { SIGNED_URL_SECONDS } from './signed-upload.ts';
import { reopenUploads, sweepLost } from './state.ts';

export { LOST_REASON } from './state.ts';

/** Fails the open snapshots whose job will not run again (finished, failed, cancelled or gone). Returns their ids. */
export async function sweepLostSnapshots(ctx: Deps, queue: QueueDefinition, log: JobLogger): Promise<string[]> {
  return sweepLost(ctx, queue, log);
}

// ---------------------------------------------------------------------------------------------
// Abandoned artifacts: signed URLs never used, uploads a crash cut short, files without rows.

/**
 * A signed URL counts as expired only this long after its nominal expiry: processes (and S3)
 * do not share one clock, and a client that PUT to S3 just before expiry may confirm just after.
 */
export const EXPIRY_GRACE_SECONDS = 15 * 60;
/**
 * An upload (or a presigned upload's confirmation) still `uploading` after this long was cut
 * short by a crash: the size limit arriving at 256 kbit/s (32 KiB/s; 50 MB → 27 min), and never
 * less than 30 minutes. A local PUT's body must arrive within the HTTP server's requestTimeout
 * (2 minutes) and a confirmation copies at data-centre speed, so a live one is never mistaken
 * for a dead one, even if a proxy or a larger limit slows uploads down.
 */
export function stuckUploadSeconds(maxUploadBytes: number): number {
  return Math.max(30 * 60, Math.ceil(maxUploadBytes / (32 * 1024)));
}
/**
 * A stored object younger than this is never taken for an orphan: a direct upload stores its
 * file a moment before the rows that own it are inserted.
 */
export const ORPHAN_MIN_AGE_SECONDS = 60 * 60;
/** Listing the store costs a request per 1000 objects on S3: once an hour per process is plenty. */
const STORE_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** Rows per statement, statements per sweep: a backlog is worked off over a few sweeps, never in one huge one. */
const BATCH = 500;
const MAX_BATCHES = 20;
/** Objects deleted at once (S3 has no bulk delete we can rely on, see S3ArtifactStore.deletePrefix). */
const DELETE_CONCURRENCY = 8;

export interface ArtifactSweep {
  /** awaiting_upload rows whose URL expired unused, removed with any bytes. */
  expired: number;
  /** Crashed uploads whose URL has expired, removed with any bytes. */
  crashed: number;
  /** Crashed uploads whose URL still works, put back to awaiting_upload. */
  reopened: number;
  /** Stored objects no artifact row owns (null: the store was not listed this time). */
  orphans: number | null;
}

export interface ArtifactSweepOptions {
  /** The sweep's clock (tests move it). */
  now?: Date;
  /** List the store for orphans (default true). */
  listStore?: boolean;
}

/**
 * The periodic artifact sweep (module.ts schedules it beside sweepLostSnapshots, so neither keeps
 * the other from running): rows at every maintenance (a few small statements), the store listing
 * at most hourly per process (the returned function remembers when it last listed).
 */
export function artifactSweepSchedule(ctx: Deps, log: JobLogger): () => Promise<void> {
  let last: number | undefined;
  return async () => {
    const listStore = last === undefined || Date.now() - last >= STORE_SWEEP_INTERVAL_MS;
    if (listStore) last = Date.now();
    await sweepArtifacts(ctx, log, { listStore });
  };
}

/**
 * One sweep of abandoned artifacts. Every change is conditional on the state it was chosen in
 * and claims its rows with SKIP LOCKED, so processes sweeping at once split the work, and a
 * sweep racing an upload that finishes after all loses harmlessly: the upload's own update (from
 * `uploading`) then finds nothing and removes its bytes itself.
 */
export async function sweepArtifacts(ctx: Deps, log: JobLogger, opts: ArtifactSweepOptions = {}): Promise<ArtifactSweep> {
  const now = opts.now ?? new Date();
  const removed = await removeAbandonedArtifacts(ctx, now, log);
  const reopened = await reopenCrashedUploads(ctx, now);
  const orphans = opts.listStore === false ? null : await removeOrphanObjects(ctx, now, log);
  const sweep = { expired: removed.expired, crashed: removed.crashed, reopened, orphans };
  if (sweep.expired + sweep.crashed + sweep.reopened + (orphans ?? 0) > 0) log.info({ ...sweep }, 'artifact sweeper: abandoned uploads and files cleaned up');
  return sweep;
}

/** The cut-offs of a sweep at `now`, as timestamps the database compares with. */
function cutoffs(ctx: Deps, now: Date) {
  const at = (secondsAgo: number) => new Date(now.getTime() - secondsAgo * 1000).toISOString();
  return {
    /** Rows created before this have a signed URL that no longer works. */
    expiredBefore: at(SIGNED_URL_SECONDS + EXPIRY_GRACE_SECONDS),
    /** Uploads begun before this were cut short. */
    stuckBefore: at(stuckUploadSeconds(ctx.config.maxUploadBytes)),
  };
}

/**
 * `uploading` for longer than the bound. Rows claimed before uploaded_at marked the start have
 * none: their upload began while the URL worked, so by its expiry at the latest.
 */
function stuckUpload(c: ReturnType<typeof cutoffs>): SQL {
  return sql`status = 'uploading'
    and coalesce(uploaded_at, created_at + make_interval(secs => ${SIGNED_URL_SECONDS})) < ${c.stuckBefore}::timestamptz`;
}

/** (a) and (b) with an expired URL: nothing can arrive any more, so row and bytes go. */
async function removeAbandonedArtifacts(ctx: Deps, now: Date, log: JobLogger): Promise<{ expired: number; crashed: number }> {
  const c = cutoffs(ctx, now);
  // No snapshot can use an artifact before it is uploaded; the check keeps the foreign key safe anyway.
  const removable = sql`created_at < ${c.expiredBefore}::timestamptz
    and (status = 'awaiting_upload' or (${stuckUpload(c)}))
    and not exists (select 1 from snapshots s where s.artifact_id = artifacts.id)`;
  const counts = { expired: 0, crashed: 0 };
  await inBatches(
    ctx,
    (batch) => sql`delete from artifacts where id in (select id from artifacts where ${removable} limit ${batch} for update skip locked)
      and ${removable}
      returning id, organization_id, mind_id, storage_key, status`,
    async (rows: { id: string; organization_id: string; mind_id: string; storage_key: string; status: string }[]) => {
      // Rows first, then bytes: a row gone stops every writer (a local URL needs it, a confirmation
      // updates it); bytes a failed delete leaves are orphans for the store listing.
      const keys = rows.flatMap((r) => keysOf({ id: r.id, organizationId: r.organization_id, mindId: r.mind_id, storageKey: r.storage_key }));
      await deleteObjects(ctx, keys, log);
      for (const r of rows) counts[r.status === 'uploading' ? 'crashed' : 'expired']++;
    },
  );
  return counts;
}

/**
 * Runs a statement that claims and changes at most `batch` rows (LIMIT … FOR UPDATE SKIP LOCKED)
 * until it changes fewer, MAX_BATCHES times at most; `each` sees every batch's returned rows.
 */
async function inBatches<R>(ctx: Deps, statement: (batch: number) => SQL, each: (rows: R[]) => Promise<void> | void): Promise<void> {
  for (let i = 0; i < MAX_BATCHES; i++) {
    const rows = rowsOf<R>(await ctx.db.execute(statement(BATCH)));
    await each(rows);
    if (rows.length < BATCH) return;
  }
}

/**
 * (b) with a URL that still works: the client may try again, so the artifact waits for its
 * upload once more. Nothing is deleted: the next PUT (or confirmation) replaces whatever the
 * crashed one left, and if none comes, the row expires and removeAbandonedArtifacts takes it all.
 */
async function reopenCrashedUploads(ctx: Deps, now: Date): Promise<number> {
  const c = cutoffs(ctx, now);
  const reopenable = sql`${stuckUpload(c)} and created_at >= ${c.expiredBefore}::timestamptz`;
  let reopened = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await reopenUploads(ctx.db, reopenable, BATCH);
    reopened += n;
    if (n < BATCH) break;
  }
  return reopened;
}

interface OwnedKey {
  key: string;
  organizationId: string;
  mindId: string;
  artifactId: string;
}

/**
 * (c) Objects old enough and in this service's key layout that no row owns: a direct upload's
 * file whose rows were never inserted (a crash between store and transaction), a replayed
 * presigned PUT, bytes a delete left behind. Keys in any other shape are not ours to judge.
 */
async function removeOrphanObjects(ctx: Deps, now: Date, log: JobLogger): Promise<number> {
  const youngest = now.getTime() - ORPHAN_MIN_AGE_SECONDS * 1000;
  let removed = 0;
  let page: OwnedKey[] = [];
  for await (const o of ctx.store.list(ARTIFACTS_PREFIX)) {
    const owner = o.lastModified.getTime() <= youngest ? parseArtifactKey(o.key) : null;
    if (owner) page.push({ key: o.key, ...owner });
    if (page.length >= BATCH) {
      removed += await removeUnowned(ctx, page, log);
      page = [];
    }
  }
  if (page.length > 0) removed += await removeUnowned(ctx, page, log);
  return removed;
}

/** One query for a page of keys. A row owns its storage key, and while not yet uploaded every key it may write. */
async function removeUnowned(ctx: Deps, page: OwnedKey[], log: JobLogger): Promise<number> {
  const ids = [...new Set(page.map((k) => k.artifactId))];
  const owners = new Map(
    (await ctx.db
      .select({ id: artifacts.id, organizationId: artifacts.organizationId, mindId: artifacts.mindId, storageKey: artifacts.storageKey, status: artifacts.status })
      .from(artifacts)
      .where(inArray(artifacts.id, ids))).map((a) => [a.id, a]),
  );
  const orphans = page.filter(({ key, organizationId, mindId, artifactId }) => {
    const a = owners.get(artifactId);
    const owns = a !== undefined && a.organizationId === organizationId && a.mindId === mindId && (a.storageKey === key || a.status !== 'uploaded');
    return !owns;
  });
  return deleteObjects(ctx, orphans.map((o) => o.key), log);
}

/** Deletes keys a few at a time; returns how many went. A failure is logged: the next listing finds the key again. */
async function deleteObjects(ctx: Deps, keys: string[], log: JobLogger): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY) {
    const chunk = keys.slice(i, i + DELETE_CONCURRENCY);
    const results = await Promise.allSettled(chunk.map((k) => ctx.store.delete(k)));
    results.forEach((r, j) => {
      if (r.status === 'fulfilled') deleted++;
      else log.warn({ key: chunk[j], err: r.reason }, 'artifact sweeper could not delete a stored object');
    });
  }
  return deleted;
}
