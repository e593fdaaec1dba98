/**
 * What sweepers of lost work share: how long every attempt of a job can take at most, and which
 * rows still have a live job. A row whose job is no longer live (its attempts all failed or
 * expired, e.g. its worker was killed on the last attempt) will never be finished by a handler,
 * so a sweeper must settle it.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { PGBOSS_SCHEMA, type QueueDefinition } from './queue.ts';

/**
 * The longest a job can take from its first start to its last attempt's expiry: every attempt
 * may run until it expires and wait one maintenance interval to be found expired, and pg-boss
 * waits up to retryDelay × 2^(n+1) (backoff with jitter) before retry n+1.
 */
export function attemptsBudgetSeconds(def: QueueDefinition, maintenanceSeconds: number): number {
  let backoff = 0;
  for (let n = 0; n < def.retryLimit; n++) backoff += def.retryDelaySeconds * 2 ** (n + 1);
  return (def.retryLimit + 1) * (def.expireInSeconds + maintenanceSeconds) + backoff;
}

/**
 * `select <data key> from pgboss.job` for the jobs of `queue` that may still run (created,
 * waiting to retry, or active): a row whose id is not among them has no handler coming.
 */
export function liveJobKeys(queue: string, dataKey: string): SQL {
  return sql`select j.data->>${dataKey} from ${sql.identifier(PGBOSS_SCHEMA)}.job j
    where j.name = ${queue} and j.state in ('created', 'retry', 'active') and j.data->>${dataKey} is not null`;
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
