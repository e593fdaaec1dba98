import type { Module } from '../context.ts';
import { closeParserPool } from '../ingest/index.ts';
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
    // Two at a time: parsing runs in a pool of (at most) two worker threads.
    await ctx.queue.work<ProcessSnapshotJob>(QUEUE.processSnapshot, 2, (data, job) => processSnapshot(ctx, data, job));
  },
  close: closeParserPool,
};
