/**
 * The in-process indexes of a service's minds (vector: vector-index.ts; full text:
 * lexical-index.ts), cached by key — a mind and the fingerprint of its snapshots in scope, so a
 * stale index is never asked for again and ages out.
 */
/** Indexes (vector or lexical) by key, least recently used evicted first, bounded by entries and by bytes. */
export class IndexCache<T extends { readonly byteLength: number }> {
  private readonly entries = new Map<string, Promise<T>>();
  private readonly bytes = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly maxEntries = 200,
    private readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry;
    }
    entry = load();
    this.entries.set(key, entry);
    entry.then(
      (index) => {
        if (this.entries.get(key) !== entry) return;
        this.bytes.set(key, index.byteLength);
        this.total += index.byteLength;
        this.evict();
      },
      // A failed load must not be remembered.
      () => this.delete(key),
    );
    this.evict();
    return entry;
  }

  private delete(key: string): void {
    this.entries.delete(key);
    this.total -= this.bytes.get(key) ?? 0;
    this.bytes.delete(key);
  }

  private evict(): void {
    while (this.entries.size > 1 && (this.entries.size > this.maxEntries || this.total > this.maxBytes)) {
      this.delete(this.entries.keys().next().value!);
    }
  }
}

