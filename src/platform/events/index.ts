/**
 * Domain events. A state change that changed a row emits its event inside the same transaction
 * (`events.emit(tx, …)`); the subscribers (each module's `on`) run there too, in the order the
 * modules were registered, and may only write rows or enqueue jobs: what follows a change commits
 * or rolls back with it, so a completed snapshot never lacks its embedding job, and a rolled-back
 * one never has one. Effects outside the database (waking a worker, dropping a cache entry) are
 * handed to `afterCommit` and run once the transaction has committed; they must not throw.
 */
import type { Db } from '../db/client.ts';

/** Every event, with what it carries: ids only, so a subscriber reads the rows it needs in the transaction. */
export interface DomainEvents {
  'snapshot.completed': { organizationId: string; mindId: string; snapshotId: string };
  'snapshot.failed': { organizationId: string; mindId: string; snapshotId: string; error: string };
  'snapshot.reprocessing': { organizationId: string; mindId: string; snapshotId: string };
  'snapshot.indexed': { organizationId: string; mindId: string; snapshotId: string };
  'simulation.completed': { organizationId: string; simulationId: string; messageId: string };
  'simulation.failed': { organizationId: string; simulationId: string; messageId: string; error: string };
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

/** Callbacks run after the transaction that collected them has committed. */
export class AfterCommit {
  private readonly tasks: (() => void)[] = [];
  add(task: () => void): void {
    this.tasks.push(task);
  }
  /** Runs every task once; one that throws is reported and does not stop the others. */
  run(): void {
    for (const task of this.tasks.splice(0)) {
      try {
        task();
      } catch (err) {
        process.emitWarning(`after commit: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
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
