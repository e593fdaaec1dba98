/**
 * The memory bank: uploaded artifacts, snapshots, the turns read from them with the semantic
 * index's vectors, and each snapshot's analysis (psychometrics, key topics, findings).
 */
import { sql, type SQL } from 'drizzle-orm';
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tsvector, bytea, id, createdAt, updatedAt } from './columns.ts';
import { organizations } from './accounts.ts';
import { digitalTwins, minds } from './minds.ts';

export const artifacts = pgTable('artifacts', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  storageKey: text('storage_key').notNull(),
  fileName: text('file_name').notNull(),
  contentType: text('content_type').notNull(),
  /** Detected from the bytes: vtt | srt | docx | pdf | txt (null until uploaded). */
  kind: text('kind'),
  size: bigint('size', { mode: 'number' }),
  sha256: text('sha256'),
  /**
   * Recognised at upload, by its format, as an automatic speech-recognition caption track (no
   * speaker named): the upload answer warns at once that every voice in it counts as the mind.
   */
  autoCaptions: boolean('auto_captions').notNull().default(false),
  /** awaiting_upload (signed URL issued) → uploaded. A signed URL works only while awaiting. */
  status: text('status').notNull(),
  createdAt: createdAt(),
  uploadedAt: timestamp('uploaded_at', { withTimezone: true, mode: 'date' }),
}, (t) => [
  index('artifacts_mind_idx').on(t.mindId),
  index('artifacts_org_idx').on(t.organizationId),
  // The maintenance sweep looks for unfinished uploads by age (src/features/snapshots/sweeper.ts): a few
  // rows among all artifacts, found without reading the finished ones.
  index('artifacts_unfinished_created_idx').on(t.createdAt).where(sql`${t.status} in ('awaiting_upload', 'uploading')`),
]);

export const snapshots = pgTable('snapshots', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  digitalTwinId: uuid('digital_twin_id').references(() => digitalTwins.id, { onDelete: 'set null' }),
  artifactId: uuid('artifact_id').notNull().references(() => artifacts.id),
  mindsetDate: timestamp('mindset_date', { withTimezone: true, mode: 'date' }).notNull(),
  status: text('status').notNull().default('pending'),
  error: text('error'),
  linked: boolean('linked').notNull().default(true),
  requestedSpeaker: text('requested_speaker'),
  mindSpeaker: text('mind_speaker'),
  attribution: text('attribution'),
  /**
   * Whether the file named its speakers. False for auto-captions and plain documents with no
   * labels: the one voice "Speaker" is everyone who spoke, so the mind holds every voice of the
   * file. Null until the snapshot is processed.
   */
  speakersLabelled: boolean('speakers_labelled'),
  speakers: jsonb('speakers').$type<{ label: string; turns: number; words: number; isMind: boolean }[]>(),
  mindWords: integer('mind_words').notNull().default(0),
  psychometricCount: integer('psychometric_count').notNull().default(0),
  keyTopicCount: integer('key_topic_count').notNull().default(0),
  findingCount: integer('finding_count').notNull().default(0),
  attempts: integer('attempts').notNull().default(0),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
  completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  /** The semantic index (src/features/memory): the embedder the turns were embedded with, and when; null until then. */
  embedder: text('embedder'),
  embeddedAt: timestamp('embedded_at', { withTimezone: true, mode: 'date' }),
  /** The embedder a (re-)embedding job was queued for, so several processes queue it once. */
  embeddingQueued: text('embedding_queued'),
  /** Why the last embedding job failed (the provider unreachable, …); null when it did not. */
  embeddingError: text('embedding_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('snapshots_mind_date_idx').on(t.mindId, t.mindsetDate.desc()),
  index('snapshots_org_idx').on(t.organizationId),
  index('snapshots_artifact_idx').on(t.artifactId),
]);

export const turns = pgTable('turns', {
  id: id(),
  organizationId: uuid('organization_id').notNull(),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  snapshotId: uuid('snapshot_id').notNull().references(() => snapshots.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  speaker: text('speaker').notNull(),
  text: text('text').notNull(),
  startMs: integer('start_ms'),
  endMs: integer('end_ms'),
  isMind: boolean('is_mind').notNull(),
  /** The other speaker's turn just before this one: the question the mind was answering. */
  context: text('context'),
  /** Words of the whole reply when ingest cut a long turn into parts (each part has it); else null. */
  replyWords: integer('reply_words'),
  /**
   * What a search matches: the turn's words (weight A) and its question's (B). Stored in the row
   * (STORAGE MAIN, set by migration 0003, which drizzle-kit does not model): every search reads
   * this column for each of the mind's turns, while text and context are read only for the few
   * hundred turns a search returns, so those are the values compressed or moved out of line.
   */
  tsv: tsvector('tsv').generatedAlwaysAs(
    (): SQL => sql`setweight(to_tsvector('english', ${turns.text}), 'A') || setweight(to_tsvector('english', coalesce(${turns.context}, '')), 'B')`,
  ),
}, (t) => [
  // Unique: should two attempts of a snapshot's job ever both store it (pipeline.ts locks the
  // snapshot so that they cannot), the second fails instead of duplicating the turns.
  uniqueIndex('turns_snapshot_seq_key').on(t.snapshotId, t.seq),
  index('turns_mind_idx').on(t.mindId).where(sql`${t.isMind}`),
  index('turns_tsv_idx').using('gin', t.tsv),
]);

/**
 * Sentence embeddings of the mind's turns and of the questions they answered (src/features/memory), apart
 * from `turns` so the full-text scan reads no more bytes. float32 little-endian unit vectors of the
 * space `embedder` names. Where pgvector exists, migration 0012 adds `text_vector` and
 * `context_vector` (type vector) beside them, which drizzle does not model: src/features/memory writes and
 * searches them with SQL of its own.
 */
export const turnEmbeddings = pgTable('turn_embeddings', {
  turnId: uuid('turn_id').primaryKey().references(() => turns.id, { onDelete: 'cascade' }),
  organizationId: uuid('organization_id').notNull(),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  snapshotId: uuid('snapshot_id').notNull().references(() => snapshots.id, { onDelete: 'cascade' }),
  embedder: text('embedder').notNull(),
  dimensions: integer('dimensions').notNull(),
  embedding: bytea('embedding').notNull(),
  contextEmbedding: bytea('context_embedding'),
  createdAt: createdAt(),
}, (t) => [
  index('turn_embeddings_mind_idx').on(t.mindId, t.embedder),
  index('turn_embeddings_snapshot_idx').on(t.snapshotId),
]);

export interface EvidenceRow {
  turnId: string;
  quote: string;
  startMs: number | null;
}

export const psychometrics = pgTable('psychometrics', {
  id: id(),
  organizationId: uuid('organization_id').notNull(),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  snapshotId: uuid('snapshot_id').notNull().references(() => snapshots.id, { onDelete: 'cascade' }),
  instrument: text('instrument').notNull(),
  name: text('name').notNull(),
  score: doublePrecision('score'),
  percentile: doublePrecision('percentile'),
  confidence: doublePrecision('confidence').notNull(),
  note: text('note'),
  evidence: jsonb('evidence').$type<EvidenceRow[]>().notNull(),
}, (t) => [index('psychometrics_snapshot_idx').on(t.snapshotId), index('psychometrics_mind_idx').on(t.mindId)]);

export const keyTopics = pgTable('key_topics', {
  id: id(),
  organizationId: uuid('organization_id').notNull(),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  snapshotId: uuid('snapshot_id').notNull().references(() => snapshots.id, { onDelete: 'cascade' }),
  rank: integer('rank').notNull(),
  label: text('label').notNull(),
  keywords: jsonb('keywords').$type<string[]>().notNull(),
  share: doublePrecision('share').notNull(),
  sentiment: doublePrecision('sentiment').notNull(),
  evidence: jsonb('evidence').$type<EvidenceRow[]>().notNull(),
}, (t) => [index('key_topics_snapshot_idx').on(t.snapshotId), index('key_topics_mind_idx').on(t.mindId)]);

export const findings = pgTable('findings', {
  id: id(),
  organizationId: uuid('organization_id').notNull(),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  snapshotId: uuid('snapshot_id').notNull().references(() => snapshots.id, { onDelete: 'cascade' }),
  kind: text('kind').notNull(),
  statement: text('statement').notNull(),
  quote: text('quote').notNull(),
  turnId: uuid('turn_id').notNull(),
  startMs: integer('start_ms'),
  polarity: text('polarity').notNull(),
  confidence: doublePrecision('confidence').notNull(),
}, (t) => [index('findings_snapshot_idx').on(t.snapshotId), index('findings_mind_idx').on(t.mindId)]);
