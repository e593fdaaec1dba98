import type { Config } from '../../config.ts';
import type { QueueDefinition } from './queue.ts';

/** Every queue of the service, so API processes (which send) and workers (which take) agree. */
export const QUEUE = {
  processSnapshot: 'snapshot-process',
  runSimulation: 'simulation-run',
  /** The semantic index of a snapshot (src/features/memory/indexer.ts): embedding its turns after it completes, or again after a change of embedder. */
  embedSnapshot: 'snapshot-embed',
  /** Questionnaire psychometrics of a snapshot answered by the configured LLM (src/features/questionnaire), after it completes. */
  questionnaire: 'snapshot-questionnaire',
  /** One attempt to deliver a webhook message to one endpoint (src/features/webhooks); a failed one queues the next, later. */
  deliverWebhook: 'webhook-deliver',
  /** The fidelity check of a mind (src/features/fidelity), after its snapshots change: at most one waiting per mind. */
  fidelity: 'mind-fidelity',
} as const;

/** Model calls of one questionnaire run at most (5 batches, each possibly asked twice): its job may take that many call timeouts. */
const QUESTIONNAIRE_CALLS = 10;

export function queueDefinitions(config: Config): QueueDefinition[] {
  return [
    // Parsing and analysis are deterministic: a few retries cover a lost worker or a database blip.
    { name: QUEUE.processSnapshot, retryLimit: 3, retryDelaySeconds: 2, expireInSeconds: config.jobExpireSeconds },
    { name: QUEUE.runSimulation, retryLimit: 2, retryDelaySeconds: 2, expireInSeconds: config.jobExpireSeconds },
    // An embedding provider can be down for a while: more retries, with backoff from 5 s.
    { name: QUEUE.embedSnapshot, retryLimit: 5, retryDelaySeconds: 5, expireInSeconds: config.jobExpireSeconds },
    // Only passing provider trouble is retried (429, 5xx, unreachable, timeout: the SDK retried each
    // call already), with backoff from 30 s. A slow local model may take a call timeout per call: the
    // job is not taken for lost before then, or a second attempt would pay for every call again.
    {
      name: QUEUE.questionnaire,
      retryLimit: 3,
      retryDelaySeconds: 30,
      expireInSeconds: Math.max(config.jobExpireSeconds, Math.ceil(((config.llm?.timeoutMs ?? 0) * QUESTIONNAIRE_CALLS) / 1000)),
    },
    // The handler records a failed attempt and queues the next one itself (its own backoff over
    // about a day, features/webhooks/schedule.ts); pg-boss retries only a handler that threw (the
    // database unavailable). An attempt takes at most the 10 s timeout after resolving the host.
    { name: QUEUE.deliverWebhook, retryLimit: 5, retryDelaySeconds: 10, expireInSeconds: Math.max(60, config.jobExpireSeconds) },
    // Deterministic and offline: a retry covers a lost worker or a database blip.
    { name: QUEUE.fidelity, retryLimit: 2, retryDelaySeconds: 10, expireInSeconds: config.jobExpireSeconds },
  ];
}
