/**
 * Background runs (POST /simulate with runInBackground): the worker's handler for
 * QUEUE.runSimulation, which answers a stored pending message the way a request would.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/db/client.ts';
import type { JobContext } from '../../platform/jobs/queue.ts';
import { LlmEngineError } from '../../engines/llm/index.ts';
import { loadMindScope } from '../memory/index.ts';
import { executeRun, finish, type RunError, type RunServices } from './run.ts';
import { startBackgroundRun } from './state.ts';

export interface SimulationJob {
  organizationId: string;
  messageId: string;
  model: string;
}

/** LLM errors that the same request will hit again: no point in retrying the job. */
const PERMANENT = new Set(['auth', 'not_found', 'provider_rejected', 'aborted']);

/** The job handler for QUEUE.runSimulation. Idempotent: a message that already ended is left alone. */
export async function runSimulationJob(s: RunServices, data: SimulationJob, job: JobContext): Promise<void> {
  const [row] = rowsOf<{ id: string; seq: number; status: string; simulation_id: string; mind_id: string; as_of_snapshot_id: string | null; text: string | null }>(
    await s.db.execute(sql`
      select m.id, m.seq, m.status, sim.id as simulation_id, sim.mind_id, sim.as_of_snapshot_id,
        (select u.content->>'text' from messages u where u.conversation_id = sim.id and u.seq = m.seq - 1) as text
      from messages m join simulations sim on sim.id = m.conversation_id
      where m.id = ${data.messageId} and sim.organization_id = ${data.organizationId}`),
  );
  // Deleted meanwhile (simulation or mind), or already finished by an earlier attempt.
  if (!row || (row.status !== 'pending' && row.status !== 'streaming')) return;
  const seq = Number(row.seq);
  const fail = (error: RunError) => finish(s, row.id, { error });
  if (!row.text) return fail({ code: 'internal', message: 'The question of this simulation message is missing' });
  await startBackgroundRun(s.db, row.id);

  const loaded = await loadMindScope(s.db, data.organizationId, row.mind_id, row.as_of_snapshot_id, s.memory?.embedder.id ?? null);
  if (!loaded) return; // the mind is gone, and its simulations with it
  if (loaded.asOfProblem || loaded.scope.snapshotCount === 0) {
    return fail({ code: 'no_memory', message: 'The mind no longer has a completed, linked snapshot to answer from' });
  }
  const engine = s.engines.forStored(data.model);
  await executeRun(s, loaded.scope, engine, { simulationId: row.simulation_id, messageId: row.id, seq }, row.text, {
    // Leave the message pending for the next attempt unless this is the last one or retrying cannot help.
    retryable: (err) => !job.isLastAttempt && !(err instanceof LlmEngineError && PERMANENT.has(err.code)),
  }).catch((err: unknown) => {
    // A failure already stored on the message is final: do not make pg-boss retry it.
    if (!job.isLastAttempt && !(err instanceof LlmEngineError && PERMANENT.has(err.code))) throw err;
  });
}
