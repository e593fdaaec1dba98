/**
 * A read cache for minds as the API returns them: the serialized JSON of GET /minds/{id} and of
 * GET /minds (per query), so a hit costs neither the SQL statement nor the serialization.
 *
 * Invalidation is per organization: any write that may touch a mind of the organization (mind,
 * tag, snapshot, analysis) bumps its generation, and entries of an older generation are misses.
 * An entry records the generation read before its query ran, so a write that lands while the
 * query runs also makes it a miss. Who bumps:
 *   - this process, before the response of any of its own writes leaves (read-your-writes);
 *   - on PostgreSQL, the change feed (src/platform/db/change-feed.ts): database triggers notify every
 *     process of every committed change, whoever made it (another replica, a worker, plain SQL).
 * While the change feed is down, changes can be missed, so the cache is bypassed (every read
 * queries) and emptied again once it is back. A short TTL bounds what an undetected outage could
 * serve. On PGlite the data dir is locked to this process, so every write is made here.
 * The entries themselves live in an LRU (lru-cache) bounded by count and by characters of JSON.
 */
import { LRUCache } from 'lru-cache';

interface Entry {
  organizationId: string;
  generation: number;
  epoch: number;
  cachedAt: number;
  json: string;
}

export interface MindCacheOptions {
  maxEntries?: number;
  /** Total characters of cached JSON kept at most (default 32 Mi); past it the least recently used go. */
  maxChars?: number;
  /** An entry older than this is a miss even without a known change (default 5 s). */
  ttlMs?: number;
  /** Start bypassed (until the change feed is listening). */
  bypassed?: boolean;
}

export class MindCache {
  private generations = new Map<string, number>();
  private readonly entries: LRUCache<string, Entry>;
  /** Bumped when every entry must go (change feed lost or regained). */
  private epoch = 0;
  private bypassed: boolean;
  private readonly maxChars: number;
  readonly ttlMs: number;

  constructor(opts: MindCacheOptions = {}) {
    this.maxChars = opts.maxChars ?? 32 * 1024 * 1024;
    this.entries = new LRUCache({ max: opts.maxEntries ?? 10_000, maxSize: this.maxChars, sizeCalculation: (e) => Math.max(1, e.json.length) });
    this.ttlMs = opts.ttlMs ?? 5_000;
    this.bypassed = opts.bypassed ?? false;
  }

  generation(organizationId: string): number {
    return this.generations.get(organizationId) ?? 0;
  }

  /** Whether reads are served from the cache (false while changes may be missed). */
  get active(): boolean {
    return !this.bypassed;
  }

  /** The cached JSON under `key` for this organization, or null. */
  get(organizationId: string, key: string, now = Date.now()): string | null {
    const entry = this.entries.get(key);
    if (
      !entry ||
      this.bypassed ||
      entry.organizationId !== organizationId ||
      entry.epoch !== this.epoch ||
      entry.generation !== this.generation(organizationId) ||
      now - entry.cachedAt > this.ttlMs
    ) {
      return null;
    }
    return entry.json;
  }

  /** Stores JSON loaded after `stamp` was taken (see stamp()); stale stamps are not stored. */
  set(organizationId: string, key: string, json: string, stamp: { generation: number; epoch: number }): void {
    if (this.bypassed || stamp.epoch !== this.epoch || stamp.generation !== this.generation(organizationId)) return;
    if (json.length > this.maxChars / 4) return;
    this.entries.set(key, { organizationId, generation: stamp.generation, epoch: stamp.epoch, cachedAt: Date.now(), json });
  }

  /** Taken before a load: a change or outage while it runs makes its result unstorable. */
  stamp(organizationId: string): { generation: number; epoch: number } {
    return { generation: this.generation(organizationId), epoch: this.epoch };
  }

  invalidate(organizationId: string): void {
    this.generations.set(organizationId, this.generation(organizationId) + 1);
  }

  /** Forget everything (changes may have been missed). */
  invalidateAll(): void {
    this.epoch++;
    this.entries.clear();
  }

  /** Bypass the cache (true) while changes may be missed, or serve from it again (false); both empty it. */
  bypass(on: boolean): void {
    this.bypassed = on;
    this.invalidateAll();
  }

  /** Reads through the cache: `load` (the query and the serialization) runs on a miss. */
  async read(organizationId: string, key: string, load: () => Promise<string>): Promise<string> {
    const hit = this.get(organizationId, key);
    if (hit !== null) return hit;
    const stamp = this.stamp(organizationId);
    const json = await load();
    this.set(organizationId, key, json, stamp);
    return json;
  }
}
