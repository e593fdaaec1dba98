/** Simulations (conversations with a mind), their shares and messages. */
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, createdAt, updatedAt } from './columns.ts';
import { organizations, users } from './accounts.ts';
import { minds } from './minds.ts';

export const simulations = pgTable('simulations', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  /** The snapshot the simulation is pinned to ("as of"), or the newest linked one when it started. */
  mindAssessmentId: uuid('mind_assessment_id').notNull(),
  /** Answer as of this snapshot's mindsetDate only (replay); null = all linked snapshots. */
  asOfSnapshotId: uuid('as_of_snapshot_id'),
  /** The mind's default twin when it started (every mind has one; twins are not deleted on their own). */
  digitalTwinId: uuid('digital_twin_id').notNull(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  title: text('title').notNull(),
  model: text('model').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  // GET /simulations lists the caller's own simulations by last activity (and, through
  // simulation_shares_user_idx, those shared with them): each index hands over a page in list
  // order without sorting, and counts the caller's simulations without reading the table. The
  // first also serves the users cascade, the second a list filtered by mind and the minds cascade.
  // NULLS FIRST is what `order by … desc` means; an index in any other null order does not serve it.
  index('simulations_user_updated_idx').on(t.userId, t.organizationId, t.updatedAt.desc().nullsFirst(), t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  index('simulations_mind_user_updated_idx').on(t.mindId, t.userId, t.updatedAt.desc().nullsFirst(), t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
]);

export const simulationShares = pgTable('simulation_shares', {
  simulationId: uuid('simulation_id').notNull().references(() => simulations.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.simulationId, t.userId] }), index('simulation_shares_user_idx').on(t.userId)]);

export interface MessageContent {
  text: string;
  evidence?: { turnId: string; snapshotId: string; quote: string; startMs: number | null }[];
  analysis?: { thinking: string; feeling: string; saying: string; acting: string };
  model?: string;
  /** What to know before trusting the answer (simulations/schemas.ts AnswerWarning). */
  warnings?: { code: string; message: string; snapshotIds?: string[] }[];
}

export const messages = pgTable('messages', {
  id: id(),
  conversationId: uuid('conversation_id').notNull().references(() => simulations.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull(),
  role: text('role').notNull(),
  status: text('status').notNull(),
  framework: text('framework').notNull().default('mindprint'),
  version: text('version').notNull(),
  content: jsonb('content').$type<MessageContent>(),
  errors: jsonb('errors').$type<{ code: string; message: string }[]>(),
  seq: integer('seq').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
  completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
}, (t) => [uniqueIndex('messages_conversation_seq_key').on(t.conversationId, t.seq)]);
