/** Webhook endpoints of an organization, their deliveries, and the messages a domain event queues. */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Db } from '../../platform/db/client.ts';
import { webhookDeliveries, webhooks } from '../../platform/db/schema.ts';
import type { DomainEvents, EventType } from '../../platform/events/index.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { JobQueue } from '../../platform/jobs/queue.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { attemptDelivery, type AttemptOptions, type DeliverWebhookJob } from './jobs.ts';
import type { CreateWebhookBody, DeliveriesQuery, UpdateWebhookBody, Webhook, WebhookDelivery } from './schemas.ts';
import { TEST_EVENT } from './schemas.ts';
import { newMessageId, newSecret } from './signature.ts';
import { setWebhookStatus } from './state.ts';
import { checkTarget, parseTargetUrl, TargetError, type Resolver } from './target.ts';

type WebhookRow = typeof webhooks.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookDeps = Pick<Deps, 'db' | 'queue' | 'config' | 'log'>;

export const toWebhook = (w: WebhookRow): Webhook => ({
  id: w.id,
  url: w.url,
  description: w.description,
  events: w.events as Webhook['events'],
  status: w.status as Webhook['status'],
  disabledReason: w.disabledReason,
  disabledAt: iso(w.disabledAt),
  failingSince: iso(w.failingSince),
  createdAt: iso(w.createdAt)!,
  updatedAt: iso(w.updatedAt)!,
});

export const toDelivery = (d: DeliveryRow): WebhookDelivery => ({
  id: d.id,
  webhookId: d.webhookId,
  messageId: d.messageId,
  event: d.eventType,
  status: d.status as WebhookDelivery['status'],
  test: d.isTest,
  attempts: d.attempts,
  statusCode: d.statusCode,
  durationMs: d.durationMs,
  error: d.error,
  responseExcerpt: d.responseExcerpt,
  lastAttemptAt: iso(d.lastAttemptAt),
  nextAttemptAt: iso(d.nextAttemptAt),
  createdAt: iso(d.createdAt)!,
});

/** The URL as it will be stored, once it passed the checks of target.ts (a 400 naming `body.url` otherwise). */
async function acceptedUrl(ctx: Pick<Deps, 'config'>, raw: string, resolve?: Resolver): Promise<string> {
  try {
    const url = parseTargetUrl(raw.trim());
    await checkTarget(url, { allowPrivate: ctx.config.webhooksAllowPrivate, resolve });
    return url.href;
  } catch (err) {
    if (err instanceof TargetError) throw invalid(`body.${err.message}`, { field: 'body.url' });
    throw err;
  }
}

const cleanDescription = (d: string | null | undefined) => (d === undefined ? undefined : d === null || !d.trim() ? null : d.trim());

export async function createWebhook(ctx: Pick<Deps, 'db' | 'config'>, caller: Caller, input: CreateWebhookBody, opts: { resolve?: Resolver } = {}) {
  const url = await acceptedUrl(ctx, input.url, opts.resolve);
  const secret = newSecret();
  const [row] = await ctx.db
    .insert(webhooks)
    .values({ organizationId: caller.organizationId, url, events: [...input.events], description: cleanDescription(input.description) ?? null, secret })
    .returning();
  return { webhook: toWebhook(row!), secret };
}

export async function listWebhooks(db: Db, caller: Caller): Promise<Webhook[]> {
  const rows = await db.select().from(webhooks).where(eq(webhooks.organizationId, caller.organizationId)).orderBy(desc(webhooks.createdAt), desc(webhooks.id));
  return rows.map(toWebhook);
}

async function webhookRow(db: Db, caller: Caller, webhookId: string): Promise<WebhookRow> {
  const [row] = await db.select().from(webhooks).where(and(eq(webhooks.id, webhookId), eq(webhooks.organizationId, caller.organizationId)));
  if (!row) throw notFound('Webhook');
  return row;
}

export const getWebhook = async (db: Db, caller: Caller, webhookId: string): Promise<Webhook> => toWebhook(await webhookRow(db, caller, webhookId));

export async function updateWebhook(ctx: Pick<Deps, 'db' | 'config'>, caller: Caller, webhookId: string, input: UpdateWebhookBody, opts: { resolve?: Resolver } = {}): Promise<Webhook> {
  const url = input.url === undefined ? undefined : await acceptedUrl(ctx, input.url, opts.resolve);
  return ctx.db.transaction(async (tx) => {
    const fields = {
      ...(url !== undefined && { url }),
      ...(input.events !== undefined && { events: [...input.events] }),
      ...(input.description !== undefined && { description: cleanDescription(input.description) }),
    };
    if (Object.keys(fields).length) {
      const [row] = await tx
        .update(webhooks)
        .set({ ...fields, updatedAt: new Date() })
        .where(and(eq(webhooks.id, webhookId), eq(webhooks.organizationId, caller.organizationId)))
        .returning({ id: webhooks.id });
      if (!row) throw notFound('Webhook');
    }
    if (input.status !== undefined && !(await setWebhookStatus(tx, caller.organizationId, webhookId, input.status))) throw notFound('Webhook');
    return toWebhook(await webhookRow(tx, caller, webhookId));
  });
}

export async function deleteWebhook(db: Db, caller: Caller, webhookId: string): Promise<void> {
  const [row] = await db.delete(webhooks).where(and(eq(webhooks.id, webhookId), eq(webhooks.organizationId, caller.organizationId))).returning({ id: webhooks.id });
  if (!row) throw notFound('Webhook');
}

export async function listDeliveries(db: Db, caller: Caller, webhookId: string, query: DeliveriesQuery): Promise<{ deliveries: WebhookDelivery[]; count: number }> {
  await webhookRow(db, caller, webhookId);
  const where = and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.organizationId, caller.organizationId));
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(where)
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(query.limit ?? 20)
    .offset(query.offset ?? 0);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(webhookDeliveries).where(where);
  return { deliveries: rows.map(toDelivery), count: Number(count?.n ?? 0) };
}

/** The body of a message: `{type, timestamp, data}`, written once and sent as these bytes on every attempt. */
export const messageBody = (type: string, data: object, at = new Date()): string => JSON.stringify({ type, timestamp: at.toISOString(), data });

/**
 * The subscriber of every domain event: inside the state change's transaction, one delivery row
 * and one job per active endpoint of the organization subscribed to the event, all with the same
 * message id. Returns how many were queued.
 */
export async function enqueueEvent<K extends EventType>(tx: Db, queue: JobQueue, type: K, data: DomainEvents[K]): Promise<number> {
  const targets = await tx
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.organizationId, data.organizationId), eq(webhooks.status, 'active'), sql`${type} = any(${webhooks.events})`));
  if (targets.length === 0) return 0;
  const messageId = newMessageId();
  const payload = messageBody(type, data);
  const rows = await tx
    .insert(webhookDeliveries)
    .values(targets.map((t) => ({ organizationId: data.organizationId, webhookId: t.id, messageId, eventType: type, payload })))
    .returning({ id: webhookDeliveries.id });
  for (const r of rows) await queue.send(tx, QUEUE.deliverWebhook, { deliveryId: r.id, attempt: 0 } satisfies DeliverWebhookJob, { owner: data.organizationId });
  return rows.length;
}

/**
 * POST /webhooks/{id}/test: a `webhook.test` message to this endpoint (whatever its events, even
 * disabled), attempted once, now, in this request; the answer is the delivery as it ended.
 */
export async function testWebhook(ctx: WebhookDeps, caller: Caller, webhookId: string, opts: AttemptOptions = {}): Promise<WebhookDelivery> {
  const hook = await webhookRow(ctx.db, caller, webhookId);
  const [row] = await ctx.db
    .insert(webhookDeliveries)
    .values({
      organizationId: caller.organizationId,
      webhookId: hook.id,
      messageId: newMessageId(),
      eventType: TEST_EVENT,
      isTest: true,
      payload: messageBody(TEST_EVENT, { webhookId: hook.id, organizationId: caller.organizationId, message: 'A test message from Mindprint' }),
    })
    .returning();
  const done = await attemptDelivery(ctx, { deliveryId: row!.id, attempt: 0 }, opts);
  return toDelivery(done ?? row!);
}
