/**
 * A @fastify/rate-limit store whose counters API replicas share through PostgreSQL, without a
 * database round trip per request.
 *
 * Windows are fixed and aligned to the clock (a 60 s window starts at every whole minute), so
 * every replica counts the same window under the same row key, "<key>@<window start ms>". Each
 * process counts requests in memory and adds its counts to `rate_limit_counters` in one batched
 * upsert every FLUSH_MS, learning the total of every replica from the same statement. The first
 * request of a key in a window (in this process) reads the shared total first, so a client
 * moving to another replica does not start again from zero. A request's count is therefore the
 * shared total as of the last flush plus this process's requests since: replicas can let through
 * together at most what they receive within one flush interval beyond the limit, a trade an
 * operator takes for a limiter that costs no query per request.
 *
 * The database unavailable: counting goes on in memory (each replica limits on its own) and the
 * counts are added once it is back; the limiter never fails a request.
 */
import type { RawExecutor } from '../db/client.ts';

/** How often a process adds its counts to the shared table. */
export const FLUSH_MS = 500;
/** Past windows' rows are deleted about this often (by whichever replica gets there). */
const CLEANUP_MS = 60_000;

interface Entry {
  /** The shared total as last read from the table (every replica's flushed counts). */
  shared: number;
  /** This process's counts not yet added to the table. */
  pending: number;
  windowEnd: number;
  /** The first read of the shared total, while it runs. */
  loading: Promise<void> | null;
}

type Callback = (err: Error | null, result: { current: number; ttl: number }) => void;

/** The counters of one process, synchronised with the table. One per process and database. */
export class SharedCounters {
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private lastCleanup = Date.now();
  private lastSweep = Date.now();
  private closed = false;

  constructor(private readonly execute: RawExecutor) {}

  /** Counts `n` (0: only reads) for `key` in its current window; resolves the count and the window's remaining ms. */
  async add(key: string, timeWindow: number, n: number): Promise<{ current: number; ttl: number }> {
    const now = Date.now();
    const window = Math.max(1, timeWindow);
    const start = Math.floor(now / window) * window;
    const rowKey = `${key}@${start}`;
    if (now - this.lastSweep >= CLEANUP_MS) this.sweep(now);
    let entry = this.entries.get(rowKey);
    if (!entry) {
      entry = { shared: 0, pending: 0, windowEnd: start + window, loading: null };
      this.entries.set(rowKey, entry);
      entry.loading = this.load(rowKey, entry);
    }
    entry.pending += n;
    if (n > 0) this.schedule();
    if (entry.loading) await entry.loading;
    return { current: entry.shared + entry.pending, ttl: Math.max(0, entry.windowEnd - now) };
  }

  /** Forgets ended windows (the flush does too, but only runs while something is pending). */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [rowKey, e] of this.entries) if (e.windowEnd <= now && e.pending <= 0) this.entries.delete(rowKey);
  }

  private async load(rowKey: string, entry: Entry): Promise<void> {
    try {
      const { rows } = await this.execute('select count from rate_limit_counters where key = $1', [rowKey]);
      entry.shared = Math.max(entry.shared, Number(rows[0]?.count ?? 0));
    } catch {
      /* the database unavailable: count from what this process knows */
    } finally {
      entry.loading = null;
    }
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushing ??= this.flush().finally(() => (this.flushing = null));
    }, FLUSH_MS);
    this.timer.unref();
  }

  /** Adds this process's pending counts to the table and reads back the shared totals. */
  async flush(): Promise<void> {
    const now = Date.now();
    const keys: string[] = [];
    const ends: string[] = [];
    const counts: number[] = [];
    const sent: Entry[] = [];
    for (const [rowKey, e] of this.entries) {
      if (e.windowEnd <= now) {
        // A window that has ended counts for nothing any more.
        this.entries.delete(rowKey);
        continue;
      }
      if (e.pending <= 0) continue;
      keys.push(rowKey);
      ends.push(new Date(e.windowEnd).toISOString());
      counts.push(e.pending);
      sent.push(e);
    }
    try {
      if (keys.length > 0) {
        const { rows } = await this.execute(
          `insert into rate_limit_counters (key, window_end, count)
           select * from unnest($1::text[], $2::timestamptz[], $3::int[])
           on conflict (key) do update set count = rate_limit_counters.count + excluded.count
           returning key, count`,
          [keys, ends, counts],
        );
        const totals = new Map(rows.map((r: { key: string; count: number }) => [r.key, Number(r.count)]));
        sent.forEach((e, i) => {
          e.pending -= counts[i]!;
          e.shared = totals.get(keys[i]!) ?? e.shared + counts[i]!;
        });
      }
      if (now - this.lastCleanup >= CLEANUP_MS) {
        this.lastCleanup = now;
        await this.execute('delete from rate_limit_counters where window_end < now() - interval \'1 minute\'');
      }
    } catch {
      // Unavailable: the counts stay pending and are added at the next flush.
    }
    if ([...this.entries.values()].some((e) => e.pending > 0)) this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flushing;
  }

  /** A store class for @fastify/rate-limit (it constructs the store itself) over these counters. */
  storeClass(): new () => RateLimitStore {
    const add = (key: string, timeWindow: number, n: number) => this.add(key, timeWindow, n);
    return class SharedCounterStore implements RateLimitStore {
      incr(key: string, cb: Callback, timeWindow: number) {
        add(key, timeWindow, 1).then((r) => cb(null, r), (err: Error) => cb(err, { current: 0, ttl: 0 }));
      }
      read(key: string, cb: Callback, timeWindow: number) {
        add(key, timeWindow, 0).then((r) => cb(null, r), (err: Error) => cb(err, { current: 0, ttl: 0 }));
      }
      /** Limiters with their own options share the counters: their keys are distinct already (see rate-limit.ts). */
      child() {
        return this;
      }
    };
  }
}

export interface RateLimitStore {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(options: unknown): RateLimitStore;
}
