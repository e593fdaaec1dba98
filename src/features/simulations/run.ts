/**
 * Running a simulation: validate the request against the mind, the conversation and the model;
 * store the user's message and the assistant's (pending or streaming) in one transaction —
 * with the background job, when there is one, in the same transaction; then retrieve memory,
 * build the persona, call the engine and store the answer or the failure. A stored assistant
 * message always ends `completed` or `failed`.
 */
import { sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Config } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import { messages, simulations, type MessageContent } from '../../platform/db/schema.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import type { JobContext } from '../../platform/jobs/queue.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { buildQuery, extractSearchTerms, rankMemory, socialIntent } from '../../engines/extractive/index.ts';
import { LlmEngineError } from '../../engines/llm/index.ts';
import type { ConversationMessage, EngineInput, EngineResult, Evidence, MemoryTurn, SimulationEngine } from '../../engines/types.ts';
import { VERSION } from '../../platform/version.ts';
import { UnknownModelError, type EngineRegistry } from '../../engines/registry.ts';
import { loadMindScope, recall, retrieveMemory, type MindScope } from '../memory/index.ts';
import type { AnswerWarning, SimulateBody } from './schemas.ts';
import { checkAccess, type SimulationAccess } from './service.ts';
import { endMessage, startBackgroundRun } from './state.ts';

/** What a run uses of the process's Deps (benchmarks pass their own). */
export type RunServices = Pick<Deps, 'db' | 'events' | 'queue' | 'engines' | 'personas' | 'memory' | 'rerankers' | 'config' | 'log'>;

export interface PreparedRun {
  caller: Caller;
  scope: MindScope;
  engine: SimulationEngine;
  message: string;
  conversation: SimulationAccess | null;
  /** What a new simulation records it answers from (spec: Simulation.mindAssessmentId, digitalTwinId). */
  basis: { mindAssessmentId: string; digitalTwinId: string };
}

export interface RunIds {
  simulationId: string;
  conversationId: string;
  userMessageId: string;
  messageId: string;
  /** seq of the assistant message: the history is everything before the user message (seq − 1). */
  seq: number;
}

/** An answer as stored and returned: the engine's result and what to know before trusting it. */
export interface RunResult extends EngineResult {
  warnings: AnswerWarning[];
}

export interface RunError {
  code: string;
  message: string;
}

const TITLE_CHARS = 80;

/** The first message, on one line, cut at a word boundary. */
export function titleFrom(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_CHARS) return line;
  const cut = line.slice(0, TITLE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** Checks everything a request can get wrong before anything is stored. */
export async function prepareRun(s: RunServices, caller: Caller, body: SimulateBody): Promise<PreparedRun> {
  if (body.stream && body.runInBackground) {
    throw invalid('body.stream and body.runInBackground cannot both be true: a background run has no stream to read', { field: 'body.stream' });
  }
  let conversation: SimulationAccess | null = null;
  if (body.conversationId) {
    conversation = await checkAccess(s.db, caller, body.conversationId);
    if (conversation.mindId !== body.mindId) {
      throw invalid(`body.conversationId is a conversation with another mind (${conversation.mindId}), not ${body.mindId}`, { field: 'body.conversationId' });
    }
    if (body.snapshotId && body.snapshotId !== conversation.asOfSnapshotId) {
      throw invalid(
        conversation.asOfSnapshotId
          ? `body.snapshotId: this conversation answers as of snapshot ${conversation.asOfSnapshotId}; start a new conversation for another date`
          : 'body.snapshotId: this conversation uses all linked snapshots; start a new conversation to answer as of a snapshot',
        { field: 'body.snapshotId' },
      );
    }
  }
  // A conversation keeps its model unless the request names one.
  const engine = body.selectedSimulationModel !== undefined || !conversation ? selectEngine(s.engines, body.selectedSimulationModel) : s.engines.forStored(conversation.model);
  const asOf = conversation ? conversation.asOfSnapshotId : (body.snapshotId ?? null);
  const loaded = await loadMindScope(s.db, caller.organizationId, body.mindId, asOf, s.memory?.embedder.id ?? null);
  if (!loaded) throw notFound('Mind');
  if (loaded.asOfProblem === 'not_found') {
    if (conversation) throw invalid(`The snapshot this conversation answers as of (${asOf}) no longer exists; start a new conversation`, { field: 'body.conversationId' });
    throw notFound('Snapshot');
  }
  if (loaded.asOfProblem === 'other_mind') throw invalid(`body.snapshotId is a snapshot of another mind, not ${body.mindId}`, { field: 'body.snapshotId' });
  const { scope } = loaded;
  if (scope.snapshotCount === 0) {
    throw invalid(
      scope.asOfDate
        ? `Mind "${scope.mindName}" has no completed, linked snapshot as of ${scope.asOfDate.toISOString()}: there is nothing to answer from`
        : `Mind "${scope.mindName}" has no completed, linked snapshot yet: upload a transcript (POST /minds/${scope.mindId}/snapshots) and wait for it to complete`,
      { field: 'body.mindId' },
    );
  }
  const mindAssessmentId = scope.asOfSnapshotId ?? scope.latestSnapshotId;
  // Every mind gets its default twin when it is created, and a scope with snapshots has a newest one.
  if (!mindAssessmentId || !scope.defaultTwinId) throw new Error(`Mind ${scope.mindId} has no ${mindAssessmentId ? 'default digital twin' : 'snapshot in scope'}`);
  const basis = { mindAssessmentId, digitalTwinId: scope.defaultTwinId };
  return { caller, scope, engine, message: body.scenario.message.trim(), conversation, basis };
}

/**
 * Stores the user message and the assistant message (`streaming` for a run inside the request,
 * `pending` for a background one) — and creates the simulation for a new conversation — in one
 * transaction, with the background job when there is one.
 */
export async function createRun(s: RunServices, run: PreparedRun, mode: 'now' | 'background'): Promise<RunIds> {
  const { caller, scope, engine } = run;
  const ids = await s.db.transaction(async (tx) => {
    let simulationId: string;
    let last = 0;
    if (run.conversation) {
      simulationId = run.conversation.id;
      // Locks the conversation first, so two turns sent at once get distinct, ordered seqs. The
      // model chosen for this turn becomes the conversation's model for the turns after it.
      await tx
        .update(simulations)
        .set({ updatedAt: new Date(), model: engine.id })
        .where(sql`${simulations.id} = ${simulationId} and ${simulations.organizationId} = ${caller.organizationId}`);
      const [row] = rowsOf<{ seq: number | string | null }>(await tx.execute(sql`select max(seq) as seq from messages where conversation_id = ${simulationId}`));
      last = Number(row?.seq ?? 0);
    } else {
      const [created] = await tx
        .insert(simulations)
        .values({
          organizationId: caller.organizationId,
          mindId: scope.mindId,
          mindAssessmentId: run.basis.mindAssessmentId,
          asOfSnapshotId: scope.asOfSnapshotId,
          digitalTwinId: run.basis.digitalTwinId,
          userId: caller.userId,
          title: titleFrom(run.message),
          model: engine.id,
        })
        .returning({ id: simulations.id });
      simulationId = created!.id;
    }
    const now = new Date();
    const [user, assistant] = await tx
      .insert(messages)
      .values([
        { conversationId: simulationId, userId: caller.userId, role: 'user', status: 'completed', version: VERSION, content: { text: run.message }, seq: last + 1, startedAt: now, completedAt: now },
        { conversationId: simulationId, userId: caller.userId, role: 'assistant', status: mode === 'now' ? 'streaming' : 'pending', version: VERSION, content: null, seq: last + 2, startedAt: mode === 'now' ? now : null },
      ])
      .returning({ id: messages.id });
    if (mode === 'background') {
      await s.queue.send(tx, QUEUE.runSimulation, { organizationId: caller.organizationId, messageId: assistant!.id, model: engine.id } satisfies SimulationJob);
    }
    return { simulationId, conversationId: simulationId, userMessageId: user!.id, messageId: assistant!.id, seq: last + 2 };
  });
  if (mode === 'background') s.queue.wake(QUEUE.runSimulation);
  return ids;
}

/**
 * The conversation before the message being answered: completed messages only, oldest first,
 * each earlier answer with its evidence (so the next answer can say something new).
 */
async function historyBefore(db: Db, simulationId: string, userSeq: number): Promise<ConversationMessage[]> {
  if (userSeq <= 1) return [];
  const rows = rowsOf<{ role: 'user' | 'assistant'; text: string | null; evidence: Evidence[] | string | null }>(
    await db.execute(sql`
      select role, content->>'text' as text, content->'evidence' as evidence from messages
      where conversation_id = ${simulationId} and seq < ${userSeq} and status = 'completed'
      order by seq`),
  );
  return rows
    .filter((r) => r.text)
    .map((r) => {
      const evidence = typeof r.evidence === 'string' ? (JSON.parse(r.evidence) as Evidence[]) : r.evidence;
      return r.role === 'assistant' && Array.isArray(evidence) ? { role: r.role, text: r.text!, evidence } : { role: r.role, text: r.text! };
    });
}

/** Turns quoted by the latest answers of the conversation: fetched again so a follow-up can go on from them. */
const CITED_ANSWERS = 2;
function citedTurnIds(history: readonly ConversationMessage[]): string[] {
  return history
    .filter((m) => m.role === 'assistant')
    .slice(-CITED_ANSWERS)
    .flatMap((m) => (m.evidence ?? []).map((e) => e.turnId));
}

/**
 * LLM engines read the first excerpts in the order given: put the turns the extractive ranking
 * (BM25F over what was said and what was asked) likes best first, the rest after.
 */
function rankForLlm(memory: MemoryTurn[], message: string, history: ConversationMessage[]): MemoryTurn[] {
  const { ranked } = rankMemory(memory, buildQuery(message, history));
  const first = new Set(ranked.map((r) => r.turn.turnId));
  return [...ranked.map((r) => r.turn), ...memory.filter((t) => !first.has(t.turnId))];
}

export function runErrorOf(err: unknown): RunError {
  // The public message: the detailed one names the provider's (internal) endpoint; it goes to the log (executeRun).
  if (err instanceof LlmEngineError) return { code: err.code, message: err.publicMessage };
  if (err instanceof Error && err.name === 'AbortError') return { code: 'aborted', message: 'The simulation was cancelled before the answer was complete' };
  return { code: 'internal', message: 'The simulation failed on our side' };
}

/** The assistant message's final state (state.ts endMessage): a failed one keeps the text streamed before the failure (`partial`). */
async function finish(s: RunServices, messageId: string, outcome: { result: RunResult; model: string } | { error: RunError; partial?: string; model?: string }): Promise<void> {
  if ('result' in outcome) {
    await endMessage(s, messageId, { status: 'completed', content: { text: outcome.result.text, evidence: outcome.result.evidence, analysis: outcome.result.analysis, model: outcome.model, ...(outcome.result.warnings.length ? { warnings: outcome.result.warnings } : {}) } });
    return;
  }
  const content: MessageContent | null = outcome.partial ? { text: outcome.partial, ...(outcome.model ? { model: outcome.model } : {}) } : null;
  await endMessage(s, messageId, { status: 'failed', content, error: outcome.error });
}

/** While an answer streams, its text so far is stored at most this often, so readers of the conversation see it grow. */
export const PARTIAL_SAVE_MS = 1000;

/** Stores the streamed text so far (throttled; the last save wins, and never after the message ended). */
function partialSaver(db: Db, messageId: string, log?: RunServices['log']): { add(text: string): void; text(): string; flush(): Promise<void> } {
  let text = '';
  let saved = '';
  let last = Date.now();
  let pending: Promise<void> = Promise.resolve();
  const save = () => {
    if (text === saved) return;
    const snapshot = text;
    saved = snapshot;
    pending = pending
      .then(() => db.execute(sql`update messages set content = ${JSON.stringify({ text: snapshot })}::jsonb, updated_at = now() where id = ${messageId} and status = 'streaming'`))
      .then(
        () => undefined,
        (err: unknown) => log?.error({ err, messageId }, 'could not store the partial answer'),
      );
  };
  return {
    add(piece) {
      text += piece;
      if (Date.now() - last >= PARTIAL_SAVE_MS) {
        last = Date.now();
        save();
      }
    },
    text: () => text,
    flush: () => pending,
  };
}

/**
 * The warnings of an answer: evidence quoted from a snapshot whose file names no speakers (its
 * `speakersLabelled` is false) may be anyone's words in that file, and whoever reads the answer
 * must be told so with it — not only at upload.
 */
export async function answerWarnings(db: Db, organizationId: string, mindName: string, evidence: readonly Evidence[]): Promise<AnswerWarning[]> {
  const ids = [...new Set(evidence.map((e) => e.snapshotId))];
  if (!ids.length) return [];
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`select s.id from snapshots s where s.organization_id = ${organizationId} and s.speakers_labelled is false
      and s.id in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`),
  );
  if (!rows.length) return [];
  const unlabelled = new Set(rows.map((r) => r.id));
  return [unlabelledWarning(mindName, evidence.filter((e) => unlabelled.has(e.snapshotId)).length, evidence.length, ids.filter((id) => unlabelled.has(id)))];
}

/** The `unlabelled_speakers` warning: `quoted` of the answer's `total` quotes come from `snapshotIds`. */
export function unlabelledWarning(mindName: string, quoted: number, total: number, snapshotIds: string[]): AnswerWarning {
  const files = snapshotIds.length === 1 ? 'a file that names no speakers' : 'files that name no speakers';
  const which = quoted === total ? (total === 1 ? 'The quote comes' : `All ${total} quotes come`) : `${quoted} of the ${total} quotes come`;
  return {
    code: 'unlabelled_speakers',
    message: `${which} from ${files} (auto-captions or an unlabelled transcript): every voice in ${snapshotIds.length === 1 ? 'it' : 'them'} counts as ${mindName}, so ${quoted === 1 ? 'it' : 'they'} may be someone else’s words — an interviewer’s, a moderator’s or another guest’s.`,
    snapshotIds,
  };
}

export interface ExecuteOptions {
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
}

/**
 * Produces and stores the answer for a created run. Resolves with the result, or rejects after
 * the message has been marked failed (errors that are worth a retry are rethrown without
 * marking, when `retryable` says so).
 */
export async function executeRun(
  s: RunServices,
  scope: MindScope,
  engine: SimulationEngine,
  ids: Pick<RunIds, 'simulationId' | 'messageId' | 'seq'>,
  message: string,
  opts: ExecuteOptions & { retryable?: (err: unknown) => boolean } = {},
): Promise<RunResult> {
  const partial = opts.onDelta ? partialSaver(s.db, ids.messageId, s.log) : null;
  try {
    const input = await engineInput(s, scope, engine, ids.simulationId, ids.seq - 1, message);
    const onDelta = opts.onDelta
      ? (text: string) => {
          partial!.add(text);
          opts.onDelta!(text);
        }
      : undefined;
    const generated = await engine.generate({ ...input, signal: opts.signal }, onDelta);
    const result: RunResult = { ...generated, warnings: await answerWarnings(s.db, scope.organizationId, scope.mindName, generated.evidence) };
    await partial?.flush();
    await finish(s, ids.messageId, { result, model: engine.id });
    return result;
  } catch (err) {
    if (opts.retryable?.(err)) throw err;
    const error = runErrorOf(err);
    if (error.code === 'internal') s.log?.error({ err, messageId: ids.messageId }, 'simulation failed');
    // Callers are told what failed, not where the provider is: the operator's detail is logged here.
    else if (err instanceof LlmEngineError && err.code !== 'aborted') s.log?.error({ engineCode: err.code, providerStatus: err.providerStatus, detail: err.message, messageId: ids.messageId }, 'simulation failed: LLM provider');
    await partial?.flush();
    await finish(s, ids.messageId, { error, partial: partial?.text(), model: engine.id }).catch((e: unknown) =>
      s.log?.error({ err: e, messageId: ids.messageId }, 'could not mark simulation message failed'),
    );
    throw err;
  }
}

/**
 * What an engine is given to answer `message` in a conversation: the history before it (with
 * the earlier answers' evidence), the memory retrieved for it (plus the turns the conversation
 * quoted, and the opening turns for a greeting or "who are you?"), the persona, and the other
 * speakers' names. The one path every caller takes — POST /simulate, background jobs and the
 * fidelity benchmark — so what is measured is what is served.
 */
export async function engineInput(s: Pick<RunServices, 'db' | 'personas' | 'memory'> & Partial<Pick<RunServices, 'log' | 'rerankers'>> & { config?: Pick<Config, 'rerankerAdapt'> }, scope: MindScope, engine: SimulationEngine, simulationId: string | null, userSeq: number, message: string): Promise<EngineInput> {
  const history = simulationId ? await historyBefore(s.db, simulationId, userSeq) : [];
  const terms = extractSearchTerms(message, history);
  const options = { citedTurnIds: citedTurnIds(history), openings: socialIntent(message, scope.mindName.split(/\s+/)) !== null };
  // Hybrid retrieval (src/features/memory): full text, and vector similarity to what the person said and to
  // what they were asked, fused; a follow-up widens the query with the previous exchange.
  const retrieved = s.memory
    ? recall(s.memory, scope, message, history, terms, { ...options, onEmbedderError: (err) => s.log?.error({ err, mindId: scope.mindId }, 'embedding the message failed; answering from full-text search') })
    : retrieveMemory(s.db, scope, terms, options).then((memory) => ({ memory, messageEmbedding: null }));
  const [found, material] = await Promise.all([retrieved, s.personas.material(s.db, scope)]);
  const memory = engine.engine === 'llm' ? rankForLlm(found.memory, message, history) : found.memory;
  // The extractive reranker adapted to this mind, once it is ready (computed in the background, never waited for).
  const reranker =
    engine.engine === 'extractive' && s.rerankers && s.config?.rerankerAdapt ? s.rerankers.peek(s.db, scope) : undefined;
  return {
    mindName: scope.mindName,
    message,
    history,
    memory,
    persona: material.persona,
    otherSpeakers: material.otherSpeakers,
    messageEmbedding: found.messageEmbedding,
    ...(s.memory ? { embedder: s.memory.embedder } : {}),
    ...(reranker ? { reranker } : {}),
  };
}

/** A failed run as the HTTP error of a synchronous POST /simulate. */
export function httpErrorOf(err: unknown, ids: RunIds): DomainError | unknown {
  if (err instanceof LlmEngineError) {
    return new DomainError('UPSTREAM_FAILED', err.publicMessage, { engineCode: err.code, simulationId: ids.simulationId, conversationId: ids.conversationId, messageId: ids.messageId });
  }
  return err;
}

// ───────────── background runs ─────────────

export interface SimulationJob {
  organizationId: string;
  messageId: string;
  model: string;
}

/** LLM errors that the same request will hit again: no point in retrying the job. */
const PERMANENT = new Set(['auth', 'not_found', 'provider_rejected', 'aborted']);

/** The job handler for QUEUE.runSimulation. Idempotent: a message that already ended is left alone. */
export async function runSimulationJob(s: RunServices, data: SimulationJob, job: JobContext): Promise<void> {
  const [row] = rowsOf<{ id: string; seq: number; status: string; simulation_id: string; mind_id: string; as_of_snapshot_id: string | null; text: string | null }>(
    await s.db.execute(sql`
      select m.id, m.seq, m.status, sim.id as simulation_id, sim.mind_id, sim.as_of_snapshot_id,
        (select u.content->>'text' from messages u where u.conversation_id = sim.id and u.seq = m.seq - 1) as text
      from messages m join simulations sim on sim.id = m.conversation_id
      where m.id = ${data.messageId} and sim.organization_id = ${data.organizationId}`),
  );
  // Deleted meanwhile (simulation or mind), or already finished by an earlier attempt.
  if (!row || (row.status !== 'pending' && row.status !== 'streaming')) return;
  const seq = Number(row.seq);
  const fail = (error: RunError) => finish(s, row.id, { error });
  if (!row.text) return fail({ code: 'internal', message: 'The question of this simulation message is missing' });
  await startBackgroundRun(s.db, row.id);

  const loaded = await loadMindScope(s.db, data.organizationId, row.mind_id, row.as_of_snapshot_id, s.memory?.embedder.id ?? null);
  if (!loaded) return; // the mind is gone, and its simulations with it
  if (loaded.asOfProblem || loaded.scope.snapshotCount === 0) {
    return fail({ code: 'no_memory', message: 'The mind no longer has a completed, linked snapshot to answer from' });
  }
  const engine = s.engines.forStored(data.model);
  await executeRun(s, loaded.scope, engine, { simulationId: row.simulation_id, messageId: row.id, seq }, row.text, {
    // Leave the message pending for the next attempt unless this is the last one or retrying cannot help.
    retryable: (err) => !job.isLastAttempt && !(err instanceof LlmEngineError && PERMANENT.has(err.code)),
  }).catch((err: unknown) => {
    // A failure already stored on the message is final: do not make pg-boss retry it.
    if (!job.isLastAttempt && !(err instanceof LlmEngineError && PERMANENT.has(err.code))) throw err;
  });
}

/** The requested engine; an unknown model id is a 400 that lists the choices. */
function selectEngine(engines: EngineRegistry, requested: string | undefined): SimulationEngine {
  try {
    return engines.select(requested);
  } catch (err) {
    if (!(err instanceof UnknownModelError)) throw err;
    throw invalid(`body.selectedSimulationModel ${err.message}`, { field: 'body.selectedSimulationModel', models: err.available });
  }
}
