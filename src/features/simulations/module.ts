/**
 * The simulations module: POST /simulate (answer now, streamed, or in the background),
 * conversations as resources with sharing, GET /models, and the worker that runs background
 * simulations.
 */
import type { Module } from '../../deps.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { simulationRoutes } from './routes.ts';
import { runSimulationJob, type SimulationJob } from './jobs.ts';

/** Background runs in flight per process: LLM runs mostly wait on the network. */
const WORKER_CONCURRENCY = 4;

export const simulationsModule: Module = {
  name: 'simulations',
  routes: simulationRoutes,
  async startWorkers(ctx) {
    await ctx.queue.work<SimulationJob>(QUEUE.runSimulation, WORKER_CONCURRENCY, (data, job) => runSimulationJob(ctx, data, job));
  },
};
