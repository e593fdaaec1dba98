/**
 * The in-process indexes of a service's minds (vector: vector-index.ts; full text:
 * lexical-index.ts), cached by key — a mind and the fingerprint of its snapshots in scope, so a
 * stale index is never asked for again and ages out.
 */
import { LRUCache } from 'lru-cache';

/**
 * Indexes (vector or lexical) by key, least recently used evicted first, bounded by entries and
 * by bytes (lru-cache). An index's size is known once it has loaded: until then it counts one
 * byte, then its byteLength (capped at the budget, so one huge index is still kept, alone).
 */
export class IndexCache<T extends { readonly byteLength: number }> {
  private readonly entries: LRUCache<string, Promise<T>>;

  constructor(
    maxEntries = 200,
    private readonly maxBytes = 256 * 1024 * 1024,
  ) {
    this.entries = new LRUCache({ max: maxEntries, maxSize: maxBytes, sizeCalculation: () => 1 });
  }

  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) return hit;
    const entry = load();
    this.entries.set(key, entry);
    entry.then(
      (index) => {
        if (this.entries.peek(key) === entry) this.entries.set(key, entry, { size: Math.max(1, Math.min(index.byteLength, this.maxBytes)) });
      },
      // A failed load must not be remembered.
      () => {
        if (this.entries.peek(key) === entry) this.entries.delete(key);
      },
    );
    return entry;
  }
}
