/**
 * Domain events. A state change that changed a row emits its event inside the same transaction
 * (`events.emit(tx, …)`); the subscribers (each module's `on`) run there too, in the order the
 * modules were registered, and may only write rows or enqueue jobs: what follows a change commits
 * or rolls back with it, so a completed snapshot never lacks its embedding job, and a rolled-back
 * one never has one. Effects outside the database (waking a worker, dropping a cache entry) are
 * handed to `afterCommit` and run once the transaction has committed (`inTransaction` does both).
 */
import type { Db } from '../db/client.ts';

/**
 * Every event, with what it carries: ids and a few small facts (the reason of a failure, the
 * embedder of an index), so a subscriber reads the rows it needs in the transaction and one that
 * tells the outside (webhooks) has what a receiver needs to know which resource to read.
 */
export interface DomainEvents {
  /** pending | processing | failed → completed: turns and analysis stored. */
  'snapshot.completed': { organizationId: string; mindId: string; snapshotId: string };
  /** pending | processing → failed (the job's decision or the sweeper's "lost"); `error` is the public reason. */
  'snapshot.failed': { organizationId: string; mindId: string; snapshotId: string; error: string };
  /** completed | failed → pending: another speaker chosen, the snapshot's job queued again. */
  'snapshot.reprocessing': { organizationId: string; mindId: string; snapshotId: string; speaker: string };
  /** The semantic index of a completed snapshot became ready for `embedder`. */
  'snapshot.indexed': { organizationId: string; mindId: string; snapshotId: string; embedder: string };
  /** The assistant message `messageId` ended completed. */
  'simulation.completed': { organizationId: string; mindId: string; simulationId: string; messageId: string };
  /** The assistant message `messageId` ended failed; `error` is its public message (`code` its kind). */
  'simulation.failed': { organizationId: string; mindId: string; simulationId: string; messageId: string; code: string; error: string };
  /** The mind's rows are gone (cascades took its snapshots, turns, simulations). */
  'mind.deleted': { organizationId: string; mindId: string };
}
export type EventType = keyof DomainEvents;
export const EVENT_TYPES = [
  'snapshot.completed',
  'snapshot.failed',
  'snapshot.reprocessing',
  'snapshot.indexed',
  'simulation.completed',
  'simulation.failed',
  'mind.deleted',
] as const satisfies readonly EventType[];

/**
 * Callbacks run after the transaction that collected them has committed, never after a rollback.
 * A task may be async: `run` waits for each in turn, so a request answers once its effects are
 * done (a deleted mind's files are gone when DELETE answers). A process that dies before `run`
 * loses the tasks: what must not be lost has a sweep behind it (orphaned files: the artifact
 * sweeper) or is a job enqueued in the transaction instead.
 */
export class AfterCommit {
  private readonly tasks: (() => void | Promise<void>)[] = [];
  add(task: () => void | Promise<void>): void {
    this.tasks.push(task);
  }
  /** Runs every task once, in order; one that throws or rejects is reported and does not stop the others. */
  async run(): Promise<void> {
    for (const task of this.tasks.splice(0)) {
      try {
        await task();
      } catch (err) {
        process.emitWarning(`after commit: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}

/**
 * Runs `work` in one transaction with an AfterCommit for its events, then the collected tasks
 * once it has committed (a rolled-back transaction runs none). The shape of every state change.
 */
export async function inTransaction<T>(db: Db, work: (tx: Db, after: AfterCommit) => Promise<T>): Promise<T> {
  const after = new AfterCommit();
  const result = await db.transaction((tx) => work(tx, after));
  await after.run();
  return result;
}

export type Subscriber<K extends EventType> = (tx: Db, data: DomainEvents[K], after: AfterCommit) => Promise<void>;
export type Subscriptions = { [K in EventType]?: Subscriber<K> };

export class EventBus {
  private readonly subscribers = new Map<EventType, Subscriber<never>[]>();

  subscribe(subscriptions: Subscriptions): void {
    for (const type of EVENT_TYPES) {
      const fn = subscriptions[type];
      if (fn) this.subscribers.set(type, [...(this.subscribers.get(type) ?? []), fn as Subscriber<never>]);
    }
  }

  /** Runs the event's subscribers in `tx`; a subscriber's error rolls the whole change back. */
  async emit<K extends EventType>(tx: Db, type: K, data: DomainEvents[K], after: AfterCommit): Promise<void> {
    for (const fn of (this.subscribers.get(type) ?? []) as Subscriber<K>[]) await fn(tx, data, after);
  }
}
