import type { Config } from '../config.ts';
import type { QueueDefinition } from './queue.ts';

/** Every queue of the service, so API processes (which send) and workers (which take) agree. */
export const QUEUE = {
  processSnapshot: 'snapshot-process',
  runSimulation: 'simulation-run',
} as const;

export function queueDefinitions(config: Config): QueueDefinition[] {
  return [
    // Parsing and analysis are deterministic: a few retries cover a lost worker or a database blip.
    { name: QUEUE.processSnapshot, retryLimit: 3, retryDelaySeconds: 2, expireInSeconds: config.jobExpireSeconds },
    { name: QUEUE.runSimulation, retryLimit: 2, retryDelaySeconds: 2, expireInSeconds: config.jobExpireSeconds },
  ];
}
