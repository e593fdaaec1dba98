import type { Module } from '../../deps.ts';
import { closeParserPool, configureParserPool, warmParserPool } from './pool.ts';
import { jobLogger } from '../../platform/jobs/log.ts';
import { QUEUE, queueDefinitions } from '../../platform/jobs/queues.ts';
import { processSnapshot, type ProcessSnapshotJob } from './pipeline.ts';
import { snapshotRoutes, uploadRoutes } from './routes.ts';
import { STALE_TEMP_MS, sweepTempFiles } from '../../platform/storage/local-store.ts';
import { deleteMindArtifacts } from './service.ts';
import { artifactSweepSchedule, sweepLostSnapshots } from './sweeper.ts';

/** Memory bank snapshots: upload, processing pipeline, analysis endpoints, profile. */
export const snapshotsModule: Module = {
  name: 'snapshots',
  on: (ctx) => ({
    // A deleted mind's files go once its rows are gone (committed): a failure, or a process that
    // dies first, leaves orphans that the artifact sweeper removes.
    'mind.deleted': async (_tx, e, after) => {
      after.add(() =>
        deleteMindArtifacts(ctx, e.organizationId, e.mindId).catch((err: unknown) =>
          ctx.log.warn({ err, mindId: e.mindId }, 'could not delete a deleted mind’s files; the artifact sweeper removes them later'),
        ),
      );
    },
  }),
  async init(ctx) {
    // Every process with the queue sweeps (API replicas too: the workers may all be gone).
    const queue = queueDefinitions(ctx.config).find((q) => q.name === QUEUE.processSnapshot)!;
    const log = jobLogger(ctx.config);
    ctx.queue.repeat('snapshot sweeper', ctx.config.jobMaintenanceSeconds, async () => void (await sweepLostSnapshots(ctx, queue, log)));
    // Abandoned uploads and files nobody owns; a failure (the store unreachable) is tried again next time.
    const sweepArtifacts = artifactSweepSchedule(ctx, log);
    ctx.queue.repeat('artifact sweeper', ctx.config.jobMaintenanceSeconds, () =>
      sweepArtifacts().catch((err: unknown) => log.warn({ err }, 'artifact sweep failed; trying again at the next maintenance')),
    );
    // Temp files of uploads and snapshot jobs a killed process left (the spool dir each time, the local store's tree hourly).
    let lastStoreWalk = 0;
    ctx.queue.repeat('temp file sweeper', ctx.config.jobMaintenanceSeconds, async () => {
      const walkStore = !ctx.config.storageUrl && Date.now() - lastStoreWalk >= 60 * 60 * 1000;
      if (walkStore) lastStoreWalk = Date.now();
      const swept = await sweepTempFiles(ctx.config.dataDir, { olderThanMs: STALE_TEMP_MS, walkStore });
      if (swept.uploads + swept.digests + (swept.storeTemps ?? 0) > 0) log.info({ ...swept }, 'temp file sweeper: files of interrupted uploads and snapshot jobs removed');
    });
  },
  routes: snapshotRoutes,
  publicRoutes: uploadRoutes,
  async startWorkers(ctx) {
    // As many jobs at once as there are parser processes; the pool warms up in the background.
    configureParserPool({ size: ctx.config.parserProcesses, memoryMb: ctx.config.parseBudgets.memoryMb });
    void warmParserPool().catch(() => {});
    const log = jobLogger(ctx.config);
    await ctx.queue.work<ProcessSnapshotJob>(QUEUE.processSnapshot, ctx.config.parserProcesses, (data, job) => processSnapshot(ctx, data, job, log));
  },
  close: closeParserPool,
};
