/**
 * The snapshot job: pending → processing → completed | failed. Parsing, speaker attribution and
 * analysis run in a worker thread (digest.ts); this handler stores the result in one transaction.
 * A re-run (retry after a crash) replaces whatever a previous attempt left, so it is idempotent;
 * and two attempts alive at once (pg-boss hands an expired job to another worker while the first
 * still runs) store it exactly once: the snapshot row is locked while storing, and an attempt
 * that finds the snapshot completed writes nothing.
 * Only failures known to pass are retried (decideFailure); a snapshot whose every attempt was
 * lost with its worker is failed by the sweeper (sweeper.ts).
 *
 * The job decides the snapshot's outcome. The sweeper's "lost" is only an inference (no attempt
 * can run any more), so if one runs after all — a handler pg-boss gave up on that was still
 * running, or a job retried by hand — it takes the snapshot back and its result stands
 * (state.ts OPEN_FOR_ATTEMPT); and an attempt that computed a result stores it whatever failed the
 * snapshot meanwhile (store). No new attempt starts on a failure the pipeline itself decided, and
 * a completed snapshot is never failed or processed again.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../platform/db/client.ts';
import { inTransaction, type AfterCommit } from '../../platform/events/index.ts';
import { findings, keyTopics, minds, psychometrics, snapshots, turns, artifacts } from '../../platform/db/schema.ts';
import { ParseBudgetError, ParserCrashedError, ParserPoolClosedError, ParseTimeoutError, UnknownSpeakerError, UnreadableTranscriptError } from '../../lib/ingest/index.ts';
import { digestTranscriptToFile, type ParseStats } from './pool.ts';
import type { FileKind } from '../../lib/ingest/types.ts';
import { jobLogger, type JobLogger } from '../../platform/jobs/log.ts';
import type { JobContext } from '../../platform/jobs/queue.ts';
import { describeTransient, transientKind } from '../../platform/jobs/transient.ts';
import { ArtifactNotFoundError } from '../../platform/storage/index.ts';
import type { DigestSummary } from './digest.ts';
import { complete, fail, openForAttempt, startAttempt } from './state.ts';
import { TurnsFile } from './turns-file.ts';

/** Rows per INSERT: big transcripts are written in a few statements, not one per turn. */
const BATCH = 500;

export interface ProcessSnapshotJob {
  snapshotId: string;
}

export async function processSnapshot(ctx: Deps, data: ProcessSnapshotJob, job: JobContext, log: JobLogger = jobLogger(ctx.config)): Promise<void> {
  const { db } = ctx;
  const [row] = await db
    .select({ snapshot: snapshots, mindName: minds.name, storageKey: artifacts.storageKey, kind: artifacts.kind })
    .from(snapshots)
    .innerJoin(minds, eq(minds.id, snapshots.mindId))
    .innerJoin(artifacts, eq(artifacts.id, snapshots.artifactId))
    .where(eq(snapshots.id, data.snapshotId));
  if (!row) return; // deleted while queued: nothing to do
  if (!openForAttempt(row.snapshot)) return;
  const finishedElsewhere = () => log.info({ snapshotId: data.snapshotId, jobId: job.id, attempt: job.retryCount + 1 }, 'snapshot no longer open (another attempt of its job finished it, or it was deleted); nothing stored');
  if (!(await startAttempt(ctx.db, data.snapshotId))) return finishedElsewhere();

  const started = performance.now();
  let digest: DigestSummary;
  let parse: ParseStats | undefined;
  // The turns come back in a file (turns-file.ts), read batch by batch while storing; removed on every path.
  const turnsFile = new TurnsFile(path.join(ctx.config.dataDir, 'tmp'));
  try {
    // Within the parse budgets (MINDPRINT_PARSE_*): past one, a ParseBudgetError fails the snapshot at once.
    digest = await ctx.store.withLocalFile(row.storageKey, async (file) =>
      digestTranscriptToFile(file, row.kind as FileKind, { mindName: row.mindName, requestedSpeaker: row.snapshot.requestedSpeaker }, await turnsFile.prepare(), { budgets: ctx.config.parseBudgets }, { onStats: (s) => (parse = s) }),
    );
    await turnsFile.open();
  } catch (err) {
    await turnsFile.remove();
    return await onFailure(ctx, log, data.snapshotId, job, err, 'analysing the transcript', parse);
  }

  const digested = performance.now();
  let stored: boolean;
  try {
    stored = await inTransaction(ctx.db, (tx, after) => store(ctx, tx, row.snapshot, digest, turnsFile, after));
  } catch (err) {
    // Awaited here, not returned bare: the finally's await would otherwise leave onFailure's
    // rejection (a retry, or the database still down) without a handler for a moment, and Node
    // ends the process on an unhandled rejection (the worker died so in the restart test).
    return await onFailure(ctx, log, data.snapshotId, job, err, 'saving the analysis');
  } finally {
    await turnsFile.remove();
  }
  if (!stored) return finishedElsewhere();
  ctx.database.noteBulkWrite();
  const ms = (x: number) => Math.round(x);
  log.info({ snapshotId: data.snapshotId, jobId: job.id, attempt: job.retryCount + 1, turns: digest.turnCount, digestMs: ms(digested - started), storeMs: ms(performance.now() - digested), parse }, 'snapshot processed');
}

/** What to do about an error of one attempt. */
export type FailureDecision =
  /** The snapshot fails now with this reason; the job is not retried. */
  | { action: 'fail'; reason: string; internal: boolean }
  /** The job is retried (the error is rethrown); on the last attempt the snapshot fails with `reason`. */
  | { action: 'retry'; reason: string };

/**
 * Sorts an error into "fail now" and "retry": input that can never be read and bugs fail at once
 * (a bug fails the same way every time), and so does a file over a parse budget (memory, CPU
 * time, decoded bytes, pages, streams) or one its parser crashed on twice (ParseBudgetError, an
 * UnreadableTranscriptError): the same bytes cost the same again. A parser killed from outside,
 * a shutdown and storage or database trouble are retried with backoff; a parse past its
 * wall-clock bound is retried once, since a busy machine can cause it (its CPU time was within
 * budget) but a file that runs out of time twice will again.
 */
export function decideFailure(err: unknown, job: Pick<JobContext, 'retryCount'>, step: string, reference: string): FailureDecision {
  if (err instanceof UnreadableTranscriptError || err instanceof UnknownSpeakerError) return { action: 'fail', reason: err.message, internal: false };
  if (err instanceof ArtifactNotFoundError) return { action: 'fail', reason: 'The uploaded file is missing from storage; upload it again', internal: false };
  const attempts = job.retryCount + 1;
  if (err instanceof ParseTimeoutError) {
    if (job.retryCount >= 1) return { action: 'fail', reason: `${err.message} (${attempts} attempts); the file may be damaged or too complex to read`, internal: false };
    return { action: 'retry', reason: err.message };
  }
  if (err instanceof ParserCrashedError || err instanceof ParserPoolClosedError) return { action: 'retry', reason: `Processing failed after ${attempts} attempts: ${err.message}` };
  const kind = transientKind(err);
  if (kind) return { action: 'retry', reason: `Processing failed after ${attempts} attempts: ${describeTransient(kind)} (reference ${reference})` };
  return { action: 'fail', reason: `Processing failed: an internal error occurred while ${step} (reference ${reference})`, internal: true };
}

async function onFailure(ctx: Deps, log: JobLogger, snapshotId: string, job: JobContext, err: unknown, step: string, parse?: ParseStats): Promise<void> {
  const reference = randomBytes(4).toString('hex');
  const decision = decideFailure(err, job, step, reference);
  const fields = { reference, snapshotId, jobId: job.id, attempt: job.retryCount + 1, err, parse };
  if (decision.action === 'fail') {
    if (decision.internal) log.error(fields, `snapshot processing failed: internal error while ${step}`);
    else if (err instanceof ParseBudgetError) log.warn(fields, `snapshot failed: the file is over a parse budget (${err.limit})`);
    await fail(ctx, snapshotId, decision.reason);
    return;
  }
  if (job.isLastAttempt) {
    log.error(fields, `snapshot processing failed on its last attempt while ${step}`);
    await fail(ctx, snapshotId, decision.reason);
  } else {
    log.warn(fields, `snapshot processing will be retried: error while ${step}`);
  }
  throw err;
}

/**
 * Writes the analysis and completes the snapshot in one transaction. Returns false, having written
 * nothing, when the snapshot was deleted or another attempt of its job already completed it.
 * The turns are read from their file as they are inserted, never all in memory at once.
 */
async function store(ctx: Deps, tx: Db, snapshot: typeof snapshots.$inferSelect, digest: DigestSummary, turnsFile: TurnsFile, after: AfterCommit): Promise<boolean> {
  const base = { organizationId: snapshot.organizationId, mindId: snapshot.mindId, snapshotId: snapshot.id };
  const { analysis, attribution } = digest;
  // The row lock serialises concurrent attempts: a second one waits here until the first commits,
  // then reads 'completed' and leaves its turns alone, instead of both deleting (nothing yet
  // committed) and both inserting a full set. A snapshot failed meanwhile (the sweeper's "lost",
  // another attempt's last-attempt failure) is stored over: a result, once computed, stands.
  const [current] = await tx.select({ status: snapshots.status }).from(snapshots).where(eq(snapshots.id, snapshot.id)).for('update');
  if (!current || current.status === 'completed') return false;
  // Whatever an interrupted earlier attempt wrote is replaced, not duplicated.
  await tx.delete(turns).where(eq(turns.snapshotId, snapshot.id));
  await tx.delete(psychometrics).where(eq(psychometrics.snapshotId, snapshot.id));
  await tx.delete(keyTopics).where(eq(keyTopics.snapshotId, snapshot.id));
  await tx.delete(findings).where(eq(findings.snapshotId, snapshot.id));
  let read = 0;
  for await (const batch of turnsFile.batches(BATCH)) {
    await tx.insert(turns).values(batch.map((t) => ({ ...base, ...t })));
    read += batch.length;
  }
  // A short file (a write cut off) must not complete a snapshot with turns missing.
  if (read !== digest.turnCount) throw new Error(`The digest's turns file holds ${read} turns; the parser wrote ${digest.turnCount}`);
  if (analysis.psychometrics.length) {
    await tx.insert(psychometrics).values(analysis.psychometrics.map((p) => ({ ...base, instrument: p.instrument, name: p.name, score: p.score, percentile: p.percentile, confidence: p.confidence, note: p.note, evidence: p.evidence })));
  }
  if (analysis.keyTopics.length) {
    await tx.insert(keyTopics).values(analysis.keyTopics.map((k, rank) => ({ ...base, rank, label: k.label, keywords: k.keywords, share: k.share, sentiment: k.sentiment, evidence: k.evidence })));
  }
  if (analysis.findings.length) {
    await tx.insert(findings).values(analysis.findings.map((f) => ({ ...base, kind: f.kind, statement: f.statement, quote: f.quote, turnId: f.turnId, startMs: f.startMs, polarity: f.polarity, confidence: f.confidence })));
  }
  // The snapshot becomes completed and emits snapshot.completed: what follows (the semantic
  // index, the questionnaire) subscribes to the event, in this transaction.
  return complete(ctx, tx, snapshot.id, {
    mindSpeaker: attribution.mindLabel,
    attribution: attribution.attribution,
    speakersLabelled: digest.speakersLabelled,
    speakers: attribution.speakers,
    mindWords: analysis.mindWords,
    psychometricCount: analysis.psychometrics.length,
    keyTopicCount: analysis.keyTopics.length,
    findingCount: analysis.findings.length,
  }, after);
}
