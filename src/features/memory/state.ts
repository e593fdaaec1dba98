/**
 * A snapshot's semantic index: its state, and the only writer of it (the snapshot row's embedder,
 * embedded_at, embedding_error, embedding_queued; test/architecture/state-writes.test.ts).
 *
 *   queueEmbedding      (turns just written)              → queued for this embedder, not embedded
 *   claimStale          another embedder's, or none       → queued for this embedder (the sweep)
 *   leaveToOtherEmbedder queued for another embedder      → unclaimed, for its own processes
 *   failEmbedding       queued                            → failed (error kept, unclaimed)
 *   markIndexed         every mind turn has a vector      → embedded                 snapshot.indexed
 *
 * Each is one conditional UPDATE, on completed snapshots only (a snapshot sent back to pending
 * gets new turns and a new job); the state for GET /minds/{mindId}/semantic-index is read below.
 */
import { sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import { inTransaction, type EventBus } from '../../platform/events/index.ts';
import type { JobQueue } from '../../platform/jobs/queue.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { iso } from '../../platform/http/schemas.ts';
import { assertMindExists } from '../minds/index.ts';
import type { SemanticIndexResponse } from './schemas.ts';
import type { Memory } from './service.ts';

/** Snapshots queued per sweep transaction. */
const SWEEP_BATCH = 500;

export interface EmbedSnapshotJob {
  snapshotId: string;
  /** The embedder it was queued for: a process configured with another one leaves it (see embedSnapshot). */
  embedder?: string;
}

/**
 * Queues the embedding of a snapshot whose turns were just (re)written, inside the caller's
 * transaction (the `snapshot.completed` subscriber): the index state goes back to "not embedded"
 * with the turns it described.
 */
export async function queueEmbedding(tx: Db, queue: JobQueue, snapshotId: string, embedderId: string): Promise<void> {
  const reset = rowsOf(
    await tx.execute(sql`update snapshots set embedder = null, embedded_at = null, embedding_error = null, embedding_queued = ${embedderId}
      where id = ${snapshotId} and status = 'completed'
      returning id`),
  );
  if (reset.length) await queue.send(tx, QUEUE.embedSnapshot, { snapshotId, embedder: embedderId } satisfies EmbedSnapshotJob);
}

/**
 * Queues every completed snapshot whose index is not of the current embedder and not already
 * queued for it: the re-embedding after a change of embedder, and snapshots stored before the
 * semantic index existed. `retryFailed` also takes the ones whose last job failed (at start).
 * One transaction per batch; the rows are claimed (embedding_queued) so processes starting
 * together queue each snapshot once. Returns how many were queued.
 */
export async function queueStaleSnapshots(memory: Memory, queue: JobQueue, opts: { retryFailed?: boolean } = {}): Promise<number> {
  const id = memory.embedder.id;
  let total = 0;
  for (;;) {
    const claimed = await memory.db.transaction(async (tx) => {
      const rows = rowsOf<{ id: string }>(
        await tx.execute(sql`
          update snapshots set embedding_queued = ${id}, embedding_error = null
          where id in (
            select s.id from snapshots s
            where s.status = 'completed' and (s.embedder is distinct from ${id} or s.embedded_at is null)
              and s.embedding_queued is distinct from ${id}
              ${opts.retryFailed ? sql`` : sql`and s.embedding_error is null`}
            order by s.completed_at
            limit ${SWEEP_BATCH}
            for update skip locked)
          returning id`),
      );
      for (const r of rows) await queue.send(tx, QUEUE.embedSnapshot, { snapshotId: r.id, embedder: id } satisfies EmbedSnapshotJob);
      return rows.length;
    });
    total += claimed;
    if (claimed < SWEEP_BATCH) return total;
  }
}

/**
 * A job queued for another embedder (replicas configured differently, or a rolling change of
 * configuration) is not this process's space: unclaimed, so the sweep of a process with the
 * embedder of the moment queues it again for that one.
 */
export async function leaveToOtherEmbedder(db: Db, snapshotId: string, queuedFor: string): Promise<void> {
  await db.execute(sql`update snapshots set embedding_queued = null where id = ${snapshotId} and embedding_queued = ${queuedFor}`);
}

/** The job gave up: the reason is kept, and the snapshot is not queued any more (the sweep at the next start tries again). */
export async function failEmbedding(db: Db, snapshotId: string, reason: string): Promise<void> {
  await db.execute(sql`update snapshots set embedding_error = ${reason}, embedding_queued = null where id = ${snapshotId} and status = 'completed'`);
}

/**
 * Embedded, only if every mind turn has a vector of this embedder (turns rewritten meanwhile
 * would not) and it was not already: of two runs of one job, one marks it and emits
 * `snapshot.indexed`. `events` is null where nothing subscribes (benchmarks).
 */
export async function markIndexed(db: Db, events: EventBus | null, snapshotId: string, embedderId: string): Promise<boolean> {
  return inTransaction(db, async (tx, after) => {
    const [row] = rowsOf<{ organization_id: string; mind_id: string }>(
      await tx.execute(sql`
        update snapshots s set embedder = ${embedderId}, embedded_at = now(), embedding_error = null
        where s.id = ${snapshotId} and s.status = 'completed'
          and (s.embedder is distinct from ${embedderId} or s.embedded_at is null)
          and not exists (select 1 from turns t where t.snapshot_id = s.id and t.is_mind
            and not exists (select 1 from turn_embeddings e where e.turn_id = t.id and e.embedder = ${embedderId}))
        returning s.organization_id, s.mind_id`),
    );
    if (!row) return false;
    await events?.emit(tx, 'snapshot.indexed', { organizationId: row.organization_id, mindId: row.mind_id, snapshotId, embedder: embedderId }, after);
    return true;
  });
}

export async function semanticIndexState(memory: Memory, caller: Caller, mindId: string): Promise<SemanticIndexResponse> {
  await assertMindExists(memory.db, caller, mindId);
  const id = memory.embedder.id;
  const [r] = rowsOf<{
    total: number | string;
    embedded: number | string;
    failed: number | string;
    last_embedded_at: string | Date | null;
    turns: number | string;
    embedded_turns: number | string;
    errors: { snapshotId: string; message: string }[] | string | null;
  }>(
    await memory.db.execute(sql`
      with s as (
        select id, embedder = ${id} and embedded_at is not null as done, embedding_error, embedded_at
        from snapshots where organization_id = ${caller.organizationId} and mind_id = ${mindId} and status = 'completed'
      )
      select (select count(*) from s) as total,
        (select count(*) from s where done) as embedded,
        (select count(*) from s where not done and embedding_error is not null) as failed,
        (select max(embedded_at) from s where done) as last_embedded_at,
        (select count(*) from turns t where t.mind_id = ${mindId} and t.organization_id = ${caller.organizationId} and t.is_mind
          and t.snapshot_id in (select id from s)) as turns,
        (select count(*) from turn_embeddings e where e.mind_id = ${mindId} and e.organization_id = ${caller.organizationId} and e.embedder = ${id}
          and e.snapshot_id in (select id from s)) as embedded_turns,
        (select json_agg(json_build_object('snapshotId', id, 'message', embedding_error) order by id) from s where not done and embedding_error is not null) as errors`),
  );
  const total = Number(r!.total);
  const embedded = Number(r!.embedded);
  const failed = Number(r!.failed);
  const pending = total - embedded - failed;
  const status = total === 0 ? 'empty' : pending > 0 ? 'indexing' : failed > 0 ? 'failed' : 'ready';
  const errors = r!.errors === null ? [] : typeof r!.errors === 'string' ? (JSON.parse(r!.errors) as { snapshotId: string; message: string }[]) : r!.errors;
  return {
    mindId,
    status,
    embedder: { id, dimensions: memory.embedder.dimensions || null, offline: !id.startsWith('openai-compatible:') },
    vectorSearch: await memory.vectorSearch(),
    snapshots: { total, embedded, pending, failed },
    turns: { total: Number(r!.turns), embedded: Number(r!.embedded_turns) },
    lastEmbeddedAt: iso(r!.last_embedded_at),
    errors,
  };
}
