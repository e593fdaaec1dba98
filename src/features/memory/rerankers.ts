/**
 * Per-mind rerankers (MINDPRINT_RERANKER_ADAPT): the extractive engine's reranker adapted to a
 * mind from its own question → answer pairs (src/engines/extractive/adapt.ts). Adapting runs
 * the engine once per pair over the mind's whole memory, so it never runs on a request's path: the
 * first request of a mind and scope starts it in the background and is answered with the shipped
 * model, and later requests get the adapted one (or the shipped one when the mind has too few
 * pairs). Keyed by mind and scope fingerprint, so new or reprocessed snapshots adapt anew; an
 * adapted model is a few hundred bytes, so many minds fit.
 */
import { LRUCache } from 'lru-cache';
import { adaptToMind } from '../../engines/extractive/adapt.ts';
import { rerankEmbedder, shippedModel, type RerankModel } from '../../engines/extractive/rerank/index.ts';
import type { Db } from '../../platform/db/client.ts';
import { scopeTurns } from './retrieve.ts';
import type { MindScope } from './scope.ts';

/** Minds (× scopes) kept. */
const MAX_MINDS = 1_000;

type Entry = { state: 'running'; done: Promise<void> } | { state: 'ready'; model: RerankModel | null };

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class MindRerankers {
  /** By mind and scope, the least recently used dropped past MAX_MINDS. */
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_MINDS });

  constructor(private readonly onError: (err: unknown, mindId: string) => void = () => {}) {}

  private key(scope: MindScope): string | null {
    return scope.fingerprint ? `${scope.organizationId}/${scope.mindId}/${scope.asOfDate?.toISOString() ?? ''}/${scope.fingerprint}` : null;
  }

  /**
   * The adapted model of the scope when it is ready (null: the mind keeps the shipped model);
   * undefined while it is being computed — the first call starts that in the background.
   */
  peek(db: Db, scope: MindScope): RerankModel | null | undefined {
    const key = this.key(scope);
    if (!key) return null;
    const entry = this.entries.get(key);
    if (entry) return entry.state === 'ready' ? entry.model : undefined;
    const done = this.compute(db, scope, key);
    this.entries.set(key, { state: 'running', done });
    return undefined;
  }

  /** Waits for the scope's adaptation (tests and benchmarks; the service never waits). */
  async ready(db: Db, scope: MindScope): Promise<RerankModel | null> {
    const first = this.peek(db, scope);
    if (first !== undefined) return first;
    const entry = this.entries.get(this.key(scope)!);
    if (entry?.state === 'running') await entry.done;
    return this.peek(db, scope) ?? null;
  }

  private async compute(db: Db, scope: MindScope, key: string): Promise<void> {
    let model: RerankModel | null = null;
    try {
      await yieldToEventLoop(); // not inside the request that asked
      const [memory, embed] = await Promise.all([scopeTurns(db, scope), rerankEmbedder()]);
      model = await adaptToMind(shippedModel(), memory, { mindName: scope.mindName, embed, pause: yieldToEventLoop });
    } catch (err) {
      this.onError(err, scope.mindId);
    }
    // Only if the entry is still this computation's (it may have been evicted meanwhile).
    if (this.entries.peek(key)?.state === 'running') this.entries.set(key, { state: 'ready', model });
  }
}
