import type { Config } from '../config.ts';
import type { QueueDefinition } from './queue.ts';

/** Every queue of the service, so API processes (which send) and workers (which take) agree. */
export const QUEUE = {
  processSnapshot: 'snapshot-process',
  runSimulation: 'simulation-run',
  /** The semantic index of a snapshot (src/memory/indexer.ts): embedding its turns after it completes, or again after a change of embedder. */
  embedSnapshot: 'snapshot-embed',
} as const;

export function queueDefinitions(config: Config): QueueDefinition[] {
  return [
    // Parsing and analysis are deterministic: a few retries cover a lost worker or a database blip.
    { name: QUEUE.processSnapshot, retryLimit: 3, retryDelaySeconds: 2, expireInSeconds: config.jobExpireSeconds },
    { name: QUEUE.runSimulation, retryLimit: 2, retryDelaySeconds: 2, expireInSeconds: config.jobExpireSeconds },
    // An embedding provider can be down for a while: more retries, with backoff from 5 s.
    { name: QUEUE.embedSnapshot, retryLimit: 5, retryDelaySeconds: 5, expireInSeconds: config.jobExpireSeconds },
  ];
}
