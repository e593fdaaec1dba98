/**
 * The simulations module: POST /simulate (answer now, streamed, or in the background),
 * conversations as resources with sharing, GET /models and GET /users, and the worker that
 * runs background simulations.
 */
import type { AppContext, Module } from '../../deps.ts';
import { QUEUE, queueDefinitions } from '../../platform/jobs/queues.ts';
import { createEngineRegistry } from '../../engines/registry.ts';
import { memoryFor } from '../memory/index.ts';
import { PersonaCache } from '../profile/index.ts';
import { simulationRoutes } from './routes.ts';
import { runSimulationJob, type RunServices, type SimulationJob } from './run.ts';
import { staleLimits } from './service.ts';

/** Background runs in flight per process: LLM runs mostly wait on the network. */
const WORKER_CONCURRENCY = 4;

/**
 * Services per running context (engines from that context's configuration, a persona cache on
 * its database): one process may run several servers, as the tests do.
 */
const services = new WeakMap<AppContext, RunServices>();

function servicesFor(ctx: AppContext): RunServices {
  let s = services.get(ctx);
  if (!s) {
    s = { db: ctx.db, queue: ctx.queue, config: ctx.config, engines: createEngineRegistry(ctx.config.llm, ctx.config.defaultModel), memory: memoryFor(ctx), personas: new PersonaCache() };
    services.set(ctx, s);
  }
  return s;
}

function retryLimit(ctx: AppContext): number {
  return queueDefinitions(ctx.config).find((q) => q.name === QUEUE.runSimulation)?.retryLimit ?? 0;
}

export const simulationsModule: Module = {
  name: 'simulations',
  async init(ctx) {
    servicesFor(ctx);
  },
  async routes(api, ctx) {
    const s = servicesFor(ctx);
    s.log ??= api.log;
    await api.register(simulationRoutes(s, staleLimits(ctx.config, retryLimit(ctx))));
  },
  async startWorkers(ctx) {
    const s = servicesFor(ctx);
    await ctx.queue.work<SimulationJob>(QUEUE.runSimulation, WORKER_CONCURRENCY, (data, job) => runSimulationJob(s, data, job));
  },
};
