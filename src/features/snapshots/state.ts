/**
 * A snapshot's lifecycle, and the only writer of its status (test/architecture/state-writes.test.ts):
 *
 *   startAttempt  pending | processing | failed as lost → processing
 *   complete      pending | processing | failed → completed       snapshot.completed
 *   fail          pending | processing | failed → failed          snapshot.failed (entering it)
 *   sweepLost     pending | processing → failed                   snapshot.failed
 *   reprocess     completed | failed → pending                    snapshot.reprocessing
 *
 * Each transition is one conditional `UPDATE … WHERE status IN (…) RETURNING`: of two writers
 * racing (two attempts of one job, an attempt and the sweeper, two PUT …/speaker), only the one
 * whose update changed the row goes on, and only it emits the transition's event, in its
 * transaction. What follows outside the database — the mind cache (its snapshot counts), waking
 * the worker — is handed to `after` and runs once the change has committed.
 */
import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import { artifacts, snapshots } from '../../platform/db/schema.ts';
import { inTransaction, type AfterCommit } from '../../platform/events/index.ts';
import type { JobLogger } from '../../platform/jobs/log.ts';
import type { QueueDefinition } from '../../platform/jobs/queue.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { liveJobKeys } from '../../platform/jobs/sweeper.ts';

type Services = Pick<Deps, 'db' | 'events' | 'queue' | 'mindCache'>;

/** The sweeper's reason: no attempt of the job can run any more (every one was lost with its worker). */
export const LOST_REASON = 'Processing was interrupted repeatedly (worker lost); upload again';

/** Open: an attempt of the job is coming or running. */
export const OPEN = ['pending', 'processing'] as const;
/** Statuses that `complete` and `fail` take a snapshot from (a computed result stands over any failure). */
const UNFINISHED = ['pending', 'processing', 'failed'] as const;
/** Statuses that `reprocess` takes a snapshot from: finished ones. */
const FINISHED = ['completed', 'failed'] as const;

/**
 * Which snapshots an attempt of their job may (still) process and store: open ones, and ones the
 * sweeper failed as lost (it failed them because it saw no attempt coming, and here one is).
 */
const OPEN_FOR_ATTEMPT = or(inArray(snapshots.status, [...OPEN]), and(eq(snapshots.status, 'failed'), eq(snapshots.error, LOST_REASON)));
export const openForAttempt = (s: { status: string; error: string | null }) => s.status === 'pending' || s.status === 'processing' || (s.status === 'failed' && s.error === LOST_REASON);

/** The mind's snapshot counts (GET /minds) change with a snapshot's status. */
function invalidateMinds(ctx: Services, after: AfterCommit, organizationId: string): void {
  after.add(() => ctx.mindCache?.invalidate(organizationId));
}

/**
 * → processing. Counts an attempt; false when the snapshot was deleted or finished since it was
 * read (another attempt completed it), so a completed snapshot never goes back to processing. A
 * snapshot the sweeper failed as lost is taken back (OPEN_FOR_ATTEMPT): its error is cleared.
 * No event: processing is the job's inside, not news.
 */
export async function startAttempt(db: Db, snapshotId: string): Promise<boolean> {
  const started = await db
    .update(snapshots)
    .set({ status: 'processing', error: null, completedAt: null, startedAt: sql`coalesce(${snapshots.startedAt}, now())`, attempts: sql`${snapshots.attempts} + 1`, updatedAt: new Date() })
    .where(and(eq(snapshots.id, snapshotId), OPEN_FOR_ATTEMPT))
    .returning({ id: snapshots.id });
  return started.length > 0;
}

/** What a completing attempt found in the file: the speakers and the counts of what it stored. */
export type Completion = Pick<
  typeof snapshots.$inferInsert,
  'mindSpeaker' | 'attribution' | 'speakersLabelled' | 'speakers' | 'mindWords' | 'psychometricCount' | 'keyTopicCount' | 'findingCount'
>;

/**
 * → completed, inside the storing transaction (pipeline.ts store, which holds the row lock and
 * has written the turns). Emits `snapshot.completed`: the semantic index and the questionnaire
 * follow in this transaction. False when the snapshot was already completed or is gone.
 */
export async function complete(ctx: Services, tx: Db, snapshotId: string, c: Completion, after: AfterCommit): Promise<boolean> {
  const [row] = await tx
    .update(snapshots)
    .set({
      status: 'completed',
      error: null,
      mindSpeaker: c.mindSpeaker,
      attribution: c.attribution,
      speakersLabelled: c.speakersLabelled,
      speakers: c.speakers,
      mindWords: c.mindWords,
      psychometricCount: c.psychometricCount,
      keyTopicCount: c.keyTopicCount,
      findingCount: c.findingCount,
      completedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(and(eq(snapshots.id, snapshotId), inArray(snapshots.status, [...UNFINISHED])))
    .returning({ organizationId: snapshots.organizationId, mindId: snapshots.mindId });
  if (!row) return false;
  await ctx.events.emit(tx, 'snapshot.completed', { organizationId: row.organizationId, mindId: row.mindId, snapshotId }, after);
  invalidateMinds(ctx, after, row.organizationId);
  return true;
}

/**
 * → failed, with a reason a person can act on; unless another attempt of its job has completed it
 * meanwhile: that result stands. A snapshot already failed (the sweeper's "lost" while this
 * attempt still ran) takes the attempt's reason, the better one, without a second event.
 */
export async function fail(ctx: Services, snapshotId: string, reason: string): Promise<void> {
  await inTransaction(ctx.db, async (tx, after) => {
    const [prior] = await tx.select({ status: snapshots.status }).from(snapshots).where(eq(snapshots.id, snapshotId)).for('update');
    if (!prior) return;
    const [row] = await tx
      .update(snapshots)
      .set({ status: 'failed', error: reason, completedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(snapshots.id, snapshotId), inArray(snapshots.status, [...UNFINISHED])))
      .returning({ organizationId: snapshots.organizationId, mindId: snapshots.mindId });
    if (!row) return;
    if (prior.status !== 'failed') await ctx.events.emit(tx, 'snapshot.failed', { organizationId: row.organizationId, mindId: row.mindId, snapshotId, error: reason }, after);
    invalidateMinds(ctx, after, row.organizationId);
  });
}

/**
 * → pending with another speaker, inside the caller's transaction (speakers.ts setSpeaker, which
 * locked the row and removed what the previous speaker's processing stored); its job is queued
 * in the same transaction, so a pending snapshot always has one. Null when it is open already.
 */
export async function reprocess(ctx: Services, tx: Db, snapshotId: string, speaker: string, after: AfterCommit, owner: string): Promise<typeof snapshots.$inferSelect | null> {
  const [row] = await tx
    .update(snapshots)
    .set({
      status: 'pending',
      requestedSpeaker: speaker,
      error: null,
      mindSpeaker: null,
      attribution: null,
      speakersLabelled: null,
      speakers: null,
      mindWords: 0,
      psychometricCount: 0,
      keyTopicCount: 0,
      findingCount: 0,
      attempts: 0,
      startedAt: null,
      completedAt: null,
      updatedAt: new Date(),
    })
    .where(and(eq(snapshots.id, snapshotId), inArray(snapshots.status, [...FINISHED])))
    .returning();
  if (!row) return null;
  await ctx.queue.send(tx, QUEUE.processSnapshot, { snapshotId }, { owner });
  await ctx.events.emit(tx, 'snapshot.reprocessing', { organizationId: row.organizationId, mindId: row.mindId, snapshotId, speaker }, after);
  after.add(() => ctx.queue.wake(QUEUE.processSnapshot));
  invalidateMinds(ctx, after, row.organizationId);
  return row;
}

/**
 * pending | processing → failed for the open snapshots whose job will not run again (finished,
 * failed, cancelled or gone): the sweeper's transition, one statement for all of them. Returns
 * their ids.
 */
export async function sweepLost(ctx: Services, queue: QueueDefinition, log: JobLogger): Promise<string[]> {
  return inTransaction(ctx.db, async (tx, after) => {
    const rows = rowsOf<{ id: string; organization_id: string; mind_id: string; status: string }>(
      await tx.execute(sql`
        update snapshots s set status = 'failed', error = ${LOST_REASON}, completed_at = now(), updated_at = now()
        from snapshots prior
        where s.id = prior.id and s.status in ('pending', 'processing')
          and s.id::text not in (${liveJobKeys(queue.name, 'snapshotId')})
        returning s.id, s.organization_id, s.mind_id, prior.status`),
    );
    for (const r of rows) {
      await ctx.events.emit(tx, 'snapshot.failed', { organizationId: r.organization_id, mindId: r.mind_id, snapshotId: r.id, error: LOST_REASON }, after);
      invalidateMinds(ctx, after, r.organization_id);
      after.add(() => log.warn({ snapshotId: r.id, mindId: r.mind_id, was: r.status }, 'snapshot failed by the sweeper: its job can no longer run'));
    }
    return rows.map((r) => r.id);
  });
}

// ─────────────────────────────────────────────────────────────────────────────────────────────
// An artifact's upload, the other lifecycle of this feature (no events: nothing follows it):
//
//   claimUpload     awaiting_upload → uploading   a signed URL's PUT, or a presigned upload's first use
//   markUploaded    uploading → uploaded          the bytes checked and stored
//   abandonUpload   uploading → awaiting_upload   a refused body: the URL stays usable until it expires
//   reopenUploads   uploading, cut short by a crash → awaiting_upload (the sweeper)
//
// While `uploading`, uploaded_at holds when that upload (or confirmation) began, so the sweeper
// can tell one a crash cut short; once `uploaded`, it is when the bytes were stored.

type ArtifactRow = typeof artifacts.$inferSelect;

/** Claims an artifact's upload; of two requests at once, one gets the row. `also`: the URL's own conditions. */
export async function claimUpload(db: Db, artifactId: string, also?: SQL): Promise<ArtifactRow | undefined> {
  const [claimed] = await db
    .update(artifacts)
    .set({ status: 'uploading', uploadedAt: new Date() })
    .where(and(eq(artifacts.id, artifactId), eq(artifacts.status, 'awaiting_upload'), also))
    .returning();
  return claimed;
}

/** What an upload found its bytes to be, once stored. */
export type Upload = Pick<typeof artifacts.$inferInsert, 'kind' | 'autoCaptions' | 'size' | 'sha256' | 'contentType'> & { storageKey?: string };

/** The upload is done; undefined when the row is gone (its mind deleted meanwhile) or the sweeper settled it. */
export async function markUploaded(db: Db, artifactId: string, upload: Upload): Promise<ArtifactRow | undefined> {
  const [updated] = await db
    .update(artifacts)
    .set({ ...upload, status: 'uploaded', uploadedAt: new Date() })
    .where(and(eq(artifacts.id, artifactId), eq(artifacts.status, 'uploading')))
    .returning();
  return updated;
}

/** Back to waiting for the signed URL's PUT; the attempt's start time goes with it. Only from `uploading`: the sweeper may have settled it. */
export async function abandonUpload(db: Db, artifactId: string): Promise<void> {
  await db.update(artifacts).set({ status: 'awaiting_upload', uploadedAt: null }).where(and(eq(artifacts.id, artifactId), eq(artifacts.status, 'uploading')));
}

/** Reopens at most `batch` crashed uploads matching `reopenable` (rows claimed SKIP LOCKED); returns how many. */
export async function reopenUploads(db: Db, reopenable: SQL, batch: number): Promise<number> {
  const rows = rowsOf(
    await db.execute(sql`update artifacts set status = 'awaiting_upload', uploaded_at = null
      where id in (select id from artifacts where ${reopenable} limit ${batch} for update skip locked) and ${reopenable}
      returning id`),
  );
  return rows.length;
}
