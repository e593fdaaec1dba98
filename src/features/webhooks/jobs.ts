/**
 * The `webhook-deliver` job: one attempt of one delivery. The target is checked again (target.ts:
 * the URL's host resolved now, every address public unless allowed) and the signed message POSTed
 * to the checked address; the outcome is recorded, and a failed attempt queues the next one at its
 * time (schedule.ts) in the same transaction. Each failure counts against the endpoint's health: one
 * failing for 5 days is disabled. Test messages are attempted once and leave the health alone.
 */
import { and, eq, lt, ne } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import { webhookDeliveries, webhooks } from '../../platform/db/schema.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { DELIVERY_RETENTION_DAYS, DISABLE_AFTER_MS, nextAttemptAt } from './schedule.ts';
import { postSigned, TIMEOUT_MS, type AttemptResult } from './send.ts';
import { signedHeaders } from './signature.ts';
import { abandonDelivery, noteFailure, noteSuccess, recordAttempt } from './state.ts';
import { checkTarget, parseTargetUrl, TargetError, type Resolver } from './target.ts';

export interface DeliverWebhookJob {
  deliveryId: string;
  /** Attempts made before this one: a job whose delivery has moved on (a duplicate) does nothing. */
  attempt: number;
}

export interface AttemptOptions {
  /** The clock of the bookkeeping (attempt times, backoff, the disabling); the signature's timestamp is always the real time. */
  now?: () => Date;
  resolve?: Resolver;
  timeoutMs?: number;
  random?: () => number;
}

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Attempts a delivery; returns its row as recorded, or null when there was nothing to do. */
export async function attemptDelivery(ctx: Pick<Deps, 'db' | 'queue' | 'config' | 'log'>, job: DeliverWebhookJob, opts: AttemptOptions = {}): Promise<DeliveryRow | null> {
  const clock = opts.now ?? (() => new Date());
  const [found] = await ctx.db
    .select({ delivery: webhookDeliveries, url: webhooks.url, secret: webhooks.secret, webhookStatus: webhooks.status })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(eq(webhookDeliveries.id, job.deliveryId));
  // Gone (its webhook deleted), finished, or this attempt already made by an earlier run of the job.
  if (!found || found.delivery.status !== 'pending' || found.delivery.attempts !== job.attempt) return null;
  const d = found.delivery;
  if (found.webhookStatus !== 'active' && !d.isTest) {
    await abandonDelivery(ctx.db, d.id, job.attempt, 'not delivered: the webhook is disabled', clock());
    return null;
  }

  let result: AttemptResult;
  try {
    const target = await checkTarget(parseTargetUrl(found.url), { allowPrivate: ctx.config.webhooksAllowPrivate, resolve: opts.resolve });
    result = await postSigned(target, signedHeaders(found.secret, d.messageId, d.payload), d.payload, opts.timeoutMs ?? TIMEOUT_MS);
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    result = { ok: false, statusCode: null, durationMs: 0, error: `refused: ${err.message}`, responseExcerpt: null };
  }

  const now = clock();
  const next = result.ok || d.isTest ? null : nextAttemptAt(job.attempt + 1, now, opts.random);
  return ctx.db.transaction(async (tx) => {
    const row = await recordAttempt(tx, d.id, job.attempt, { ...result, at: now, nextAttemptAt: next });
    if (!row) return null;
    if (next) await ctx.queue.send(tx, QUEUE.deliverWebhook, { deliveryId: d.id, attempt: job.attempt + 1 } satisfies DeliverWebhookJob, { owner: d.organizationId, startAfter: next });
    if (!d.isTest) {
      if (result.ok) await noteSuccess(tx, d.webhookId);
      else if (await noteFailure(tx, d.webhookId, now, DISABLE_AFTER_MS, result.error ?? 'failed')) {
        ctx.log.warn({ webhookId: d.webhookId, organizationId: d.organizationId }, 'webhook disabled: every delivery failed for 5 days');
      }
    }
    return row;
  });
}

/** Deletes finished deliveries older than the retention period; returns how many. */
export async function sweepDeliveries(ctx: Pick<Deps, 'db'>, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000);
  const gone = await ctx.db
    .delete(webhookDeliveries)
    .where(and(lt(webhookDeliveries.createdAt, cutoff), ne(webhookDeliveries.status, 'pending')))
    .returning({ id: webhookDeliveries.id });
  return gone.length;
}
