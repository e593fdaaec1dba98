/**
 * The database schema: one definition for PGlite and PostgreSQL, migrated by drizzle-kit.
 * Every tenant-owned table carries organization_id, and every query filters on it.
 */
import { sql, type SQL } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength)),
});

const id = () => uuid('id').primaryKey().default(sql`gen_random_uuid()`);
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

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

export const minds = pgTable('minds', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  email: text('email'),
  imageUrl: text('image_url'),
  socialMedia: jsonb('social_media').$type<Record<string, unknown>>(),
  scope: text('scope').notNull().default('private'),
  isSelf: boolean('is_self').notNull().default(false),
  /** Lower-cased name, email, slug, tag names and social values: what search matches (trigram index). */
  searchText: text('search_text').notNull().default(''),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  uniqueIndex('minds_org_slug_key').on(t.organizationId, t.slug),
  index('minds_org_created_idx').on(t.organizationId, t.createdAt.desc()),
  index('minds_search_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
]);

export const digitalTwins = pgTable('digital_twins', {
  id: id(),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  isDefault: boolean('is_default').notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('digital_twins_mind_idx').on(t.mindId)]);

export const tags = pgTable('tags', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex('tags_org_lower_name_key').on(t.organizationId, sql`lower(${t.name})`)]);

export const mindTags = pgTable('mind_tags', {
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  tagId: uuid('tag_id').notNull().references(() => tags.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.mindId, t.tagId] }), index('mind_tags_tag_idx').on(t.tagId)]);

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

// ───────────── memory bank ─────────────

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

// ───────────── simulations ─────────────

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

// ───────────── webhooks ─────────────

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
