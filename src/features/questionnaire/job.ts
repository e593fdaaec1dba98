/**
 * Questionnaire psychometrics of a snapshot: after the snapshot completes, the configured LLM
 * answers the 50-item IPIP Big-Five markers in character from that snapshot's own material
 * (src/engines/llm/questionnaire.ts), the answers are scored with the published key
 * (src/lib/analysis/questionnaire.ts) and stored as psychometric rows of instrument `ipip-bfm-50`
 * beside the text model's `big_five` rows.
 *
 * Queued in the transaction that completes the snapshot (pipeline.ts), so a completed snapshot
 * never lacks its job. Never queued or run without an LLM (the embedded default makes no network
 * call). Idempotent: a run replaces the instrument's rows of the snapshot, under the snapshot's
 * row lock, and only if the snapshot is still the completion it read (not deleted, not set back
 * to pending by a change of speaker: that re-processing queues a run of its own).
 */
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { BIG_FIVE_MIN_WORDS } from '../../lib/analysis/index.ts';
import { countWords } from '../../lib/analysis/nlp.ts';
import { MAX_QUOTE_CHARS } from '../../lib/analysis/evidence.ts';
import { ipipBfm50, notAdministeredRows, questionnaireRows, scoreQuestionnaire, type Instrument } from '../../lib/analysis/questionnaire.ts';
import type { EvidenceRef, PsychometricResult } from '../../lib/analysis/types.ts';
import type { Config } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { lockForTransaction, rowsOf, type Db } from '../../platform/db/client.ts';
import { findings, keyTopics, minds, psychometrics, snapshots, turns } from '../../platform/db/schema.ts';
import type { JobLogger } from '../../platform/jobs/log.ts';
import { PGBOSS_SCHEMA, type JobContext, type JobQueue } from '../../platform/jobs/queue.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { transientKind } from '../../platform/jobs/transient.ts';
import { LlmEngineError, type LlmErrorCode } from '../../engines/llm/errors.ts';
import { administerQuestionnaire, selectExcerpts } from '../../engines/llm/questionnaire.ts';
import type { MemoryTurn } from '../../engines/types.ts';

export interface QuestionnaireJob {
  snapshotId: string;
}

/** Topics and findings of the snapshot shown with the excerpts (as many as the simulation prompt shows). */
const NOTE_TOPICS = 10;
const NOTE_FINDINGS = 12;

/** Provider trouble that passes: worth another attempt of the job (each call was already retried by the SDK). */
const TRANSIENT: readonly LlmErrorCode[] = ['rate_limited', 'provider_unavailable', 'unreachable', 'timeout'];

/** The model that answers: the default simulation model when it is an LLM, else the first LLM model. */
export function questionnaireModel(config: Pick<Config, 'llm' | 'defaultModel'>): string | null {
  const models = config.llm?.models ?? [];
  return models.includes(config.defaultModel) ? config.defaultModel : (models[0] ?? null);
}

/** Where a snapshot's questionnaire run stands after asking for one: queued just now, or one already waiting to start or running. */
export type QuestionnaireRun = 'queued' | 'waiting' | 'running';

/**
 * Queues the questionnaire of a snapshot inside the caller's transaction, at most one run per
 * snapshot at a time: asking while a run is waiting or running joins that run (its rows replace
 * the snapshot's when it is done) and pays the provider nothing more. Null when no LLM answers
 * questionnaires here (nothing queued).
 *
 * Exact under concurrency on both databases: a transaction-scoped advisory lock on the snapshot
 * orders every queuer of it, and each looks at the live jobs (a statement after the lock sees
 * the jobs an earlier holder committed, under READ COMMITTED; PGlite runs one transaction at a
 * time anyway). Jobs leave the live states only when they end, so a run being taken by a worker
 * (created → active) or retried (active → retry) is never missed.
 *
 * `newCompletion` (the processing that has just completed the snapshot, pipeline.ts): a waiting
 * run is joined, as it reads the snapshot when it starts, but a running one is not: it read the
 * previous completion and its store will be refused (the completion it read is gone), so the new
 * material needs a run of its own.
 */
export async function queueQuestionnaire(
  tx: Db,
  ctx: { config: Pick<Config, 'questionnaire'>; queue: JobQueue },
  snapshot: { id: string; organizationId: string },
  { newCompletion = false }: { newCompletion?: boolean } = {},
): Promise<QuestionnaireRun | null> {
  if (!ctx.config.questionnaire) return null;
  await lockForTransaction(tx, `${QUEUE.questionnaire}/${snapshot.id}`);
  const states = newCompletion ? ['created', 'retry'] : ['created', 'retry', 'active'];
  // A waiting run first: it reads the snapshot as it is when it starts.
  const [live] = rowsOf<{ state: string }>(
    await tx.execute(sql`select j.state from ${sql.identifier(PGBOSS_SCHEMA)}.job j
      where j.name = ${QUEUE.questionnaire} and j.data->>'snapshotId' = ${snapshot.id}
        and j.state in (${sql.join(states.map((s) => sql`${s}`), sql`, `)})
      order by j.state = 'active' limit 1`),
  );
  if (live) return live.state === 'active' ? 'running' : 'waiting';
  await ctx.queue.send(tx, QUEUE.questionnaire, { snapshotId: snapshot.id } satisfies QuestionnaireJob, { owner: snapshot.organizationId });
  return 'queued';
}

/** The job handler for QUEUE.questionnaire. */
export async function runQuestionnaire(ctx: Deps, data: QuestionnaireJob, job: JobContext, log: JobLogger): Promise<void> {
  const modelId = questionnaireModel(ctx.config);
  const fields = { snapshotId: data.snapshotId, jobId: job.id, attempt: job.retryCount + 1 };
  if (!ctx.config.llm || !ctx.config.questionnaire || !modelId) {
    // Queued by a process configured with an LLM, taken by one without: not this process's to answer.
    log.warn(fields, 'questionnaire: no LLM configured in this process; job left unanswered');
    return;
  }
  const [snap] = await ctx.db
    .select({ status: snapshots.status, completedAt: snapshots.completedAt, mindsetDate: snapshots.mindsetDate, mindWords: snapshots.mindWords, organizationId: snapshots.organizationId, mindName: minds.name })
    .from(snapshots)
    .innerJoin(minds, eq(minds.id, snapshots.mindId))
    .where(eq(snapshots.id, data.snapshotId));
  // Deleted, or being processed again (its completion queues a new run).
  if (!snap || snap.status !== 'completed' || !snap.completedAt) return;

  const inst = ipipBfm50();
  const started = performance.now();
  const mindTurns = await ctx.db
    .select({ id: turns.id, seq: turns.seq, text: turns.text, context: turns.context, startMs: turns.startMs })
    .from(turns)
    .where(and(eq(turns.snapshotId, data.snapshotId), eq(turns.isMind, true)))
    .orderBy(asc(turns.seq));
  const picked = selectExcerpts(mindTurns);
  let rows: PsychometricResult[];
  let calls = 0;
  if (snap.mindWords < BIG_FIVE_MIN_WORDS || !picked.length) {
    // As the text model abstains below this many words, so does the questionnaire: a model would
    // still answer every item, from its priors rather than from the person.
    rows = notAdministeredRows(inst, `Only ${snap.mindWords} words of the person’s speech in this snapshot: too little to answer a questionnaire from (at least ${BIG_FIVE_MIN_WORDS}, as for the text model).`);
  } else {
    const excerpts: MemoryTurn[] = picked.map((t) => ({ turnId: t.id, snapshotId: data.snapshotId, text: t.text, context: t.context, startMs: t.startMs, mindsetDate: snap.mindsetDate, seq: t.seq }));
    try {
      const notes = await snapshotNotes(ctx.db, data.snapshotId);
      const administered = await administerQuestionnaire(ctx.config.llm, modelId, inst, { name: snap.mindName, excerpts, notes });
      calls = administered.calls;
      rows = questionnaireRows(inst, scoreQuestionnaire(inst, administered.answers), {
        respondent: `${modelId} role-playing ${snap.mindName}`,
        excerpts: picked.map(evidenceOf),
        materialWords: picked.reduce((n, t) => n + countWords(t.text), 0),
      });
    } catch (err) {
      if (err instanceof LlmEngineError) {
        if (TRANSIENT.includes(err.code) && !job.isLastAttempt) {
          log.warn({ ...fields, err }, 'questionnaire: the LLM provider failed; the job will be retried');
          throw err;
        }
        // The log has the detail (endpoint and model, never the key: errors.ts scrubs it); the
        // rows, which callers read, the public message without the provider's internal URL.
        log.error({ ...fields, err }, 'questionnaire: not administered');
        rows = notAdministeredRows(inst, err.publicMessage);
      } else {
        if (transientKind(err) && !job.isLastAttempt) throw err;
        log.error({ ...fields, err }, 'questionnaire: failed');
        return;
      }
    }
  }
  const stored = await store(ctx.db, data.snapshotId, snap.completedAt, inst, rows);
  if (!stored) {
    log.info(fields, 'questionnaire: the snapshot changed while it was answered (deleted or processed again); nothing stored');
    return;
  }
  ctx.mindCache?.invalidate(snap.organizationId);
  log.info({ ...fields, model: modelId, calls, scored: rows.filter((r) => r.score !== null).length, ms: Math.round(performance.now() - started) }, 'questionnaire: stored');
}

/** A turn as evidence: its opening, verbatim, cut at a word boundary within the evidence quote limit. */
function evidenceOf(t: { id: string; text: string; startMs: number | null }): EvidenceRef {
  let quote = t.text.trim();
  if (quote.length > MAX_QUOTE_CHARS) {
    const cut = quote.lastIndexOf(' ', MAX_QUOTE_CHARS);
    quote = quote.slice(0, cut > 40 ? cut : MAX_QUOTE_CHARS).trim();
  }
  return { turnId: t.id, quote, startMs: t.startMs };
}

async function snapshotNotes(db: Db, snapshotId: string) {
  const topics = await db.select({ label: keyTopics.label, keywords: keyTopics.keywords }).from(keyTopics).where(eq(keyTopics.snapshotId, snapshotId)).orderBy(asc(keyTopics.rank)).limit(NOTE_TOPICS);
  const found = await db
    .select({ kind: findings.kind, statement: findings.statement, quote: findings.quote })
    .from(findings)
    .where(eq(findings.snapshotId, snapshotId))
    .orderBy(desc(findings.confidence), asc(findings.startMs))
    .limit(NOTE_FINDINGS);
  return { topics, findings: found };
}

/**
 * Replaces the instrument's rows of the snapshot and its psychometric count, if the snapshot is
 * still the completion the run read. The row lock orders this after any re-processing's store.
 */
async function store(db: Db, snapshotId: string, completedAt: Date, inst: Instrument, rows: PsychometricResult[]): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ status: snapshots.status, completedAt: snapshots.completedAt, organizationId: snapshots.organizationId, mindId: snapshots.mindId })
      .from(snapshots)
      .where(eq(snapshots.id, snapshotId))
      .for('update');
    if (!current || current.status !== 'completed' || current.completedAt?.getTime() !== completedAt.getTime()) return false;
    await tx.delete(psychometrics).where(and(eq(psychometrics.snapshotId, snapshotId), eq(psychometrics.instrument, inst.id)));
    if (rows.length) {
      await tx.insert(psychometrics).values(rows.map((p) => ({ organizationId: current.organizationId, mindId: current.mindId, snapshotId, instrument: p.instrument, name: p.name, score: p.score, percentile: p.percentile, confidence: p.confidence, note: p.note, evidence: p.evidence })));
    }
    await tx
      .update(snapshots)
      .set({ psychometricCount: sql`(select count(*)::int from ${psychometrics} where ${psychometrics.snapshotId} = ${snapshotId})`, updatedAt: new Date() })
      .where(eq(snapshots.id, snapshotId));
    return true;
  });
}
