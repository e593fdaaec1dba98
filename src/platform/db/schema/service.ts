/** What the service itself keeps: settings every replica shares, and rate-limit counters. */
import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';

/** Service-wide values every replica must share (e.g. the upload-URL signing secret). */
export const serviceSettings = pgTable('service_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

/**
 * Rate-limit counters shared by API replicas on PostgreSQL (an UNLOGGED table, migration 0013):
 * `key` is "<limited key>@<window start ms>"; see src/platform/http/rate-limit-store.ts.
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  key: text('key').primaryKey(),
  windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
  count: integer('count').notNull(),
}, (t) => [index('rate_limit_counters_window_end_idx').on(t.windowEnd)]);
