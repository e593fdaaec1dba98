/**
 * Running a simulation: validate the request against the mind, the conversation and the model;
 * store the user's message and the assistant's (pending or streaming) in one transaction —
 * with the background job, when there is one, in the same transaction (jobs.ts runs it); then
 * build what the engine is given (engine-input.ts), call the engine and store the answer with
 * its warnings (warnings.ts) or the failure. A stored assistant message always ends `completed`
 * or `failed`; while it streams, its text so far is stored as it grows (partial.ts).
 */
import { sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf } from '../../platform/db/client.ts';
import { messages, simulations, type MessageContent } from '../../platform/db/schema.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { LlmEngineError } from '../../engines/llm/index.ts';
import type { EngineResult, SimulationEngine } from '../../engines/types.ts';
import { VERSION } from '../../platform/version.ts';
import { UnknownModelError, type EngineRegistry } from '../../engines/registry.ts';
import { loadMindScope, type MindScope } from '../memory/index.ts';
import { engineInput } from './engine-input.ts';
import type { SimulationJob } from './jobs.ts';
import { partialSaver } from './partial.ts';
import type { AnswerWarning, SimulateBody } from './schemas.ts';
import { checkAccess, type SimulationAccess } from './service.ts';
import { endMessage } from './state.ts';
import { answerWarnings } from './warnings.ts';

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

export function runErrorOf(err: unknown): RunError {
  // The public message: the detailed one names the provider's (internal) endpoint; it goes to the log (executeRun).
  if (err instanceof LlmEngineError) return { code: err.code, message: err.publicMessage };
  if (err instanceof Error && err.name === 'AbortError') return { code: 'aborted', message: 'The simulation was cancelled before the answer was complete' };
  return { code: 'internal', message: 'The simulation failed on our side' };
}

/** The assistant message's final state (state.ts endMessage): a failed one keeps the text streamed before the failure (`partial`). */
export async function finish(s: RunServices, messageId: string, outcome: { result: RunResult; model: string } | { error: RunError; partial?: string; model?: string }): Promise<void> {
  if ('result' in outcome) {
    await endMessage(s, messageId, { status: 'completed', content: { text: outcome.result.text, evidence: outcome.result.evidence, analysis: outcome.result.analysis, model: outcome.model, ...(outcome.result.warnings.length ? { warnings: outcome.result.warnings } : {}) } });
    return;
  }
  const content: MessageContent | null = outcome.partial ? { text: outcome.partial, ...(outcome.model ? { model: outcome.model } : {}) } : null;
  await endMessage(s, messageId, { status: 'failed', content, error: outcome.error });
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

/** A failed run as the HTTP error of a synchronous POST /simulate. */
export function httpErrorOf(err: unknown, ids: RunIds): DomainError | unknown {
  if (err instanceof LlmEngineError) {
    return new DomainError('UPSTREAM_FAILED', err.publicMessage, { engineCode: err.code, simulationId: ids.simulationId, conversationId: ids.conversationId, messageId: ids.messageId });
  }
  return err;
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
