/**
 * The simulations module: POST /simulate (answer now, streamed, or in the background),
 * conversations as resources with sharing, GET /models and GET /users, and the worker that
 * runs background simulations.
 */
import type { Deps, Module } from '../../deps.ts';
import { QUEUE, queueDefinitions } from '../../platform/jobs/queues.ts';
import { simulationRoutes } from './routes.ts';
import { runSimulationJob, type SimulationJob } from './run.ts';
import { staleLimits } from './service.ts';

/** Background runs in flight per process: LLM runs mostly wait on the network. */
const WORKER_CONCURRENCY = 4;

function retryLimit(ctx: Deps): number {
  return queueDefinitions(ctx.config).find((q) => q.name === QUEUE.runSimulation)?.retryLimit ?? 0;
}

export const simulationsModule: Module = {
  name: 'simulations',
  async routes(api, ctx) {
    await api.register(simulationRoutes(ctx, staleLimits(ctx.config, retryLimit(ctx))));
  },
  async startWorkers(ctx) {
    await ctx.queue.work<SimulationJob>(QUEUE.runSimulation, WORKER_CONCURRENCY, (data, job) => runSimulationJob(ctx, data, job));
  },
};
