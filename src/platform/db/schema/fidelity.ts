/** A mind's fidelity check. */
import { sql } from 'drizzle-orm';
import { doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './accounts.ts';
import { minds } from './minds.ts';

/**
 * The fidelity check of a mind (src/features/fidelity, migration 0015): each conversation held out
 * in turn, its interviewers' questions asked of a mind built from the rest, the answers measured
 * against what the person really said (src/lib/fidelity/measure.ts). One row per mind, replaced by
 * each computation; `memoryKey` is the state of the mind's memory it was computed for (the scope's
 * fingerprint and that of its semantic index), so a reader knows when it is out of date.
 */
export const mindFidelity = pgTable('mind_fidelity', {
  mindId: uuid('mind_id').primaryKey().references(() => minds.id, { onDelete: 'cascade' }),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  /** 'ready' (measured) or 'insufficient' (too little to hold out: `reason` says why). */
  status: text('status').notNull(),
  reason: text('reason'),
  memoryKey: text('memory_key').notNull(),
  engine: text('engine').notNull(),
  embedder: text('embedder'),
  conversations: integer('conversations').notNull().default(0),
  questions: integer('questions').notNull().default(0),
  specificity: doublePrecision('specificity'),
  beyondQuestion: doublePrecision('beyond_question'),
  abstentionRate: doublePrecision('abstention_rate'),
  medianSourceTurns: doublePrecision('median_source_turns'),
  examples: jsonb('examples').$type<{ question: string; real: string; simulated: string; snapshotId: string; specificity: number | null }[]>().notNull().default(sql`'[]'::jsonb`),
  durationMs: integer('duration_ms'),
  computedAt: timestamp('computed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [index('mind_fidelity_org_idx').on(t.organizationId)]);
