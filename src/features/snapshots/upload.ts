/**
 * Creating a snapshot from an uploaded file or from an artifact uploaded to a signed URL: the
 * form's fields checked, the file sniffed and stored, the requested speaker checked against the
 * file's labels, and the snapshot inserted with its job in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import { artifacts, digitalTwins, snapshots } from '../../platform/db/schema.ts';
import { invalid } from '../../platform/errors.ts';
import { SINGLE_SPEAKER_LABEL } from '../../lib/ingest/index.ts';
import type { FileKind } from '../../lib/ingest/types.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { assertMindExists, getDefaultTwinId } from '../minds/index.ts';
import { isUuid } from '../../lib/uuid.ts';
import { storageKey } from './artifact-keys.ts';
import { CONTENT_TYPE, sniffUpload } from './file-kinds.ts';
import { readyArtifact } from './signed-upload.ts';
import { resolveRequestedSpeaker } from './speakers.ts';
import type { SpooledFile } from './spool.ts';
import { speakerWarning } from './views.ts';

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
