/**
 * The fidelity job: queued when a mind's snapshots change (module.ts subscribes to the snapshot
 * events) or when GET /minds/{id}/fidelity finds the stored result out of date, and run by a
 * worker, never in a request or in the ingest pipeline's transaction (which only queues it).
 *
 * Debounced: at most one job per mind waits at a time. A change while one waits joins it (the
 * job reads the mind as it is when it starts); a change while one runs queues one more, since
 * the running one read the memory before the change.
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import { lockForTransaction, rowsOf, type Db } from '../../platform/db/client.ts';
import type { JobLogger } from '../../platform/jobs/log.ts';
import { PGBOSS_SCHEMA, type JobContext, type JobQueue } from '../../platform/jobs/queue.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import type { SimulationEngine } from '../../engines/types.ts';
import { loadMindScope } from '../memory/index.ts';
import { computeFidelity, memoryKey, type FidelityOutcome } from './compute.ts';

export interface FidelityJob {
  mindId: string;
  organizationId: string;
}

/** The engine the check answers with: the embedded extractive engine, whatever the default model (it costs nothing and calls no provider). */
export function fidelityEngine(ctx: Pick<Deps, 'engines'>): SimulationEngine {
  return ctx.engines.engines.find((e) => e.engine === 'extractive') ?? ctx.engines.defaultEngine;
}

/**
 * Queues the check of a mind in the caller's transaction unless one is already waiting (created
 * or retry); true when this call queued it. Exact under concurrency: a transaction-scoped
 * advisory lock on the mind orders the queuers (as the questionnaire's).
 */
export async function queueFidelity(tx: Db, queue: JobQueue, mind: FidelityJob): Promise<boolean> {
  await lockForTransaction(tx, `${QUEUE.fidelity}/${mind.mindId}`);
  const [waiting] = rowsOf<{ id: string }>(
    await tx.execute(sql`select j.id from ${sql.identifier(PGBOSS_SCHEMA)}.job j
      where j.name = ${QUEUE.fidelity} and j.data->>'mindId' = ${mind.mindId} and j.state in ('created', 'retry') limit 1`),
  );
  if (waiting) return false;
  await queue.send(tx, QUEUE.fidelity, { mindId: mind.mindId, organizationId: mind.organizationId } satisfies FidelityJob, { owner: mind.organizationId });
  return true;
}

/** Whether a check of the mind is waiting or running. */
export async function fidelityJobLive(db: Db, mindId: string): Promise<boolean> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`select j.id from ${sql.identifier(PGBOSS_SCHEMA)}.job j
      where j.name = ${QUEUE.fidelity} and j.data->>'mindId' = ${mindId} and j.state in ('created', 'retry', 'active') limit 1`),
  );
  return rows.length > 0;
}

/** The job handler for QUEUE.fidelity. Idempotent: it replaces the mind's row; nothing to do when the row is already of the current memory. */
export async function runFidelityJob(ctx: Deps, data: FidelityJob, job: JobContext, log: JobLogger): Promise<void> {
  const embedder = ctx.memory.embedder;
  const loaded = await loadMindScope(ctx.db, data.organizationId, data.mindId, null, embedder.id);
  if (!loaded) return; // the mind is gone
  const { scope } = loaded;
  const key = memoryKey(scope);
  const engine = fidelityEngine(ctx);
  const [stored] = rowsOf<{ memory_key: string; engine: string; embedder: string | null }>(
    await ctx.db.execute(sql`select memory_key, engine, embedder from mind_fidelity where mind_id = ${scope.mindId}`),
  );
  if (stored && stored.memory_key === key && stored.engine === engine.id && stored.embedder === embedder.id) return;
  const started = performance.now();
  const outcome = await computeFidelity({ db: ctx.db, embedder, engine, material: (sc) => ctx.personas.material(ctx.db, sc) }, scope);
  const durationMs = Math.round(performance.now() - started);
  await storeFidelity(ctx.db, scope.organizationId, scope.mindId, key, engine.id, embedder.id, outcome, durationMs);
  log.info({ mindId: scope.mindId, jobId: job.id, status: outcome.status, questions: outcome.questions, durationMs }, 'fidelity check stored');
}

/** Replaces the mind's row (nothing when the mind was deleted meanwhile). */
export async function storeFidelity(db: Db, organizationId: string, mindId: string, key: string, engine: string, embedder: string | null, o: FidelityOutcome, durationMs: number): Promise<void> {
  const ready = o.status === 'ready' ? o : null;
  const values = sql`${o.status}, ${o.status === 'insufficient' ? o.reason : null}, ${key}, ${engine}, ${embedder},
    ${o.conversations}, ${o.questions}, ${ready?.specificity ?? null}::float8, ${ready?.beyondQuestion ?? null}::float8,
    ${ready?.abstentionRate ?? null}::float8, ${ready?.medianSourceTurns ?? null}::float8, ${JSON.stringify(ready?.examples ?? [])}::jsonb, ${durationMs}, now()`;
  await db.execute(sql`
    insert into mind_fidelity (mind_id, organization_id, status, reason, memory_key, engine, embedder, conversations, questions,
      specificity, beyond_question, abstention_rate, median_source_turns, examples, duration_ms, computed_at)
    select m.id, m.organization_id, ${values} from minds m where m.id = ${mindId} and m.organization_id = ${organizationId}
    on conflict (mind_id) do update set status = excluded.status, reason = excluded.reason, memory_key = excluded.memory_key,
      engine = excluded.engine, embedder = excluded.embedder, conversations = excluded.conversations, questions = excluded.questions,
      specificity = excluded.specificity, beyond_question = excluded.beyond_question, abstention_rate = excluded.abstention_rate,
      median_source_turns = excluded.median_source_turns, examples = excluded.examples, duration_ms = excluded.duration_ms,
      computed_at = excluded.computed_at`);
}
