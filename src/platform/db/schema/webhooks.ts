/** Webhook endpoints and their deliveries. */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { id, createdAt, updatedAt } from './columns.ts';
import { organizations } from './accounts.ts';

/**
 * Endpoints an organization registered for domain events (src/features/webhooks, migration 0014).
 * `secret` is the Standard Webhooks signing secret (whsec_…), kept to sign; never logged or returned
 * after creation. `status` is written only by features/webhooks/state.ts.
 */
export const webhooks = pgTable('webhooks', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  url: text('url').notNull(),
  description: text('description'),
  events: text('events').array().notNull(),
  secret: text('secret').notNull(),
  /** active | disabled */
  status: text('status').notNull().default('active'),
  disabledReason: text('disabled_reason'),
  disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
  /** The first failed attempt since the last success: failing long enough disables the endpoint. */
  failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  // GET /webhooks (the organization's endpoints, newest first).
  index('webhooks_org_created_idx').on(t.organizationId, t.createdAt.desc().nullsFirst()),
  // An event's subscriber: the organization's active endpoints, inside the state change's transaction.
  index('webhooks_org_active_idx').on(t.organizationId).where(sql`${t.status} = 'active'`),
]);

/**
 * One message to one endpoint: the exact body sent on every attempt, its `webhook-id`
 * (`message_id`, the same for every endpoint and every retry of an event), and the last attempt's outcome.
 */
export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  webhookId: uuid('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
  messageId: text('message_id').notNull(),
  eventType: text('event_type').notNull(),
  payload: text('payload').notNull(),
  /** pending | succeeded | failed */
  status: text('status').notNull().default('pending'),
  /** A POST /webhooks/{id}/test message: one attempt, and it says nothing about the endpoint's health. */
  isTest: boolean('is_test').notNull().default(false),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
  lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
  statusCode: integer('status_code'),
  durationMs: integer('duration_ms'),
  error: text('error'),
  responseExcerpt: text('response_excerpt'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  // GET /webhooks/{id}/deliveries (newest first, paged) and the webhooks cascade.
  index('webhook_deliveries_webhook_created_idx').on(t.webhookId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  // The retention sweep of finished deliveries.
  index('webhook_deliveries_created_idx').on(t.createdAt),
]);
