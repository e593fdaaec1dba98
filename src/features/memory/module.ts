/**
 * The memory module: the semantic index's worker (embedding snapshots, re-embedding after a
 * change of embedder) and GET /minds/{mindId}/semantic-index.
 */
import type { Module } from '../../deps.ts';
import { jobLogger } from '../../platform/jobs/log.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { embedSnapshot } from './indexer.ts';
import { queueEmbedding, queueStaleSnapshots, type EmbedSnapshotJob } from './state.ts';
import { memoryRoutes } from './routes.ts';

/** Embedding jobs at once per process: the offline embedder is CPU-bound, a provider waits on the network. */
const WORKER_CONCURRENCY = 1;

export const memoryModule: Module = {
  name: 'memory',
  on: (ctx) => ({
    // The semantic index follows a completed snapshot in a job of its own: `completed` does not wait for embeddings.
    'snapshot.completed': async (tx, e, after) => {
      await queueEmbedding(tx, ctx.queue, e.snapshotId, ctx.memory.embedder.id);
      after.add(() => ctx.queue.wake(QUEUE.embedSnapshot));
    },
  }),
  routes: memoryRoutes,
  async startWorkers(ctx) {
    const memory = ctx.memory;
    const log = jobLogger(ctx.config);
    await ctx.queue.work<EmbedSnapshotJob>(QUEUE.embedSnapshot, WORKER_CONCURRENCY, (data, job) => embedSnapshot(memory, data, job, log, ctx.events));
    // Snapshots of another embedder (a changed configuration) or from before the semantic index,
    // and those whose last attempt failed: re-embedded in the background. Then at each maintenance.
    const queued = await queueStaleSnapshots(memory, ctx.queue, { retryFailed: true });
    if (queued > 0) {
      log.info({ snapshots: queued, embedder: memory.embedder.id }, 'semantic index: snapshots queued for (re-)embedding');
      ctx.queue.wake(QUEUE.embedSnapshot);
    }
    ctx.queue.repeat('semantic index sweep', ctx.config.jobMaintenanceSeconds, async () => {
      if ((await queueStaleSnapshots(memory, ctx.queue)) > 0) ctx.queue.wake(QUEUE.embedSnapshot);
    });
  },
};
