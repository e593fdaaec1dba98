/**
 * The questionnaire module: the worker that has the configured LLM answer the IPIP Big-Five
 * markers for each completed snapshot (job.ts), and the route that asks for it again
 * (routes.ts). Without an LLM (or with MINDPRINT_LLM_QUESTIONNAIRE=false) it starts no worker.
 */
import type { Module } from '../../deps.ts';
import { jobLogger } from '../../platform/jobs/log.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { queueQuestionnaire, runQuestionnaire, type QuestionnaireJob } from './job.ts';
import { questionnaireRoutes } from './routes.ts';

/** Runs at once per process: each waits on the provider, five calls in a row; more would only crowd its rate limit. */
const WORKER_CONCURRENCY = 2;

export const questionnaireModule: Module = {
  name: 'questionnaire',
  on: (ctx) => ({
    // With an LLM configured, the questionnaire psychometrics follow a completed snapshot, in a job
    // of their own (a run already going read the previous completion: this one gets its own).
    'snapshot.completed': async (tx, e, after) => {
      const run = await queueQuestionnaire(tx, ctx, { id: e.snapshotId, organizationId: e.organizationId }, { newCompletion: true });
      if (run === 'queued') after.add(() => ctx.queue.wake(QUEUE.questionnaire));
    },
  }),
  routes: questionnaireRoutes,
  async startWorkers(ctx) {
    if (!ctx.config.questionnaire) return;
    const log = jobLogger(ctx.config);
    await ctx.queue.work<QuestionnaireJob>(QUEUE.questionnaire, WORKER_CONCURRENCY, (data, job) => runQuestionnaire(ctx, data, job, log));
  },
};
