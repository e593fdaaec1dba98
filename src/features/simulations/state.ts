/**
 * An assistant message's lifecycle, and the only writer of its status
 * (test/architecture/state-writes.test.ts). A message is stored `streaming` (answered in the
 * request) or `pending` (a background job), with the user's message, by run.ts createRun; then:
 *
 *   startBackgroundRun  pending → pending, started now (a job's attempt took it)
 *   endMessage          pending | streaming → completed | failed     simulation.completed | .failed
 *   failStaleMessages   pending | streaming, past its bound → failed simulation.failed
 *
 * Each is one conditional UPDATE … WHERE status IN (…) RETURNING: a message that already ended
 * (a retried job racing a lost one, a stale sweep racing the run) is never ended twice, and only
 * the update that ended it emits its event, in its transaction.
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import { messages, type MessageContent } from '../../platform/db/schema.ts';
import { inTransaction } from '../../platform/events/index.ts';
import type { StaleLimits } from './service.ts';

type Services = Pick<Deps, 'db' | 'events'>;

/** How an answer ended: its content, and for a failure what went wrong (`{code, message}`, public). */
export type MessageEnd = { status: 'completed'; content: MessageContent } | { status: 'failed'; content: MessageContent | null; error: { code: string; message: string } };

/** The attempt of a background job that takes a pending message records when it started. */
export async function startBackgroundRun(db: Db, messageId: string): Promise<void> {
  await db.update(messages).set({ startedAt: new Date(), updatedAt: new Date() }).where(sql`${messages.id} = ${messageId} and ${messages.status} = 'pending'`);
}

/**
 * Final state of the assistant message, and the conversation's last activity, in one
 * transaction with its event; never overwrites a message that already ended. A failure without
 * content keeps what the message had (the text streamed before it). False when it had ended.
 */
export async function endMessage(s: Services, messageId: string, end: MessageEnd): Promise<boolean> {
  const errors = end.status === 'failed' ? JSON.stringify([end.error]) : null;
  return inTransaction(s.db, async (tx, after) => {
    const [row] = rowsOf<{ simulation_id: string; organization_id: string; mind_id: string }>(
      await tx.execute(sql`
        update messages m set status = ${end.status},
          content = ${end.content === null ? sql`m.content` : sql`${JSON.stringify(end.content)}::jsonb`},
          errors = ${errors}::jsonb,
          completed_at = now(), updated_at = now()
        from simulations sim
        where m.id = ${messageId} and m.status in ('pending', 'streaming') and sim.id = m.conversation_id
        returning sim.id as simulation_id, sim.organization_id, sim.mind_id`),
    );
    if (!row) return false;
    await tx.execute(sql`update simulations set updated_at = now() where id = ${row.simulation_id}`);
    const ids = { organizationId: row.organization_id, mindId: row.mind_id, simulationId: row.simulation_id, messageId };
    if (end.status === 'completed') await s.events.emit(tx, 'simulation.completed', ids, after);
    else await s.events.emit(tx, 'simulation.failed', { ...ids, code: end.error.code, error: end.error.message }, after);
    return true;
  });
}

const INTERRUPTED = { code: 'interrupted', message: 'The run producing this message stopped before it finished' };

/**
 * Marks `failed` the unfinished messages of a conversation whose run cannot finish any more (the
 * server stopped mid-stream, or a job's attempts all died), so no message stays unfinished for
 * ever. Done when a conversation is read, which needs no timer in any process. Returns how many.
 */
export async function failStaleMessages(s: Services, simulationId: string, limits: StaleLimits): Promise<number> {
  return inTransaction(s.db, async (tx, after) => {
    const rows = rowsOf<{ id: string; organization_id: string; mind_id: string }>(
      await tx.execute(sql`
        update messages m set status = 'failed', errors = ${JSON.stringify([INTERRUPTED])}::jsonb, completed_at = now(), updated_at = now()
        from simulations sim
        where m.conversation_id = ${simulationId} and sim.id = m.conversation_id and (
          (m.status = 'streaming' and coalesce(m.started_at, m.created_at) < now() - make_interval(secs => ${limits.streamingMs / 1000}))
          or (m.status = 'pending' and m.created_at < now() - make_interval(secs => ${limits.pendingMs / 1000})))
        returning m.id, sim.organization_id, sim.mind_id`),
    );
    for (const r of rows) {
      await s.events.emit(tx, 'simulation.failed', { organizationId: r.organization_id, mindId: r.mind_id, simulationId, messageId: r.id, code: INTERRUPTED.code, error: INTERRUPTED.message }, after);
    }
    return rows.length;
  });
}
