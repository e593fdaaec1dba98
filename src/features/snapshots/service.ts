/**
 * Memory bank snapshots: creating them from an uploaded file or a signed-URL artifact, listing,
 * status, details, linking, deletion, and the signed upload flow. Every function takes the caller
 * and scopes by organization and mind; processing happens in the pipeline (pipeline.ts).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { and, asc, desc, eq, getTableColumns, ne, type SQL } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../platform/db/client.ts';
import { artifacts, digitalTwins, findings, keyTopics, minds, psychometrics, snapshots, turns } from '../../platform/db/schema.ts';
import { DomainError, forbidden, invalid, notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import { matchSpeakerLabel, SINGLE_SPEAKER_LABEL, sniffFile, UnknownSpeakerError } from '../../lib/ingest/index.ts';
import { speakerLabels } from './pool.ts';
import type { FileKind } from '../../lib/ingest/types.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { assertMindExists, getDefaultTwinId } from '../minds/index.ts';
import { InvalidUploadTokenError, PayloadTooLargeError, verifyUploadToken } from '../../platform/storage/index.ts';
import { CONTENT_TYPE, isAutoCaptionFile, UPLOADABLE_CONTENT_TYPES } from './file-kinds.ts';
import type { Snapshot } from './schemas.ts';
import { assertHasContent, spoolToTempFile, type SpooledFile } from './spool.ts';
import { abandonUpload, claimUpload, markUploaded } from './state.ts';
import { isUuid, UUID_PATTERN } from '../../lib/uuid.ts';

type SnapshotRow = typeof snapshots.$inferSelect;
/** A snapshot row with what its API shape shows beside it: its file's name and its mind's name. */
export type SnapshotView = SnapshotRow & { fileName: string; mindName: string };

export const toSnapshot = (s: SnapshotView): Snapshot => ({
  id: s.id,
  mindId: s.mindId,
  artifactId: s.artifactId,
  digitalTwinId: s.digitalTwinId,
  mindsetDate: iso(s.mindsetDate)!,
  status: s.status,
  linked: s.linked,
  error: s.error,
  startedAt: iso(s.startedAt),
  completedAt: iso(s.completedAt),
  createdAt: iso(s.createdAt)!,
  updatedAt: iso(s.updatedAt)!,
  psychometricCount: s.psychometricCount,
  keyTopicCount: s.keyTopicCount,
  findingCount: s.findingCount,
  fileName: s.fileName,
  mindSpeaker: s.mindSpeaker,
  mindWords: s.mindWords,
  speakersLabelled: s.speakersLabelled,
  speakerWarning: speakerWarning(s.speakersLabelled, s.mindName),
  semanticIndex: semanticIndexOf(s),
});

/**
 * The snapshot's semantic index as its row records it. A row queued for another embedder
 * (`embeddingQueued`, set by the re-embedding sweep) is `indexing` even while it still holds the
 * old embedder's vectors.
 */
export function semanticIndexOf(s: Pick<SnapshotRow, 'status' | 'embedder' | 'embeddedAt' | 'embeddingError' | 'embeddingQueued'>): Snapshot['semanticIndex'] {
  const done = s.embeddedAt !== null && s.embedder !== null && (s.embeddingQueued === null || s.embeddingQueued === s.embedder);
  const status = s.status === 'failed' ? 'none' : s.status !== 'completed' ? 'waiting' : done ? 'ready' : s.embeddingError !== null ? 'failed' : 'indexing';
  return { status, embedder: done || status === 'indexing' ? s.embedder : null, embeddedAt: done || status === 'indexing' ? iso(s.embeddedAt) : null, error: status === 'failed' ? s.embeddingError : null };
}

/**
 * What every surface says of a file that names no speakers (null for one that does, or is not
 * processed yet): the mind now holds every voice in it.
 */
export function speakerWarning(speakersLabelled: boolean | null, mindName: string): string | null {
  if (speakersLabelled !== false) return null;
  return `The file names no speakers, so every voice in this file counts as ${mindName}: interviewers, moderators and other guests too. Upload a transcript that labels its speakers to keep only ${mindName}’s words.`;
}

/** Snapshots of the caller's organization matching `where`, with their file and mind names (two joins on primary keys). */
export function selectSnapshots(db: Db, caller: Caller, where: SQL) {
  return db
    .select({ ...getTableColumns(snapshots), fileName: artifacts.fileName, mindName: minds.name })
    .from(snapshots)
    .innerJoin(artifacts, eq(artifacts.id, snapshots.artifactId))
    .innerJoin(minds, eq(minds.id, snapshots.mindId))
    .where(and(eq(snapshots.organizationId, caller.organizationId), where));
}

export const tmpDir = (ctx: Deps) => path.join(ctx.config.dataDir, 'tmp');

/** Every stored artifact lives under this folder (the artifact sweeper lists it). */
export const ARTIFACTS_PREFIX = 'org/';
/** Everything stored for a mind lives under this folder, so deleting the mind deletes the folder. */
const mindPrefix = (organizationId: string, mindId: string) => `${ARTIFACTS_PREFIX}${organizationId}/mind/${mindId}/`;
/** Where an artifact's bytes live once it is usable. */
export const storageKey = (organizationId: string, mindId: string, artifactId: string) => `${mindPrefix(organizationId, mindId)}${artifactId}`;
/**
 * Where an S3 presigned URL puts the bytes. On first use they are checked and copied to the
 * artifact's own key, and this object is deleted: the URL stays valid until it expires (S3 cannot
 * revoke it), but a replayed PUT can only write here, never change an artifact a snapshot uses.
 */
const incomingKey = (organizationId: string, mindId: string, artifactId: string) => `${mindPrefix(organizationId, mindId)}incoming/${artifactId}`;

type ArtifactRow = typeof artifacts.$inferSelect;

/**
 * Every key that may hold bytes of an artifact: its storage key, its incoming key (a replayed
 * presigned PUT can refill it) and its own key (a confirmation cut short may have copied there).
 */
export const keysOf = (a: Pick<ArtifactRow, 'id' | 'organizationId' | 'mindId' | 'storageKey'>) =>
  [...new Set([a.storageKey, incomingKey(a.organizationId, a.mindId, a.id), storageKey(a.organizationId, a.mindId, a.id)])];

// Keys are written with ids as the database returns them, in lower case (case-sensitive match): nothing else is ours.
const ARTIFACT_KEY = new RegExp(`^${ARTIFACTS_PREFIX}(${UUID_PATTERN})/mind/(${UUID_PATTERN})/(?:incoming/)?(${UUID_PATTERN})$`);

/** Whose artifact a stored key belongs to, or null for a key in no shape this service writes. */
export function parseArtifactKey(key: string): { organizationId: string; mindId: string; artifactId: string } | null {
  const m = ARTIFACT_KEY.exec(key);
  return m ? { organizationId: m[1]!, mindId: m[2]!, artifactId: m[3]! } : null;
}

/**
 * How long a signed upload URL works. The artifact row does not store its URL's expiry: it is
 * created_at + this, give or take the moment between signing and the insert (the sweeper relies
 * on that).
 */
export const SIGNED_URL_SECONDS = 3600;

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * "2024-05-01" (midnight UTC) or an ISO 8601 date-time; a date-time without a zone is UTC, so the
 * stored instant does not depend on the server's time zone. A date that is not on the calendar
 * (2021-02-30, 24:00, a +25:00 offset) is a 400, never moved to a neighbouring day.
 */
export function parseMindsetDate(value: string | undefined): Date {
  if (value === undefined || value.trim() === '') return new Date();
  const bad = (why: string) => invalid(`mindsetDate ${why}: use an ISO 8601 date (2024-05-01) or date-time (2024-05-01T14:30:00Z; without a zone it is UTC)`, { field: 'mindsetDate' });
  const m = ISO_DATE_TIME.exec(value.trim());
  if (!m) throw bad('is not an ISO 8601 date');
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] = m;
  const year = Number(y), month = Number(mo), day = Number(d);
  const calendar = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2021-02-30 over to 2021-03-02: compare what comes back with what was asked.
  if (year < 1 || calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) {
    throw bad(`${y}-${mo}-${d} is not a calendar date`);
  }
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) throw bad(`${h}:${mi}:${sec} is not a time of day`);
  const offset = /^[+-](\d{2}):?(\d{2})$/.exec(zone);
  if (offset && (Number(offset[1]) > 23 || Number(offset[2]) > 59)) throw bad(`${zone} is not a time zone offset`);
  const normalisedZone = offset ? `${zone.slice(0, 3)}:${offset[2]}` : 'Z';
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac.slice(0, 4)}${normalisedZone}`);
  if (Number.isNaN(date.getTime())) throw bad('is not a valid date');
  return date;
}

export interface SnapshotForm {
  file: (SpooledFile & { fileName: string }) | null;
  fields: Record<string, string>;
}

export async function getSnapshotRow(db: Db, caller: Caller, mindId: string, snapshotId: string): Promise<SnapshotView> {
  const [row] = await selectSnapshots(db, caller, and(eq(snapshots.id, snapshotId), eq(snapshots.mindId, mindId))!);
  if (!row) throw notFound('Snapshot');
  return row;
}

async function sniffOrReject(filePath: string): Promise<FileKind> {
  const kind = await sniffFile(filePath);
  if (!kind) {
    throw invalid('Unsupported file type: upload a WebVTT, SRT, DOCX, PDF or UTF-8 text transcript (the type is detected from the content, not the name)', { field: 'file' });
  }
  return kind;
}

/** The kind of an uploaded file (or a 400), and whether its format says it names no speakers. */
async function sniffUpload(filePath: string): Promise<{ kind: FileKind; autoCaptions: boolean }> {
  const kind = await sniffOrReject(filePath);
  return { kind, autoCaptions: await isAutoCaptionFile(filePath, kind) };
}

/**
 * With an explicit `speaker`, the label must name one of the file's: read its labels now, so a
 * typo or an ambiguous prefix is a 400 listing them rather than a failed snapshot. The scan runs
 * on its own parser thread with a short budget (speakerLabels), so a request never waits behind
 * the jobs' parses. Returns the label it names with the file's labels, or null when the file
 * cannot be read in time (a huge or hostile PDF) or at all: the request is accepted and the job
 * checks the label (and fails an unreadable file with its reason).
 */
export async function resolveRequestedSpeaker(filePath: string, kind: FileKind, speaker: string, field = 'speaker'): Promise<{ label: string; labels: string[] } | null> {
  let labels: string[];
  try {
    labels = await speakerLabels(filePath, kind);
  } catch {
    return null;
  }
  const match = matchSpeakerLabel(labels, speaker);
  if (match.label === null) throw unknownSpeaker(speaker, labels, match.candidates, field);
  return { label: match.label, labels };
}

/** 400 for a `speaker` that names no label of the file, or several (`candidates`). */
export function unknownSpeaker(speaker: string, labels: string[], candidates: string[], field = 'speaker'): DomainError {
  const err = new UnknownSpeakerError(speaker, labels, candidates);
  return invalid(err.message, { field, speakers: labels, ...(candidates.length > 1 ? { candidates } : {}) });
}

/**
 * Whether the file names its speakers, as far as the upload can tell before processing: its
 * labels when they were read (for `speaker`), else its format (an auto-caption track names none);
 * null when only the processing can tell. One voice called "Speaker" is what the parser names
 * a file without labels, and also a file that labels everyone "Speaker": left to the processing.
 */
function speakersLabelledAtUpload(labels: string[] | null, autoCaptions: boolean): boolean | null {
  if (labels && labels.some((l) => l !== SINGLE_SPEAKER_LABEL)) return true;
  return autoCaptions ? false : null;
}

export interface CreatedSnapshot {
  message: string;
  mindAssessmentId: string;
  artifactId: string;
  fileName: string;
  fileKind: FileKind;
  speaker: string | null;
  speakersLabelled: boolean | null;
  speakerWarning: string | null;
}

export async function createSnapshot(ctx: Deps, caller: Caller, mindId: string, form: SnapshotForm): Promise<CreatedSnapshot> {
  const { db, store } = ctx;
  const mind = await assertMindExists(db, caller, mindId);
  const { fields } = form;
  const artifactIdField = fields.artifactId?.trim() || null;
  if (form.file && artifactIdField) throw invalid('Send either a file or an artifactId, not both', { field: 'file' });
  if (!form.file && !artifactIdField) throw invalid('A file (multipart part "file") or an artifactId is required', { field: 'file' });
  if (artifactIdField && !isUuid(artifactIdField)) {
    throw invalid('artifactId must be a UUID', { field: 'artifactId' });
  }
  const mindsetDate = parseMindsetDate(fields.mindsetDate);
  const speaker = fields.speaker?.trim() || null;
  let digitalTwinId = fields.digitalTwinId?.trim() || null;
  if (digitalTwinId) {
    if (!isUuid(digitalTwinId)) throw invalid('digitalTwinId must be a UUID', { field: 'digitalTwinId' });
    // Compared as a uuid, not as text: UUIDs are case-insensitive.
    const [twin] = await db
      .select({ id: digitalTwins.id })
      .from(digitalTwins)
      .where(and(eq(digitalTwins.mindId, mindId), eq(digitalTwins.id, digitalTwinId.toLowerCase())));
    if (!twin) throw invalid('digitalTwinId is not a digital twin of this mind', { field: 'digitalTwinId' });
    digitalTwinId = twin.id;
  } else {
    digitalTwinId = await getDefaultTwinId(db, mindId);
  }

  let artifactId: string;
  let newArtifact: typeof artifacts.$inferInsert | null = null;
  let file: { name: string; kind: FileKind; autoCaptions: boolean };
  let resolved: Awaited<ReturnType<typeof resolveRequestedSpeaker>> = null;
  if (form.file) {
    const { kind, autoCaptions } = await sniffUpload(form.file.path);
    if (speaker) resolved = await resolveRequestedSpeaker(form.file.path, kind, speaker);
    artifactId = randomUUID();
    const key = storageKey(caller.organizationId, mindId, artifactId);
    const stored = await store.putFile(key, form.file.path, { contentType: CONTENT_TYPE[kind] });
    file = { name: form.file.fileName, kind, autoCaptions };
    newArtifact = {
      id: artifactId,
      organizationId: caller.organizationId,
      mindId,
      storageKey: key,
      fileName: form.file.fileName,
      contentType: CONTENT_TYPE[kind],
      kind,
      autoCaptions,
      size: stored.size,
      sha256: stored.sha256,
      status: 'uploaded',
      uploadedAt: new Date(),
    };
  } else {
    artifactId = artifactIdField!;
    const artifact = await readyArtifact(ctx, caller, mindId, artifactId);
    file = { name: artifact.fileName, kind: artifact.kind as FileKind, autoCaptions: artifact.autoCaptions };
    if (speaker) resolved = await store.withLocalFile(artifact.storageKey, (p) => resolveRequestedSpeaker(p, file.kind, speaker));
  }
  // The label the speaker named, so the job matches it exactly; what was sent when it could not be checked yet.
  const requestedSpeaker = resolved?.label ?? speaker;

  let snapshotId: string;
  try {
    snapshotId = await db.transaction(async (tx) => {
      if (newArtifact) await tx.insert(artifacts).values(newArtifact);
      const [row] = await tx
        .insert(snapshots)
        .values({ organizationId: caller.organizationId, mindId, digitalTwinId, artifactId, mindsetDate, requestedSpeaker })
        .returning({ id: snapshots.id });
      // Same transaction: the snapshot and its job exist together or not at all.
      await ctx.queue.send(tx, QUEUE.processSnapshot, { snapshotId: row!.id }, { owner: caller.organizationId });
      return row!.id;
    });
  } catch (err) {
    if (newArtifact) await store.delete(newArtifact.storageKey).catch(() => {});
    throw err;
  }
  ctx.queue.wake(QUEUE.processSnapshot);
  const speakersLabelled = speakersLabelledAtUpload(resolved?.labels ?? null, file.autoCaptions);
  return {
    message: 'Snapshot created; processing has started',
    mindAssessmentId: snapshotId,
    artifactId,
    fileName: file.name,
    fileKind: file.kind,
    speaker: requestedSpeaker,
    speakersLabelled,
    speakerWarning: speakerWarning(speakersLabelled, mind.name),
  };
}

/** An artifact of this mind whose bytes are in the store (confirming an S3 presigned upload on first use). */
async function readyArtifact(ctx: Deps, caller: Caller, mindId: string, artifactId: string): Promise<ArtifactRow> {
  const [artifact] = await ctx.db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.id, artifactId), eq(artifacts.organizationId, caller.organizationId), eq(artifacts.mindId, mindId)));
  if (!artifact) throw invalid('artifactId does not name an artifact of this mind', { field: 'artifactId' });
  if (artifact.status === 'uploaded') return artifact;
  if (artifact.status !== 'awaiting_upload') throw new DomainError('CONFLICT', 'The artifact’s upload is still being received or checked; try again in a moment', { field: 'artifactId' });
  // Local signed URLs mark the artifact uploaded themselves; an S3 presigned PUT goes straight to
  // the store, so the first use checks the object there: present, within the limit, a transcript.
  const stat = await ctx.store.stat(artifact.storageKey);
  if (!stat) throw invalid('The artifact has not been uploaded yet: PUT the file to its signed URL first', { field: 'artifactId' });
  // Claim the first use, so two requests do not confirm (and copy) one upload at once.
  const claimed = await claimUpload(ctx.db, artifactId);
  if (!claimed) return readyArtifact(ctx, caller, mindId, artifactId);
  try {
    return await confirmPresignedUpload(ctx, claimed, stat.size);
  } catch (err) {
    // Whatever was refused is gone; the URL stays usable for a corrected upload until it expires.
    // Only from `uploading`: the sweeper may have settled this attempt already.
    await abandonUpload(ctx.db, artifactId);
    throw err;
  }
}

/**
 * Checks a presigned upload (size, type by content), hashes it, and copies the checked bytes to
 * the artifact's own key, so what was checked is exactly what snapshots read; the incoming object
 * is then deleted.
 */
async function confirmPresignedUpload(ctx: Deps, artifact: ArtifactRow, size: number): Promise<ArtifactRow> {
  const max = ctx.config.maxUploadBytes;
  const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', `The uploaded file is larger than the ${max / 1024 / 1024} MB limit`);
  if (size > max) {
    await ctx.store.delete(artifact.storageKey);
    throw tooLarge();
  }
  const finalKey = storageKey(artifact.organizationId, artifact.mindId, artifact.id);
  let checked;
  try {
    checked = await ctx.store.withLocalFile(artifact.storageKey, async (file) => {
      const kind = await sniffFile(file);
      if (!kind) return null;
      const autoCaptions = await isAutoCaptionFile(file, kind);
      // The object may have been replaced since stat(): the limit applies to the bytes read.
      return { kind, autoCaptions, stored: await ctx.store.put(finalKey, createReadStream(file), { contentType: CONTENT_TYPE[kind], maxBytes: max }) };
    });
  } catch (err) {
    if (err instanceof PayloadTooLargeError) {
      await ctx.store.delete(artifact.storageKey);
      throw tooLarge();
    }
    throw err;
  }
  if (!checked) {
    await ctx.store.delete(artifact.storageKey);
    throw invalid('Unsupported file type: the uploaded artifact is not a WebVTT, SRT, DOCX, PDF or text transcript', { field: 'artifactId' });
  }
  const { kind, autoCaptions, stored } = checked;
  const updated = await markUploaded(ctx.db, artifact.id, { kind, autoCaptions, size: stored.size, sha256: stored.sha256, contentType: CONTENT_TYPE[kind], storageKey: finalKey });
  if (!updated) {
    // The mind (and the artifact row) was deleted meanwhile: leave nothing behind.
    await Promise.all(keysOf({ ...artifact, storageKey: finalKey }).map((k) => ctx.store.delete(k)));
    throw invalid('artifactId does not name an artifact of this mind', { field: 'artifactId' });
  }
  if (artifact.storageKey !== finalKey) await ctx.store.delete(artifact.storageKey);
  return updated;
}

export async function listSnapshots(db: Db, caller: Caller, mindId: string) {
  await assertMindExists(db, caller, mindId);
  const rows = await selectSnapshots(db, caller, eq(snapshots.mindId, mindId)).orderBy(desc(snapshots.mindsetDate), desc(snapshots.createdAt));
  return { snapshots: rows.map(toSnapshot), count: rows.length };
}

export async function snapshotStatus(db: Db, caller: Caller, mindId: string, snapshotId: string) {
  const s = await getSnapshotRow(db, caller, mindId, snapshotId);
  return {
    id: s.id,
    mindId: s.mindId,
    status: s.status,
    startedAt: iso(s.startedAt),
    completedAt: iso(s.completedAt),
    error: s.error,
    mindSpeaker: s.mindSpeaker,
    speakersLabelled: s.speakersLabelled,
    speakerWarning: speakerWarning(s.speakersLabelled, s.mindName),
    semanticIndex: semanticIndexOf(s),
  };
}

/**
 * How the mind's words were told apart from the others', for people: above all, that a file
 * without speaker labels gave the mind every voice in it. Null until the snapshot is processed.
 */
export function attributionNote(s: Pick<SnapshotRow, 'status' | 'speakersLabelled' | 'attribution' | 'mindSpeaker'>): string | null {
  if (s.status !== 'completed') return null;
  if (s.speakersLabelled === false) {
    return 'The file names no speakers (auto-captions, or a document without speaker labels), so every voice in it was taken to be this mind’s: interviewers, moderators and other guests too, and simulations may quote their words. Upload a transcript with speaker labels to keep only this person’s words.';
  }
  const label = s.mindSpeaker ? `“${s.mindSpeaker}”` : 'The mind’s speaker';
  switch (s.attribution) {
    case 'requested':
      return `${label} was chosen as the mind’s speaker (at upload, or afterwards); the other speakers’ turns are kept only as the questions the mind answered.`;
    case 'name':
      return `${label} matches the mind’s name; the other speakers’ turns are kept only as the questions the mind answered.`;
    case 'inferred':
      return `No speaker label matches the mind’s name, so ${label}, the speaker with the most words, was taken to be the mind; choose another among the file’s speakers if that is wrong.`;
    default:
      return null;
  }
}

export async function snapshotDetails(db: Db, caller: Caller, mindId: string, snapshotId: string, opts: { includeTranscript?: boolean; includePsychometrics?: boolean }) {
  const s = await getSnapshotRow(db, caller, mindId, snapshotId);
  const [artifact] = await db.select().from(artifacts).where(eq(artifacts.id, s.artifactId));
  const details: Record<string, unknown> = {
    ...toSnapshot(s),
    artifact: { id: artifact!.id, fileName: artifact!.fileName, contentType: artifact!.contentType, kind: artifact!.kind, size: artifact!.size, sha256: artifact!.sha256 },
    speakers: s.speakers ?? [],
    attribution: s.attribution,
    attributionNote: attributionNote(s),
  };
  if (opts.includeTranscript) {
    details.transcript = await db
      .select({ id: turns.id, seq: turns.seq, speaker: turns.speaker, text: turns.text, startMs: turns.startMs, endMs: turns.endMs, isMind: turns.isMind })
      .from(turns)
      .where(eq(turns.snapshotId, snapshotId))
      .orderBy(asc(turns.seq));
  }
  if (opts.includePsychometrics) details.psychometrics = await snapshotPsychometrics(db, caller, mindId, snapshotId, s);
  return details;
}

export async function snapshotPsychometrics(db: Db, caller: Caller, mindId: string, snapshotId: string, known?: SnapshotRow) {
  if (!known) await getSnapshotRow(db, caller, mindId, snapshotId);
  return db.select().from(psychometrics).where(eq(psychometrics.snapshotId, snapshotId)).orderBy(asc(psychometrics.instrument), asc(psychometrics.name));
}

export async function snapshotTopics(db: Db, caller: Caller, mindId: string, snapshotId: string) {
  await getSnapshotRow(db, caller, mindId, snapshotId);
  const rows = await db.select().from(keyTopics).where(eq(keyTopics.snapshotId, snapshotId)).orderBy(asc(keyTopics.rank));
  return rows.map(({ rank: _rank, organizationId: _org, ...t }) => t);
}

export async function snapshotFindings(db: Db, caller: Caller, mindId: string, snapshotId: string) {
  await getSnapshotRow(db, caller, mindId, snapshotId);
  const rows = await db.select().from(findings).where(eq(findings.snapshotId, snapshotId)).orderBy(desc(findings.confidence), asc(findings.startMs));
  return rows.map(({ organizationId: _org, ...f }) => f);
}

export async function setLinked(db: Db, caller: Caller, mindId: string, snapshotId: string, linked: boolean) {
  const before = await getSnapshotRow(db, caller, mindId, snapshotId);
  const [row] = await db.update(snapshots).set({ linked, updatedAt: new Date() }).where(eq(snapshots.id, snapshotId)).returning();
  return {
    message: linked ? 'Snapshot linked: it feeds the mind’s simulations and profile again' : 'Snapshot unlinked: it is kept but no longer feeds the mind’s simulations or profile',
    snapshot: toSnapshot({ ...before, ...row! }),
  };
}

/** Deletes the snapshot (its turns and analysis cascade) and its file when no other snapshot uses it. */
export async function deleteSnapshot(ctx: Deps, caller: Caller, mindId: string, snapshotId: string) {
  const s = await getSnapshotRow(ctx.db, caller, mindId, snapshotId);
  const orphan = await ctx.db.transaction(async (tx) => {
    await tx.delete(snapshots).where(eq(snapshots.id, snapshotId));
    const [stillUsed] = await tx.select({ id: snapshots.id }).from(snapshots).where(and(eq(snapshots.artifactId, s.artifactId), ne(snapshots.id, snapshotId))).limit(1);
    if (stillUsed) return null;
    const [artifact] = await tx.delete(artifacts).where(eq(artifacts.id, s.artifactId)).returning();
    return artifact ?? null;
  });
  if (orphan) await Promise.all(keysOf(orphan).map((k) => ctx.store.delete(k)));
  return { message: 'Snapshot deleted', snapshotId };
}

/**
 * After a mind's deletion has committed (module.ts, `mind.deleted`): its folder goes, every
 * artifact and whatever a replayed or unfinished upload left there (the rows went with the mind).
 * Files first and rows after would leave a mind whose snapshots lost their files when the delete
 * of rows fails; rows first leaves at worst files no row owns, which the artifact sweeper removes
 * (sweeper.ts removeOrphanObjects) if this process dies or the store fails before they go.
 */
export async function deleteMindArtifacts(ctx: Pick<Deps, 'store'>, organizationId: string, mindId: string): Promise<void> {
  await ctx.store.deletePrefix(mindPrefix(organizationId, mindId));
}

export async function createSignedUrl(ctx: Deps, caller: Caller, mindId: string, query: { contentType: string; fileName: string }, publicBaseUrl: string) {
  await assertMindExists(ctx.db, caller, mindId);
  const contentType = query.contentType.trim().toLowerCase();
  if (!UPLOADABLE_CONTENT_TYPES.has(contentType)) {
    throw invalid(`contentType must be one of ${[...UPLOADABLE_CONTENT_TYPES].join(', ')}`, { field: 'querystring.contentType' });
  }
  const fileName = path.basename(query.fileName.replace(/\\/g, '/')).trim();
  if (!fileName || [...fileName].some((c) => c.charCodeAt(0) < 0x20)) throw invalid('fileName must be a plain file name', { field: 'querystring.fileName' });
  const artifactId = randomUUID();
  // A local URL is single-use and writes the artifact's own key; an S3 URL writes an incoming key.
  const key = (ctx.store.kind === 's3' ? incomingKey : storageKey)(caller.organizationId, mindId, artifactId);
  const expiresInSeconds = SIGNED_URL_SECONDS;
  const upload = await ctx.store.createUploadUrl({
    key,
    artifactId,
    organizationId: caller.organizationId,
    contentType,
    maxBytes: ctx.config.maxUploadBytes,
    expiresInSeconds,
    publicBaseUrl,
  });
  await ctx.db.insert(artifacts).values({ id: artifactId, organizationId: caller.organizationId, mindId, storageKey: key, fileName, contentType, status: 'awaiting_upload' });
  return { signedUrl: upload.url, fileName, artifactId, contentType, expiresAt: upload.expiresAt.toISOString() };
}

/**
 * PUT to a local signed URL: the token must verify, match the request's content type, and its
 * artifact must still be awaiting its upload (a URL works once). The body is spooled with the
 * size limit, sniffed, then moved into the store.
 */
export async function receiveSignedUpload(ctx: Deps, token: string, contentType: string | undefined, body: import('node:stream').Readable) {
  let claims;
  try {
    claims = verifyUploadToken(token, ctx.signingSecret);
  } catch (err) {
    if (err instanceof InvalidUploadTokenError) throw forbidden(err.reason === 'expired' ? 'This upload URL has expired' : 'This upload URL is not valid');
    throw err;
  }
  if ((contentType ?? '').split(';')[0]!.trim().toLowerCase() !== claims.contentType) {
    throw forbidden(`This upload URL is for Content-Type ${claims.contentType}`);
  }
  // Claim the artifact atomically: of two concurrent PUTs with one URL, only one proceeds.
  const claimed = await claimUpload(ctx.db, claims.artifactId, and(eq(artifacts.organizationId, claims.organizationId), eq(artifacts.storageKey, claims.key)));
  if (!claimed) {
    const [artifact] = await ctx.db.select({ status: artifacts.status }).from(artifacts).where(eq(artifacts.id, claims.artifactId));
    throw forbidden(artifact ? 'This upload URL has already been used' : GONE);
  }
  let spooled: SpooledFile | null = null;
  try {
    spooled = await spoolToTempFile(body, tmpDir(ctx), claims.maxBytes);
    assertHasContent(spooled, 'body');
    const { kind, autoCaptions } = await sniffUpload(spooled.path);
    const stored = await ctx.store.putFile(claims.key, spooled.path, { contentType: CONTENT_TYPE[kind] });
    const updated = await markUploaded(ctx.db, claimed.id, { kind, autoCaptions, size: stored.size, sha256: stored.sha256, contentType: CONTENT_TYPE[kind] });
    if (!updated) {
      // The mind was deleted while the bytes arrived (its folder may have gone before this file
      // existed): remove the file, and its folder with it.
      await ctx.store.delete(claims.key);
      throw forbidden(GONE);
    }
    return { message: 'Upload received', artifactId: claimed.id, size: stored.size, sha256: stored.sha256 };
  } catch (err) {
    // A refused body leaves the URL usable for a corrected upload until it expires.
    await abandonUpload(ctx.db, claimed.id);
    if (err instanceof PayloadTooLargeError) throw new DomainError('PAYLOAD_TOO_LARGE', err.message);
    throw err;
  } finally {
    await spooled?.remove();
  }
}

const GONE = 'This upload URL is no longer valid: its artifact or mind was deleted';
