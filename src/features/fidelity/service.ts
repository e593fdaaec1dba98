/**
 * GET /minds/{mindId}/fidelity: the stored check of the mind (job.ts), compared with the mind's
 * memory now. Always 200 for a mind of the caller's organization (404 otherwise), with a status,
 * as GET …/semantic-index: `insufficient` is an answer about the mind, not a failed request.
 * Reading an out-of-date result (a snapshot added, reprocessed, unlinked or deleted since, or its
 * semantic index grown) queues a recomputation if none is waiting, so every mind's check catches
 * up, also minds from before this feature and changes no event announces.
 */
import { sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf } from '../../platform/db/client.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { loadMindScope } from '../memory/index.ts';
import { assertMindExists } from '../minds/index.ts';
import { memoryKey, type Example } from './compute.ts';
import { fidelityEngine, queueFidelity } from './job.ts';
import type { MindFidelity } from './schemas.ts';

interface Row {
  status: 'ready' | 'insufficient';
  reason: string | null;
  memory_key: string;
  engine: string;
  embedder: string | null;
  conversations: number;
  questions: number;
  specificity: number | string | null;
  beyond_question: number | string | null;
  abstention_rate: number | string | null;
  median_source_turns: number | string | null;
  examples: Example[] | string;
  computed_at: Date | string;
}

const num = (v: number | string | null) => (v === null ? null : Number(v));
const pct = (x: number) => `${Math.round(x * 100)}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How far to trust the mind, in words, from its specificity AUC (0.5 is chance). */
export function fidelityLevel(specificity: number | null): 'high' | 'moderate' | 'low' | 'unknown' {
  if (specificity === null) return 'unknown';
  return specificity >= 0.75 ? 'high' : specificity >= 0.6 ? 'moderate' : 'low';
}

/** The plain-language trust line of a result. */
export function summaryOf(f: Pick<MindFidelity, 'status' | 'current' | 'reason' | 'conversations' | 'questions' | 'specificity' | 'abstentionRate'> & { hasResult: boolean }): string {
  if (f.status === 'insufficient') return `Not enough to check this mind yet. ${f.reason ?? ''}`.trim();
  if (f.status === 'pending' && !f.hasResult) return 'Checking how faithfully this mind answers: each of its conversations is held out in turn and its questions are put to a mind built from the rest.';
  const level = fidelityLevel(f.specificity);
  const held = f.conversations === 2 && f.questions > 0 ? 'its own 2 conversations' : `its own ${plural(f.conversations, 'conversation')}`;
  const line =
    f.specificity === null
      ? `Asked ${plural(f.questions, 'question')} from ${held}, each held out in turn.`
      : `${level[0]!.toUpperCase()}${level.slice(1)} fidelity: asked ${plural(f.questions, 'question')} from ${held}, each held out in turn, the mind’s answer was closer to the person’s real answer than to their other answers ${pct(f.specificity)} of the time (50% is chance); it declined ${pct(f.abstentionRate ?? 0)}.`;
  return f.status === 'pending' ? `${line} (Being checked again after the mind’s conversations changed.)` : line;
}

export async function getMindFidelity(ctx: Deps, caller: Caller, mindId: string): Promise<MindFidelity> {
  await assertMindExists(ctx.db, caller, mindId);
  const embedder = ctx.memory.embedder.id;
  const loaded = await loadMindScope(ctx.db, caller.organizationId, mindId, null, embedder);
  if (!loaded) await assertMindExists(ctx.db, caller, mindId); // deleted in between: 404
  const scope = loaded!.scope;
  const engine = fidelityEngine(ctx).id;
  const [row] = rowsOf<Row>(
    await ctx.db.execute(sql`select status, reason, memory_key, engine, embedder, conversations, questions, specificity, beyond_question,
      abstention_rate, median_source_turns, examples, computed_at
      from mind_fidelity where mind_id = ${mindId} and organization_id = ${caller.organizationId}`),
  );
  const empty = { computedAt: null, engine: null, embedder: null, conversations: 0, questions: 0, specificity: null, beyondQuestion: null, abstentionRate: null, medianSourceTurns: null, examples: [] };
  if (scope.snapshotCount === 0) {
    // Nothing to compute: said at once, without a job.
    const reason = 'The mind has no completed, linked conversation yet.';
    const f = { mindId, status: 'insufficient' as const, current: true, reason, ...empty };
    return { ...f, summary: summaryOf({ ...f, hasResult: false }) };
  }
  const current = Boolean(row && row.memory_key === memoryKey(scope) && row.engine === engine && row.embedder === embedder);
  if (!current) {
    const queued = await ctx.db.transaction((tx) => queueFidelity(tx, ctx.queue, { mindId, organizationId: caller.organizationId }));
    if (queued) ctx.queue.wake(QUEUE.fidelity);
  }
  const stored = row
    ? {
        computedAt: new Date(row.computed_at).toISOString(),
        engine: row.engine,
        embedder: row.embedder,
        conversations: Number(row.conversations),
        questions: Number(row.questions),
        specificity: num(row.specificity),
        beyondQuestion: num(row.beyond_question),
        abstentionRate: num(row.abstention_rate),
        medianSourceTurns: num(row.median_source_turns),
        examples: typeof row.examples === 'string' ? (JSON.parse(row.examples) as Example[]) : row.examples,
      }
    : empty;
  const status = current ? row!.status : 'pending';
  const reason = current && row!.status === 'insufficient' ? row!.reason : null;
  const f = { mindId, status, current, reason, ...stored };
  return { ...f, summary: summaryOf({ ...f, hasResult: Boolean(row && row.status === 'ready') }) };
}
