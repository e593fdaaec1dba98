/**
 * The durable job queue: pg-boss in the service's own database (PGlite or PostgreSQL). Jobs are
 * enqueued inside the transaction that writes the row they process, so there is never a row
 * without its job or a job without its row. A worker that dies mid-job loses its lease when the
 * job expires, and the job runs again.
 */
import PgBoss from 'pg-boss';
import { positionalSql, rowsOf, type Database, type Db } from '../db/client.ts';

export interface JobContext {
  id: string;
  /** How many times this job has been retried before this run (0 on the first run). */
  retryCount: number;
  retryLimit: number;
  /** True when a thrown error will not be retried: the handler should record the failure. */
  isLastAttempt: boolean;
}

export interface QueueDefinition {
  name: string;
  retryLimit: number;
  retryDelaySeconds: number;
  /** How long a job may run before it is considered lost (worker killed) and retried. */
  expireInSeconds: number;
}

export interface JobQueue {
  /** Enqueue a job using `tx` (a drizzle transaction), so it commits or rolls back with the caller's rows. */
  send(tx: Db, queue: string, data: object): Promise<string>;
  /** Start `concurrency` workers for a queue in this process. */
  work<T extends object>(queue: string, concurrency: number, handler: (data: T, job: JobContext) => Promise<void>): Promise<void>;
  /** Wake this process's workers for a queue now instead of at their next poll. */
  wake(queue: string): void;
  /** Stop taking jobs; wait (up to the timeout) for the ones in flight. */
  stop(opts?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

export interface QueueOptions {
  queues: QueueDefinition[];
  /** How often idle workers look for jobs (a same-process send wakes them at once). */
  pollingIntervalSeconds?: number;
  /** How often expired jobs are found and retried. */
  maintenanceIntervalSeconds?: number;
}

export async function startQueue(database: Database, opts: QueueOptions): Promise<JobQueue> {
  // pg-boss runs its SQL through our connection (pool or PGlite), so it needs no second pool.
  const boss = new PgBoss({
    db: { executeSql: (text: string, values: unknown[]) => database.execute(text, values) },
    schema: 'pgboss',
    supervise: true,
    maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? 30,
  });
  boss.on('error', (err) => {
    // Queue housekeeping errors (a lost connection, a shutdown race) must not crash the process.
    process.emitWarning(`job queue: ${err instanceof Error ? err.message : String(err)}`);
  });
  await boss.start();
  for (const q of opts.queues) {
    const existing = await boss.getQueue(q.name);
    const settings = { retryLimit: q.retryLimit, retryDelay: q.retryDelaySeconds, retryBackoff: true, expireInSeconds: q.expireInSeconds };
    if (existing) await boss.updateQueue(q.name, { name: q.name, ...settings });
    else await boss.createQueue(q.name, { name: q.name, ...settings });
  }
  const workerIds = new Map<string, string[]>();
  const polling = opts.pollingIntervalSeconds ?? 1;

  return {
    async send(tx, queue, data) {
      const executor = {
        executeSql: async (text: string, values: unknown[]) => ({ rows: rowsOf(await tx.execute(positionalSql(text, values))) }),
      };
      const id = await boss.send(queue, data, { db: executor });
      if (!id) throw new Error(`job queue refused a job for ${queue}`);
      return id;
    },
    async work(queue, concurrency, handler) {
      for (let i = 0; i < concurrency; i++) {
        const id = await boss.work<object>(queue, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: polling }, async ([job]) => {
          if (!job) return;
          const retryCount = job.retryCount ?? 0;
          const retryLimit = job.retryLimit ?? 0;
          await handler(job.data as never, { id: job.id, retryCount, retryLimit, isLastAttempt: retryCount >= retryLimit });
        });
        workerIds.set(queue, [...(workerIds.get(queue) ?? []), id]);
      }
    },
    wake(queue) {
      for (const id of workerIds.get(queue) ?? []) boss.notifyWorker(id);
    },
    async stop({ graceful = true, timeoutMs = 30_000 } = {}) {
      await boss.stop({ graceful, timeout: timeoutMs, wait: true, close: false });
    },
  };
}
