/**
 * The only writers of the lifecycle columns of webhooks (`status`, with `disabledReason`,
 * `disabledAt`, `failingSince`) and of deliveries (`status`): one conditional UPDATE per transition.
 */
import { and, eq, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { webhookDeliveries, webhooks } from '../../platform/db/schema.ts';

type WebhookRow = typeof webhooks.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A user's PATCH {status}: disabling says so; enabling starts the endpoint's health afresh. */
export async function setWebhookStatus(tx: Db, organizationId: string, webhookId: string, status: 'active' | 'disabled', now = new Date()): Promise<WebhookRow | undefined> {
  const [row] = await tx
    .update(webhooks)
    .set(
      status === 'active'
        ? { status, disabledReason: null, disabledAt: null, failingSince: null, updatedAt: now }
        : { status, disabledReason: sql`case when ${webhooks.status} = 'disabled' then ${webhooks.disabledReason} else 'Disabled by a user' end`, disabledAt: sql`coalesce(${webhooks.disabledAt}, ${now.toISOString()}::timestamptz)`, updatedAt: now },
    )
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.organizationId, organizationId)))
    .returning();
  return row;
}

/** A delivered message: the endpoint is healthy again. */
export async function noteSuccess(tx: Db, webhookId: string): Promise<void> {
  await tx.update(webhooks).set({ failingSince: null }).where(and(eq(webhooks.id, webhookId), isNotNull(webhooks.failingSince)));
}

/**
 * A failed attempt: the endpoint has been failing since its first failure after the last success;
 * once that is `disableAfterMs` ago, an active endpoint is disabled. Returns true when this disabled it.
 */
export async function noteFailure(tx: Db, webhookId: string, now: Date, disableAfterMs: number, lastError: string): Promise<boolean> {
  await tx.update(webhooks).set({ failingSince: now }).where(and(eq(webhooks.id, webhookId), sql`${webhooks.failingSince} is null`));
  const cutoff = new Date(now.getTime() - disableAfterMs);
  const days = Math.round(disableAfterMs / 86_400_000);
  const disabled = await tx
    .update(webhooks)
    .set({
      status: 'disabled',
      disabledReason: `Every delivery failed for ${days} day${days === 1 ? '' : 's'} (last: ${lastError.slice(0, 300)}); fix the endpoint, then enable it again`,
      disabledAt: now,
      updatedAt: now,
    })
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.status, 'active'), lte(webhooks.failingSince, cutoff)))
    .returning({ id: webhooks.id });
  return disabled.length > 0;
}

export interface AttemptRecord {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  at: Date;
  /** When the next attempt is due; null: none (succeeded, or no attempt left). */
  nextAttemptAt: Date | null;
}

/**
 * Records attempt number `attemptsBefore + 1` of a pending delivery: succeeded, pending again
 * (with its next attempt), or failed. Only once per attempt: a duplicate run of the same attempt
 * (a job taken for lost and run again) records nothing and gets undefined.
 */
export async function recordAttempt(tx: Db, deliveryId: string, attemptsBefore: number, r: AttemptRecord): Promise<DeliveryRow | undefined> {
  const [row] = await tx
    .update(webhookDeliveries)
    .set({
      status: r.ok ? 'succeeded' : r.nextAttemptAt ? 'pending' : 'failed',
      attempts: attemptsBefore + 1,
      lastAttemptAt: r.at,
      nextAttemptAt: r.ok ? null : r.nextAttemptAt,
      statusCode: r.statusCode,
      durationMs: r.durationMs,
      error: r.error,
      responseExcerpt: r.responseExcerpt,
      updatedAt: r.at,
    })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, attemptsBefore)))
    .returning();
  return row;
}

/** A pending delivery that will not be attempted (its endpoint is disabled). */
export async function abandonDelivery(tx: Db, deliveryId: string, attemptsBefore: number, error: string, now = new Date()): Promise<void> {
  await tx
    .update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, error, updatedAt: now })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, attemptsBefore)));
}
