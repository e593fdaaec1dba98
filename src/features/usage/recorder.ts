/**
 * Usage accounting without a database write per request: requests are aggregated in memory per
 * (key, day, operation) and merged into `usage_daily` by one upsert every flush interval (and on
 * shutdown), so a restart loses at most one interval. The same flush writes keys' last use.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { merge, record, type Histogram } from './histogram.ts';

export interface UsageCell {
  apiKeyId: string;
  day: string;
  operation: string;
  successCount: number;
  errorCount: number;
  latencySumMs: number;
  latencyMinMs: number | null;
  latencyMaxMs: number | null;
  histogram: Histogram;
}

export class UsageRecorder {
  private cells = new Map<string, UsageCell>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private db: Db,
    private pendingLastUsed: Map<string, Date>,
    private intervalMs = 10_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush().catch(() => {}), this.intervalMs);
    this.timer.unref();
  }

  record(apiKeyId: string, operation: string, statusCode: number, latencyMs: number, at = new Date()): void {
    const day = at.toISOString().slice(0, 10);
    const id = `${apiKeyId}|${day}|${operation}`;
    let cell = this.cells.get(id);
    if (!cell) {
      cell = { apiKeyId, day, operation, successCount: 0, errorCount: 0, latencySumMs: 0, latencyMinMs: null, latencyMaxMs: null, histogram: {} };
      this.cells.set(id, cell);
    }
    if (statusCode < 400) cell.successCount++;
    else cell.errorCount++;
    cell.latencySumMs += latencyMs;
    cell.latencyMinMs = cell.latencyMinMs === null ? latencyMs : Math.min(cell.latencyMinMs, latencyMs);
    cell.latencyMaxMs = cell.latencyMaxMs === null ? latencyMs : Math.max(cell.latencyMaxMs, latencyMs);
    record(cell.histogram, latencyMs);
  }

  /** What this process has counted and not yet written, for one key (so /usage is current). */
  unflushed(apiKeyId: string): UsageCell[] {
    return [...this.cells.values()].filter((c) => c.apiKeyId === apiKeyId).map((c) => ({ ...c, histogram: merge({}, c.histogram) }));
  }

  async flush(): Promise<void> {
    // One flush at a time; a second caller waits for the one in progress and then flushes again.
    while (this.flushing) await this.flushing;
    this.flushing = this.writeOut().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async writeOut(): Promise<void> {
    const cells = [...this.cells.values()];
    const lastUsed = [...this.pendingLastUsed.entries()];
    this.cells = new Map();
    this.pendingLastUsed.clear();
    try {
      if (cells.length) await this.upsert(cells);
      if (lastUsed.length) await this.writeLastUsed(lastUsed);
    } catch (err) {
      // Put the counts back so the next flush retries them.
      for (const c of cells) {
        const id = `${c.apiKeyId}|${c.day}|${c.operation}`;
        const now = this.cells.get(id);
        if (!now) this.cells.set(id, c);
        else {
          now.successCount += c.successCount;
          now.errorCount += c.errorCount;
          now.latencySumMs += c.latencySumMs;
          now.latencyMinMs = Math.min(now.latencyMinMs ?? Infinity, c.latencyMinMs ?? Infinity);
          now.latencyMaxMs = Math.max(now.latencyMaxMs ?? -Infinity, c.latencyMaxMs ?? -Infinity);
          merge(now.histogram, c.histogram);
        }
      }
      for (const [k, t] of lastUsed) if (!this.pendingLastUsed.has(k)) this.pendingLastUsed.set(k, t);
      throw err;
    }
  }

  private async upsert(cells: UsageCell[]): Promise<void> {
    const rows = sql.join(
      cells.map(
        (c) =>
          sql`(${c.apiKeyId}::uuid, ${c.day}, ${c.operation}, ${c.successCount}::bigint, ${c.errorCount}::bigint, ${c.latencySumMs}::float8, ${c.latencyMinMs}::float8, ${c.latencyMaxMs}::float8, ${JSON.stringify(c.histogram)}::jsonb)`,
      ),
      sql`, `,
    );
    // A key deleted since the requests were counted has nothing to attribute them to: skip it.
    await this.db.execute(sql`
      insert into usage_daily (api_key_id, day, operation, success_count, error_count, latency_sum_ms, latency_min_ms, latency_max_ms, histogram)
      select v.* from (values ${rows}) as v(api_key_id, day, operation, s, e, sm, mn, mx, h)
      where exists (select 1 from api_keys k where k.id = v.api_key_id)
      on conflict (api_key_id, day, operation) do update set
        success_count = usage_daily.success_count + excluded.success_count,
        error_count = usage_daily.error_count + excluded.error_count,
        latency_sum_ms = usage_daily.latency_sum_ms + excluded.latency_sum_ms,
        latency_min_ms = least(usage_daily.latency_min_ms, excluded.latency_min_ms),
        latency_max_ms = greatest(usage_daily.latency_max_ms, excluded.latency_max_ms),
        histogram = (
          select coalesce(jsonb_object_agg(k, n), '{}'::jsonb) from (
            select k, sum(n) as n from (
              select key as k, value::numeric as n from jsonb_each_text(usage_daily.histogram)
              union all
              select key, value::numeric from jsonb_each_text(excluded.histogram)
            ) parts group by k
          ) merged
        )
    `);
  }

  private async writeLastUsed(entries: [string, Date][]): Promise<void> {
    const rows = sql.join(entries.map(([id, t]) => sql`(${id}::uuid, ${t.toISOString()}::timestamptz)`), sql`, `);
    await this.db.execute(sql`
      update api_keys set last_used_at = greatest(api_keys.last_used_at, v.t)
      from (values ${rows}) as v(id, t) where api_keys.id = v.id
    `);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
