/**
 * The webhooks module: the routes, the subscriber of every domain event (a delivery per matching
 * endpoint, queued in the event's transaction), the delivery worker and the retention sweep.
 */
import type { Module } from '../../deps.ts';
import { EVENT_TYPES, type Subscriber, type Subscriptions } from '../../platform/events/index.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { attemptDelivery, sweepDeliveries, type DeliverWebhookJob } from './jobs.ts';
import { webhookRoutes } from './routes.ts';
import { enqueueEvent } from './service.ts';

/** Attempts at once per process: each waits on a receiver (10 s at most), not on the CPU. */
const WORKER_CONCURRENCY = 4;
const SWEEP_SECONDS = 3600;

export const webhooksModule: Module = {
  name: 'webhooks',
  on: (ctx) => {
    const subscriptions: Subscriptions = {};
    for (const type of EVENT_TYPES) {
      const subscriber: Subscriber<typeof type> = async (tx, data, after) => {
        if ((await enqueueEvent(tx, ctx.queue, type, data)) > 0) after.add(() => ctx.queue.wake(QUEUE.deliverWebhook));
      };
      (subscriptions as Record<string, unknown>)[type] = subscriber;
    }
    return subscriptions;
  },
  routes: webhookRoutes,
  async startWorkers(ctx) {
    await ctx.queue.work<DeliverWebhookJob>(QUEUE.deliverWebhook, WORKER_CONCURRENCY, async (data) => {
      await attemptDelivery(ctx, data);
    });
    ctx.queue.repeat('webhook deliveries sweep', SWEEP_SECONDS, async () => {
      await sweepDeliveries(ctx);
    });
  },
};
