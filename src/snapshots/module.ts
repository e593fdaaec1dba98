import type { Module } from '../context.ts';
import { closeParserPool, POOL_SIZE, warmParserPool } from '../ingest/index.ts';
import { QUEUE } from '../jobs/queues.ts';
import { processSnapshot, type ProcessSnapshotJob } from './pipeline.ts';
import { snapshotRoutes, uploadRoutes } from './routes.ts';
import { deleteMindArtifacts } from './service.ts';

/** Memory bank snapshots: upload, processing pipeline, analysis endpoints, profile. */
export const snapshotsModule: Module = {
  name: 'snapshots',
  async init(ctx) {
    ctx.mindDeletionHooks.push((caller, mindId) => deleteMindArtifacts(ctx, caller, mindId));
  },
  routes: snapshotRoutes,
  publicRoutes: uploadRoutes,
  async startWorkers(ctx) {
    // As many jobs at once as there are parser threads; the pool warms up in the background.
    void warmParserPool().catch(() => {});
    await ctx.queue.work<ProcessSnapshotJob>(QUEUE.processSnapshot, POOL_SIZE, (data, job) => processSnapshot(ctx, data, job));
  },
  close: closeParserPool,
};
