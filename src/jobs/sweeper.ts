/**
 * What sweepers of lost work share: which rows still have a job that may run. A row whose job is
 * in a final state (its attempts all failed or expired, e.g. its worker was killed on the last
 * attempt; cancelled; completed without the handler finishing the row) or gone (archived,
 * deleted) will never be finished by a handler, so a sweeper must settle it. A row whose job may
 * still run is never settled by a sweeper, however long it has waited: the job decides (a queue
 * whose workers are all down for an hour still runs the job once one starts; issue 21 found rows
 * failed by a wall-clock budget whose job then ran and completed).
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { PGBOSS_SCHEMA } from './queue.ts';

/** pg-boss's job states, and whether a handler may still run for a job in each (a job absent from pgboss.job may not). */
export const JOB_STATE_MAY_RUN = {
  created: true,
  retry: true,
  active: true,
  completed: false,
  cancelled: false,
  failed: false,
} as const satisfies Record<string, boolean>;

/** The states of JOB_STATE_MAY_RUN that may run, as SQL literals (constants: compared with the enum column as written, so its indexes serve). */
const MAY_RUN = sql.raw(
  Object.entries(JOB_STATE_MAY_RUN)
    .filter(([, live]) => live)
    .map(([state]) => `'${state}'`)
    .join(', '),
);

/**
 * `select <data key> from pgboss.job` for the jobs of `queue` that may still run
 * (JOB_STATE_MAY_RUN): a row whose id is not among them has no handler coming.
 */
export function liveJobKeys(queue: string, dataKey: string): SQL {
  return sql`select j.data->>${dataKey} from ${sql.identifier(PGBOSS_SCHEMA)}.job j
    where j.name = ${queue} and j.state in (${MAY_RUN}) and j.data->>${dataKey} is not null`;
}

/**
 * Whether a job of `queue` whose data has `dataKey` = `value` is waiting to start (created, or
 * waiting to retry), seen from `tx`. Under a transaction-scoped advisory lock on the same key,
 * so two requests at once cannot both find none: callers that queue "at most one waiting run per
 * thing" check this and send in the same transaction.
 */
export async function jobWaiting(tx: Db, queue: string, dataKey: string, value: string): Promise<boolean> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`${queue}/${value}`}))`);
  const rows = rowsOf(
    await tx.execute(sql`select 1 from ${sql.identifier(PGBOSS_SCHEMA)}.job j
      where j.name = ${queue} and j.state in ('created', 'retry') and j.data->>${dataKey} = ${value} limit 1`),
  );
  return rows.length > 0;
}
