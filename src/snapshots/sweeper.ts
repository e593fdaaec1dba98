/**
 * Snapshots that can never finish: every attempt of their job was lost (the worker was killed, or
 * a SIGTERM's grace period ran out, on the last attempt), so pg-boss failed the job without any
 * handler running to record it. Swept periodically by every process that runs the queue, and
 * marked `failed` with a reason a person can act on.
 */
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { rowsOf } from '../db/client.ts';
import type { JobLogger } from '../jobs/log.ts';
import type { QueueDefinition } from '../jobs/queue.ts';
import { attemptsBudgetSeconds, liveJobKeys } from '../jobs/sweeper.ts';

export const LOST_REASON = 'Processing was interrupted repeatedly (worker lost); upload again';

/**
 * Fails the open snapshots whose job is no longer live, and (a backstop for a queue whose
 * maintenance stopped) those processing for longer than all attempts can take. Returns their ids.
 */
export async function sweepLostSnapshots(ctx: AppContext, queue: QueueDefinition, log: JobLogger): Promise<string[]> {
  const budget = attemptsBudgetSeconds(queue, ctx.config.jobMaintenanceSeconds);
  const rows = rowsOf<{ id: string; organization_id: string; mind_id: string; status: string }>(
    await ctx.db.execute(sql`
      update snapshots s set status = 'failed', error = ${LOST_REASON}, completed_at = now(), updated_at = now()
      from snapshots prior
      where s.id = prior.id and s.status in ('pending', 'processing') and (
        s.id::text not in (${liveJobKeys(queue.name, 'snapshotId')})
        or (s.status = 'processing' and s.started_at < now() - make_interval(secs => ${budget})))
      returning s.id, s.organization_id, s.mind_id, prior.status`),
  );
  for (const r of rows) {
    ctx.mindCache?.invalidate(r.organization_id);
    log.warn({ snapshotId: r.id, mindId: r.mind_id, was: r.status }, 'snapshot failed by the sweeper: its job can no longer run');
  }
  return rows.map((r) => r.id);
}
