/** Organizations, their users and API keys, and each key's daily usage. */
import { sql } from 'drizzle-orm';
import { bigint, doublePrecision, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, createdAt } from './columns.ts';

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull(),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('organizations_name_key').on(t.name)]);

export const users = pgTable('users', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  name: text('name').notNull(),
  imageUrl: text('image_url'),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('users_org_email_key').on(t.organizationId, sql`lower(${t.email})`)]);

export const apiKeys = pgTable('api_keys', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name'),
  /** SHA-256 (hex) of the secret; the secret itself is never stored. */
  keyHash: text('key_hash').notNull(),
  /** The first characters of the secret, so a person can tell keys apart. */
  prefix: text('prefix').notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
}, (t) => [
  uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
  index('api_keys_org_idx').on(t.organizationId),
  index('api_keys_user_idx').on(t.userId),
]);

/** Per key, day and operation: counts and a latency histogram, merged in by periodic flushes. */
export const usageDaily = pgTable('usage_daily', {
  apiKeyId: uuid('api_key_id').notNull().references(() => apiKeys.id, { onDelete: 'cascade' }),
  day: text('day').notNull(),
  operation: text('operation').notNull(),
  successCount: bigint('success_count', { mode: 'number' }).notNull().default(0),
  errorCount: bigint('error_count', { mode: 'number' }).notNull().default(0),
  latencySumMs: doublePrecision('latency_sum_ms').notNull().default(0),
  latencyMinMs: doublePrecision('latency_min_ms'),
  latencyMaxMs: doublePrecision('latency_max_ms'),
  /** Bucket index → count; see usage/histogram.ts. */
  histogram: jsonb('histogram').$type<Record<string, number>>().notNull().default({}),
}, (t) => [primaryKey({ columns: [t.apiKeyId, t.day, t.operation] })]);
