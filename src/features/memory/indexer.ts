/**
 * The semantic index: every turn of the mind, and the question it answered, embedded after the
 * snapshot is stored — in a job of its own (QUEUE.embedSnapshot), so `completed` never waits for
 * an embedding provider. The snapshot row says where its index stands (embedder, embeddedAt,
 * embeddingError; written by state.ts only); a change of embedder re-embeds every snapshot in the
 * background (state.ts queueStaleSnapshots, at worker start and at each maintenance interval).
 *
 * Idempotent: a run embeds only the turns that lack a vector of the current embedder and
 * upserts them, so a retried or duplicated job costs nothing twice; the snapshot is marked
 * embedded only when none is missing.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import type { EventBus } from '../../platform/events/index.ts';
import { EmbeddingError } from '../../lib/embeddings/index.ts';
import type { JobLogger } from '../../platform/jobs/log.ts';
import type { JobContext } from '../../platform/jobs/queue.ts';
import type { Memory } from './service.ts';
import { failEmbedding, leaveToOtherEmbedder, markIndexed, type EmbedSnapshotJob } from './state.ts';
import { encodeVector, isZero, vectorLiteral } from './vectors.ts';

/** Turns embedded per round trip (texts and their questions: up to twice as many texts). */
export const EMBED_BATCH = 256;
interface TurnToEmbed {
  id: string;
  organization_id: string;
  mind_id: string;
  text: string;
  context: string | null;
}

/** The job handler for QUEUE.embedSnapshot; `events` receive `snapshot.indexed` (none in benchmarks). */
export async function embedSnapshot(memory: Memory, data: EmbedSnapshotJob, job: JobContext, log: JobLogger, events: EventBus | null = null): Promise<void> {
  const { db, embedder } = memory;
  const started = performance.now();
  if (data.embedder && data.embedder !== embedder.id) {
    log.warn({ snapshotId: data.snapshotId, jobId: job.id, queuedFor: data.embedder, embedder: embedder.id }, 'semantic index: job queued for another embedder; left to the processes configured with it');
    await leaveToOtherEmbedder(db, data.snapshotId, data.embedder);
    return;
  }
  const [snap] = rowsOf<{ status: string; embedder: string | null; embedded_at: unknown }>(
    await db.execute(sql`select status, embedder, embedded_at from snapshots where id = ${data.snapshotId}`),
  );
  // Deleted, or set back to pending (another speaker chosen: its new turns queue a new job).
  if (!snap || snap.status !== 'completed') return;
  if (snap.embedder === embedder.id && snap.embedded_at) return;
  const pgvector = await memory.hasVectorColumns();
  let embedded = 0;
  try {
    for (;;) {
      const rows = rowsOf<TurnToEmbed>(
        await db.execute(sql`
          select t.id, t.organization_id, t.mind_id, t.text, t.context from turns t
          where t.snapshot_id = ${data.snapshotId} and t.is_mind
            and not exists (select 1 from turn_embeddings e where e.turn_id = t.id and e.embedder = ${embedder.id})
          order by t.seq
          limit ${EMBED_BATCH}`),
      );
      if (rows.length === 0) break;
      // The questions repeat (long replies cut in parts share one): each distinct one embedded once.
      const questions = [...new Set(rows.map((r) => r.context?.trim()).filter((c): c is string => Boolean(c)))];
      const vectors = await embedder.embed([...rows.map((r) => r.text), ...questions]);
      const byQuestion = new Map(questions.map((q, i) => [q, vectors[rows.length + i]!]));
      await writeEmbeddings(db, pgvector, embedder.id, data.snapshotId, rows.map((r, i) => ({ turn: r, text: vectors[i]!, context: r.context?.trim() ? byQuestion.get(r.context.trim())! : null })));
      embedded += rows.length;
      if (rows.length < EMBED_BATCH) break;
    }
  } catch (err) {
    const transient = err instanceof EmbeddingError ? err.transient : true;
    const reason = err instanceof EmbeddingError ? err.message : 'an internal error occurred while embedding the turns';
    if (transient && !job.isLastAttempt) {
      log.warn({ snapshotId: data.snapshotId, jobId: job.id, attempt: job.retryCount + 1, err }, 'semantic index: embedding will be retried');
      throw err;
    }
    log.error({ snapshotId: data.snapshotId, jobId: job.id, attempt: job.retryCount + 1, err }, 'semantic index: embedding failed');
    // Not queued any more: the sweep at the next start tries again (after a fix of the configuration, say).
    await failEmbedding(db, data.snapshotId, reason);
    return;
  }
  // Embedded only if every mind turn has a vector of this embedder (turns rewritten meanwhile would not).
  await markIndexed(db, events, data.snapshotId, embedder.id);
  // PGlite has no autovacuum: planner statistics of turn_embeddings follow (debounced ANALYZE).
  if (embedded > 0) memory.database.noteBulkWrite();
  log.info({ snapshotId: data.snapshotId, jobId: job.id, embedder: embedder.id, turns: embedded, ms: Math.round(performance.now() - started) }, 'semantic index: snapshot embedded');
}

async function writeEmbeddings(
  db: Db,
  pgvector: boolean,
  embedderId: string,
  snapshotId: string,
  rows: { turn: TurnToEmbed; text: Float32Array; context: Float32Array | null }[],
): Promise<void> {
  if (!rows.length) return;
  const values = rows.map(({ turn, text, context }) => {
    const base = sql`${turn.id}::uuid, ${turn.organization_id}::uuid, ${turn.mind_id}::uuid, ${snapshotId}::uuid, ${embedderId}, ${text.length},
      ${encodeVector(text)}::bytea, ${context ? encodeVector(context) : null}::bytea`;
    // A zero vector (no known word) has no direction: pgvector's cosine of it is NaN, so it is left out there.
    if (!pgvector) return sql`(${base})`;
    const v = (x: Float32Array | null) => (x && !isZero(x) ? vectorLiteral(x) : null);
    return sql`(${base}, ${v(text)}::vector, ${v(context)}::vector)`;
  });
  const vectorColumns = pgvector ? sql`, text_vector, context_vector` : sql``;
  const vectorUpdates = pgvector ? sql`, text_vector = excluded.text_vector, context_vector = excluded.context_vector` : sql``;
  await db.execute(sql`
    insert into turn_embeddings (turn_id, organization_id, mind_id, snapshot_id, embedder, dimensions, embedding, context_embedding${vectorColumns})
    values ${sql.join(values, sql`, `)}
    on conflict (turn_id) do update set embedder = excluded.embedder, dimensions = excluded.dimensions,
      embedding = excluded.embedding, context_embedding = excluded.context_embedding, created_at = now()${vectorUpdates}`);
}
