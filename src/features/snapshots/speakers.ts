/**
 * Which speaker of a snapshot's file is the mind, after the upload: the file's speakers with their
 * words and a few of their lines to choose from, and re-attribution. Re-attributing sends the
 * snapshot back through the one processing pipeline (pipeline.ts): the snapshot returns to
 * `pending` with the chosen label and its job is queued in the same transaction, so the new
 * memory and analysis are stored exactly once, by the same locked, idempotent step as an upload's.
 * Also the check of a speaker named at upload against the file's labels (resolveRequestedSpeaker).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf } from '../../platform/db/client.ts';
import { findings, keyTopics, psychometrics, snapshots, turns, artifacts } from '../../platform/db/schema.ts';
import { conflict, invalid, notFound, type DomainError } from '../../platform/errors.ts';
import { matchSpeakerLabel, UnknownSpeakerError, UnreadableTranscriptError } from '../../lib/ingest/index.ts';
import { speakerLabels } from './pool.ts';
import type { FileKind } from '../../lib/ingest/types.ts';
import { inTransaction } from '../../platform/events/index.ts';
import { getSnapshotRow } from './service.ts';
import { speakerWarning, toSnapshot, type SnapshotView } from './views.ts';
import { OPEN, reprocess } from './state.ts';

/** Lines shown per speaker, and how much of each. */
const SAMPLES = 3;
const SAMPLE_CHARS = 200;
/** A line this short ("Yeah.", "Right, right.") says little about who is speaking: longer ones first. */
const SUBSTANTIAL_CHARS = 60;

const isOpen = (status: string) => (OPEN as readonly string[]).includes(status);

function stillProcessing(s: SnapshotView) {
  return conflict(`The snapshot is still ${s.status}: its speakers are known, and can be changed, once it is processed`);
}

export interface SpeakerEntry {
  label: string;
  turns: number | null;
  words: number | null;
  isMind: boolean;
  samples: string[];
}

/** Where the snapshot's file is and what kind it is, for reading its labels again. */
async function fileOf(ctx: Deps, s: SnapshotView): Promise<{ storageKey: string; kind: FileKind }> {
  const [a] = await ctx.db.select({ storageKey: artifacts.storageKey, kind: artifacts.kind }).from(artifacts).where(eq(artifacts.id, s.artifactId));
  return { storageKey: a!.storageKey, kind: a!.kind as FileKind };
}

/**
 * The labels of a failed snapshot's file, read again (it stored no turns): null when they cannot
 * be read in time. A file that cannot be read at all is a 409 saying why.
 */
async function labelsFromFile(ctx: Deps, s: SnapshotView): Promise<string[] | null> {
  const { storageKey, kind } = await fileOf(ctx, s);
  try {
    return await ctx.store.withLocalFile(storageKey, (p) => speakerLabels(p, kind));
  } catch (err) {
    if (err instanceof UnreadableTranscriptError) throw conflict(`The file cannot be read, so it has no speakers to choose from: ${err.message}`);
    return null;
  }
}

/** Up to SAMPLES lines of each speaker: their first substantial turns, in one query. */
async function sampleLines(ctx: Deps, snapshotId: string): Promise<Map<string, string[]>> {
  const rows = rowsOf<{ speaker: string; text: string }>(
    await ctx.db.execute(sql`
      select speaker, left(text, ${SAMPLE_CHARS + 1}) as text from (
        select speaker, text, seq,
          row_number() over (partition by speaker order by (length(text) < ${SUBSTANTIAL_CHARS}), seq) as n
        from ${turns} where snapshot_id = ${snapshotId}
      ) t
      where n <= ${SAMPLES}
      order by speaker, n`),
  );
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const line = r.text.replace(/\s+/g, ' ').trim();
    const list = out.get(r.speaker) ?? [];
    list.push(line.length > SAMPLE_CHARS ? `${line.slice(0, SAMPLE_CHARS - 1).trimEnd()}…` : line);
    out.set(r.speaker, list);
  }
  return out;
}

export async function listSpeakers(ctx: Deps, caller: Caller, mindId: string, snapshotId: string) {
  const s = await getSnapshotRow(ctx.db, caller, mindId, snapshotId);
  if (isOpen(s.status)) throw stillProcessing(s);
  let speakers: SpeakerEntry[];
  if (s.status === 'completed') {
    const samples = await sampleLines(ctx, s.id);
    speakers = (s.speakers ?? []).map((sp) => ({ ...sp, samples: samples.get(sp.label) ?? [] }));
  } else {
    const labels = await labelsFromFile(ctx, s);
    if (!labels) throw conflict('Reading the file’s speaker labels took too long; try again in a moment');
    speakers = labels.map((label) => ({ label, turns: null, words: null, isMind: false, samples: [] }));
  }
  return {
    snapshotId: s.id,
    status: s.status,
    mindSpeaker: s.mindSpeaker,
    attribution: s.attribution,
    speakersLabelled: s.speakersLabelled,
    speakerWarning: speakerWarning(s.speakersLabelled, s.mindName),
    speakers,
  };
}

/**
 * Makes `speaker` (a label of the file, matched as the upload's `speaker` field is) the mind's
 * speaker. A completed snapshot whose mind already is that label changes nothing but how it was
 * chosen; otherwise the snapshot goes back to `pending`: its turns and analysis are removed
 * (they were another speaker's) and its job is queued, in one transaction that first locks the
 * row, so two requests at once re-run it once (the second finds it pending: 409).
 */
export async function setSpeaker(ctx: Deps, caller: Caller, mindId: string, snapshotId: string, requested: string) {
  const s = await getSnapshotRow(ctx.db, caller, mindId, snapshotId);
  if (isOpen(s.status)) throw stillProcessing(s);
  const wanted = requested.trim();
  const labels = s.status === 'completed' ? (s.speakers ?? []).map((sp) => sp.label) : await labelsFromFile(ctx, s);
  let label = wanted;
  if (labels) {
    const match = matchSpeakerLabel(labels, wanted);
    if (match.label === null) throw unknownSpeaker(wanted, labels, match.candidates, 'body.speaker');
    label = match.label;
  }

  if (s.status === 'completed' && label === s.mindSpeaker) {
    const [row] = await ctx.db
      .update(snapshots)
      .set({ requestedSpeaker: label, attribution: 'requested', updatedAt: new Date() })
      .where(and(eq(snapshots.id, s.id), eq(snapshots.status, 'completed')))
      .returning();
    if (!row) throw conflict('The snapshot changed meanwhile; read it again');
    return { message: `“${label}” already is the mind’s speaker: nothing to process again`, speaker: label, reprocessing: false, snapshot: toSnapshot({ ...s, ...row }) };
  }

  const row = await inTransaction(ctx.db, async (tx, after) => {
    const [current] = await tx.select({ status: snapshots.status }).from(snapshots).where(eq(snapshots.id, s.id)).for('update');
    if (!current) return null;
    if (isOpen(current.status)) throw stillProcessing({ ...s, status: current.status });
    // What the previous speaker's processing stored: the pipeline would replace it too, but until
    // then it would be served as this snapshot's, and a failed re-run would keep it.
    await tx.delete(turns).where(eq(turns.snapshotId, s.id));
    for (const table of [psychometrics, keyTopics, findings]) await tx.delete(table).where(eq(table.snapshotId, s.id));
    // Back to pending with its job queued (state.ts): snapshot.reprocessing, the worker woken after the commit.
    return reprocess(ctx, tx, s.id, label, after, caller.organizationId);
  });
  if (!row) throw notFound('Snapshot');
  return {
    message: `The snapshot is processed again with “${label}” as the mind: its memory and analysis are replaced when it completes`,
    speaker: label,
    reprocessing: true,
    snapshot: toSnapshot({ ...s, ...row }),
  };
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
