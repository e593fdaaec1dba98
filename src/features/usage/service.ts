import { and, eq, gte, lte } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import { usageDaily } from '../../platform/db/schema.ts';
import { invalid } from '../../platform/errors.ts';
import { merge, quantile, type Histogram } from './histogram.ts';
import type { UsageCell } from './recorder.ts';
import type { UsageQuery } from './schemas.ts';

export interface UsageReport {
  from: string;
  to: string;
  successCount: number;
  errorCount: number;
  totalCount: number;
  averageLatency: number;
  minLatency: number;
  maxLatency: number;
  medianLatency: number;
  p90Latency: number;
  p95Latency: number;
  p99Latency: number;
  operations: { operation: string; successCount: number; errorCount: number; totalCount: number }[];
  /** Days with requests, oldest first (days without any are left out, so a long range stays small). */
  days: { day: string; successCount: number; errorCount: number; totalCount: number }[];
}

const round = (n: number) => Math.round(n * 100) / 100;

export async function usageFor({ db, usage: recorder }: Pick<Deps, 'db' | 'usage'>, caller: Caller, range: UsageQuery): Promise<UsageReport> {
  const today = new Date().toISOString().slice(0, 10);
  const to = range.to ?? today;
  const from = range.from ?? new Date(Date.parse(to) - 29 * 86_400_000).toISOString().slice(0, 10);
  for (const [name, value] of [['from', from], ['to', to]] as const) {
    if (Number.isNaN(Date.parse(value)) || new Date(value).toISOString().slice(0, 10) !== value) {
      throw invalid(`querystring.${name} must be a real date in the form YYYY-MM-DD`, { field: `querystring.${name}` });
    }
  }
  if (from > to) throw invalid('querystring.from must not be after querystring.to', { field: 'querystring.from' });

  const stored = await db
    .select()
    .from(usageDaily)
    .where(and(eq(usageDaily.apiKeyId, caller.apiKeyId), gte(usageDaily.day, from), lte(usageDaily.day, to)));
  const cells: UsageCell[] = [
    ...stored.map((r) => ({ ...r, latencyMinMs: r.latencyMinMs, latencyMaxMs: r.latencyMaxMs })),
    ...recorder.unflushed(caller.apiKeyId).filter((c) => c.day >= from && c.day <= to),
  ];

  const hist: Histogram = {};
  const ops = new Map<string, { successCount: number; errorCount: number }>();
  const days = new Map<string, { successCount: number; errorCount: number }>();
  let success = 0;
  let errors = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const c of cells) {
    success += Number(c.successCount);
    errors += Number(c.errorCount);
    sum += c.latencySumMs;
    if (c.latencyMinMs !== null) min = Math.min(min, c.latencyMinMs);
    if (c.latencyMaxMs !== null) max = Math.max(max, c.latencyMaxMs);
    merge(hist, c.histogram);
    const op = ops.get(c.operation) ?? { successCount: 0, errorCount: 0 };
    op.successCount += Number(c.successCount);
    op.errorCount += Number(c.errorCount);
    ops.set(c.operation, op);
    const d = days.get(c.day) ?? { successCount: 0, errorCount: 0 };
    d.successCount += Number(c.successCount);
    d.errorCount += Number(c.errorCount);
    days.set(c.day, d);
  }
  const total = success + errors;
  const q = (p: number) => (total ? round(quantile(hist, p, min, max)) : 0);
  return {
    from,
    to,
    successCount: success,
    errorCount: errors,
    totalCount: total,
    averageLatency: total ? round(sum / total) : 0,
    minLatency: total ? round(min) : 0,
    maxLatency: total ? round(max) : 0,
    medianLatency: q(0.5),
    p90Latency: q(0.9),
    p95Latency: q(0.95),
    p99Latency: q(0.99),
    operations: [...ops.entries()]
      .map(([operation, o]) => ({ operation, ...o, totalCount: o.successCount + o.errorCount }))
      .sort((a, b) => b.totalCount - a.totalCount || a.operation.localeCompare(b.operation)),
    days: [...days.entries()].map(([day, d]) => ({ day, ...d, totalCount: d.successCount + d.errorCount })).sort((a, b) => a.day.localeCompare(b.day)),
  };
}
