/**
 * The durable job queue: pg-boss in the service's own database (PGlite or PostgreSQL). Jobs are
 * enqueued inside the transaction that writes the row they process, so there is never a row
 * without its job or a job without its row. A worker that dies mid-job loses its lease when the
 * job expires, and the job runs again.
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import { positionalSql, rowsOf, type Database, type Db } from '../db/client.ts';
import { transientKind } from './transient.ts';

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

export interface SendOptions {
  /**
   * Who the job is for (an organization). Jobs of a queue are taken highest priority first, then
   * oldest first; a job is sent with priority −(its owner's jobs still waiting or running), so
   * an owner with ten uploads queued has its eleventh wait behind every other owner's first:
   * one organization's burst (or its decompression bombs) never holds everyone else's uploads.
   */
  owner?: string;
  /** Not before this time (a later attempt of something that failed). */
  startAfter?: Date;
}

/** The priority of a job whose owner has `live` other jobs waiting or running in its queue (fairShare). */
export function fairPriority(live: number): number {
  return live > 0 ? -Math.min(live, MAX_FAIR_DEPTH) : 0;
}
/** Owners with more live jobs than this are all treated alike (pg-boss priorities are integers; any bound works). */
const MAX_FAIR_DEPTH = 10_000;

export interface JobQueue {
  /**
   * Enqueue a job using `tx` (a drizzle transaction), so it commits or rolls back with the caller's
   * rows; with `owner`, fairly among owners (SendOptions).
   */
  send(tx: Db, queue: string, data: object, opts?: SendOptions): Promise<string>;
  /** Start `concurrency` workers for a queue in this process. */
  work<T extends object>(queue: string, concurrency: number, handler: (data: T, job: JobContext) => Promise<void>): Promise<void>;
  /** Wake this process's workers for a queue now instead of at their next poll. */
  wake(queue: string): void;
  /**
   * Run `task` every `intervalSeconds` in this process (housekeeping such as sweepers), never two
   * runs at once; errors become process warnings. stop() ends it, waiting for a run in flight.
   */
  repeat(name: string, intervalSeconds: number, task: () => Promise<void>): void;
  /** Stop taking jobs; wait (up to the timeout) for the ones in flight. */
  stop(opts?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

/** The schema pg-boss keeps its tables in (jobs/sweeper.ts reads pgboss.job). */
export const PGBOSS_SCHEMA = 'pgboss';
/** The key of a job's data that names its owner (SendOptions.owner). */
const OWNER_KEY = 'owner';

export interface QueueOptions {
  queues: QueueDefinition[];
  /** How often idle workers look for jobs (a same-process send wakes them at once). */
  pollingIntervalSeconds?: number;
  /** How often expired jobs are found and retried. */
  maintenanceIntervalSeconds?: number;
}

/**
 * The statements with which pg-boss's worker loop settles a job its handler ran (manager.js,
 * watch(): `this.complete(…)` / `this.fail(…)`). pg-boss 10.4.2, the last 10.x, runs them without
 * awaiting or catching them (fixed only in 11, a major upgrade with a schema migration), so one
 * that fails is an unhandled rejection and Node exits: PostgreSQL restarting (57P01 'terminating
 * connection due to administrator command') killed `serve` and `mindprint worker` mid-job
 * (issue 21). Our executeSql adapter is where that rejection arises, so it is contained there,
 * for these two statements only; every other statement's errors reach its caller as before.
 */
const pgBossPlans = createRequire(import.meta.url)('pg-boss/src/plans.js') as { completeJobs(schema: string): string; failJobsById(schema: string): string };
const SETTLE_STATEMENTS = new Map([
  [pgBossPlans.completeJobs(PGBOSS_SCHEMA), 'complete'],
  [pgBossPlans.failJobsById(PGBOSS_SCHEMA), 'fail'],
] as const);
/** How long settling a job of pg-boss's own queues (no QueueDefinition) is retried. */
const INTERNAL_SETTLE_SECONDS = 60;

/**
 * Runs a statement settling a job (SETTLE_STATEMENTS) so that it never rejects. A transient
 * failure (the database restarting or unreachable: jobs/transient.ts) is retried, backing off
 * from 0.5 s to 5 s, for as long as the job's attempt would be held anyway (its queue's
 * expireInSeconds): once the database is back the job is completed, or failed and so retried at
 * once, without waiting for its attempt to expire. Past that, or on any other error, it gives up
 * with a warning and the job stays active until pg-boss expires it and retries it: every handler
 * is idempotent (the snapshot pipeline stores a result once), so a run whose outcome was not
 * recorded only costs another run. Settling later could only settle another attempt of the job.
 */
async function settleJob(
  run: () => Promise<{ rows: any[] }>,
  what: 'complete' | 'fail',
  values: unknown[],
  expiry: (queue: string) => number | undefined,
  stopped: () => boolean,
): Promise<{ rows: any[] }> {
  const [queue, ids] = values as [string, string[]];
  const deadline = Date.now() + (expiry(queue) ?? INTERNAL_SETTLE_SECONDS) * 1000;
  let told = false;
  for (let delay = 500; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      const result = await run();
      if (told) process.emitWarning(`job queue: recorded ${what} of ${queue} job ${ids.join(', ')} once the database was back`);
      return result;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const retry = transientKind(err) !== null && !stopped() && Date.now() + delay < deadline;
      if (!retry) {
        process.emitWarning(`job queue: could not record ${what} of ${queue} job ${ids.join(', ')} (${message}); it runs again once its attempt expires`);
        return { rows: [{ count: 0 }] };
      }
      if (!told) process.emitWarning(`job queue: cannot record ${what} of ${queue} job ${ids.join(', ')} yet (${message}); retrying until the database is back`);
      told = true;
      await sleep(delay);
    }
  }
}

export async function startQueue(database: Database, opts: QueueOptions): Promise<JobQueue> {
  const expiries = new Map(opts.queues.map((q) => [q.name, q.expireInSeconds]));
  /** Set once stop() returns: handlers still running then were released by pg-boss's shutdown. */
  let released = false;
  /** Set when stop() begins: settling no longer waits for the database (shutdown must not hang on it). */
  let stopping = false;
  const executeSql = (text: string, values: unknown[]) => {
    const settle = SETTLE_STATEMENTS.get(text);
    if (settle) return settleJob(() => database.execute(text, values), settle, values, (q) => expiries.get(q), () => stopping);
    return database.execute(text, values);
  };
  // pg-boss runs its SQL through our connection (pool or PGlite), so it needs no second pool.
  const boss = new PgBoss({
    db: { executeSql },
    schema: PGBOSS_SCHEMA,
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
  const repeaters: (() => Promise<void>)[] = [];

  return {
    async send(tx, queue, data, { owner, startAfter } = {}) {
      const executor = {
        executeSql: async (text: string, values: unknown[]) => ({ rows: rowsOf(await tx.execute(positionalSql(text, values))) }),
      };
      let priority = 0;
      if (owner !== undefined) {
        const [row] = await executor.executeSql(
          `select count(*)::int as n from ${PGBOSS_SCHEMA}.job where name = $1 and state in ('created', 'retry', 'active') and data->>'${OWNER_KEY}' = $2`,
          [queue, owner],
        ).then((r) => r.rows as { n: number }[]);
        priority = fairPriority(row?.n ?? 0);
        data = { ...data, [OWNER_KEY]: owner };
      }
      const id = await boss.send(queue, data, { db: executor, priority, ...(startAfter && { startAfter }) });
      if (!id) throw new Error(`job queue refused a job for ${queue}`);
      return id;
    },
    async work(queue, concurrency, handler) {
      for (let i = 0; i < concurrency; i++) {
        const id = await boss.work<object>(queue, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: polling }, async ([job]) => {
          if (!job) return;
          const retryCount = job.retryCount ?? 0;
          const retryLimit = job.retryLimit ?? 0;
          const outcome = await handler(job.data as never, { id: job.id, retryCount, retryLimit, isLastAttempt: retryCount >= retryLimit }).then(
            () => ({ error: null }),
            (error: unknown) => ({ error: error ?? new Error('job failed') }),
          );
          // A handler still running when stop() gave up on it was released: pg-boss has already
          // handed its job back (to retry elsewhere). Report nothing more. pg-boss would otherwise
          // complete or fail it through a database this process has closed (an unhandled
          // rejection that kills the process), or settle another worker's attempt of it.
          if (released) return new Promise<never>(() => {});
          if (outcome.error) throw outcome.error;
        });
        workerIds.set(queue, [...(workerIds.get(queue) ?? []), id]);
      }
    },
    wake(queue) {
      for (const id of workerIds.get(queue) ?? []) boss.notifyWorker(id);
    },
    repeat(name, intervalSeconds, task) {
      let stopped = false;
      let running: Promise<void> | null = null;
      let timer: NodeJS.Timeout;
      const schedule = () => {
        timer = setTimeout(tick, intervalSeconds * 1000);
        timer.unref(); // housekeeping never keeps a process alive
      };
      const tick = () => {
        running = task()
          .catch((err) => process.emitWarning(`${name}: ${err instanceof Error ? err.message : String(err)}`))
          .finally(() => {
            running = null;
            if (!stopped) schedule();
          });
      };
      schedule();
      repeaters.push(async () => {
        stopped = true;
        clearTimeout(timer);
        await running;
      });
    },
    async stop({ graceful = true, timeoutMs = 30_000 } = {}) {
      stopping = true;
      await Promise.all(repeaters.splice(0).map((stop) => stop()));
      await boss.stop({ graceful, timeout: timeoutMs, wait: true, close: false });
      released = true;
    },
  };
}
