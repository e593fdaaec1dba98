/**
 * The fidelity module: every mind carries a check of how faithfully it answers (compute.ts),
 * recomputed in a job of its own (job.ts) after the mind's snapshots change, and
 * GET /minds/{mindId}/fidelity (routes.ts).
 */
import type { Deps, Module } from '../../deps.ts';
import { jobLogger } from '../../platform/jobs/log.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import type { AfterCommit } from '../../platform/events/index.ts';
import type { Db } from '../../platform/db/client.ts';
import { queueFidelity, runFidelityJob, type FidelityJob } from './job.ts';
import { fidelityRoutes } from './routes.ts';

/** One check at a time per process: CPU-bound, and it yields between questions. */
const WORKER_CONCURRENCY = 1;

export const fidelityModule: Module = {
  name: 'fidelity',
  on: (ctx: Deps) => {
    // The mind's memory changed: its check is queued (or joins the one waiting) in the same
    // transaction, and only queued: ingest never waits for it.
    const recheck = async (tx: Db, e: { organizationId: string; mindId: string }, after: AfterCommit) => {
      if (await queueFidelity(tx, ctx.queue, { mindId: e.mindId, organizationId: e.organizationId })) after.add(() => ctx.queue.wake(QUEUE.fidelity));
    };
    return {
      'snapshot.completed': recheck,
      'snapshot.failed': recheck,
      'snapshot.reprocessing': recheck,
      'snapshot.indexed': recheck,
      // Its row goes with the mind (on delete cascade); a job still queued finds no mind and ends.
    };
  },
  routes: fidelityRoutes,
  async startWorkers(ctx) {
    const log = jobLogger(ctx.config);
    await ctx.queue.work<FidelityJob>(QUEUE.fidelity, WORKER_CONCURRENCY, (data, job) => runFidelityJob(ctx, data, job, log));
  },
};
