/** Requests made with this key over a range of days: counts, error rate, latency percentiles, requests per day and per operation. */
import { useState } from 'react';
import type { MindprintClient } from '../api.ts';
import { BarChart, DailyChart } from '../charts.tsx';
import { ErrorNote, fmtNum, fmtPct, useLoad, useSession } from '../ui.tsx';

const day = (d: Date) => d.toISOString().slice(0, 10);
const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v < 10 ? 1 : 0)} ms`);

type Summaries = Map<string, string>;

/**
 * Each operation's summary in the service's OpenAPI document ("Snapshot processing status"), by
 * the name usage counts it under ("GET /minds/{mindId}/snapshots/{snapshotId}/status"): a name a
 * person reads, and one that stays distinct where long paths cut to the chart's width would not.
 */
async function operationSummaries(client: MindprintClient): Promise<Summaries> {
  const doc = await client.request<{ paths?: Record<string, Record<string, { summary?: string }>> }>('GET', '/openapi.json');
  const out: Summaries = new Map();
  for (const [path, ops] of Object.entries(doc.paths ?? {})) for (const [method, op] of Object.entries(ops)) if (op?.summary) out.set(`${method.toUpperCase()} ${path}`, op.summary);
  return out;
}

/** A distinct label per operation: its summary, or the operation itself where it has none or shares one. */
export function operationLabels(operations: string[], summaries: Summaries | undefined): Map<string, string> {
  const named = operations.map((o) => [o, summaries?.get(o) ?? o] as const);
  const uses = new Map<string, number>();
  for (const [, label] of named) uses.set(label, (uses.get(label) ?? 0) + 1);
  return new Map(named.map(([o, label]) => [o, (uses.get(label) ?? 0) > 1 ? o : label]));
}

export function UsagePage() {
  const { client } = useSession();
  const [range, setRange] = useState(() => ({ from: day(new Date(Date.now() - 29 * 86_400_000)), to: day(new Date()) }));
  const [draft, setDraft] = useState(range);
  const usage = useLoad(() => client.getUsage(range), [client, range.from, range.to]);
  // Without the document the operations keep their method and path.
  const summaries = useLoad(() => operationSummaries(client).catch(() => new Map() as Summaries), [client]);
  const u = usage.data;
  const ops = [...(u?.operations ?? [])].sort((a, b) => b.totalCount - a.totalCount || a.operation.localeCompare(b.operation));
  const labels = operationLabels(
    ops.map((o) => o.operation),
    summaries.data,
  );

  return (
    <>
      <div className="page-head">
        <h1>Usage</h1>
        <form
          className="range"
          onSubmit={(e) => {
            e.preventDefault();
            setRange(draft);
          }}
        >
          <label>
            From
            <input type="date" name="from" value={draft.from} max={draft.to} onChange={(e) => setDraft({ ...draft, from: e.target.value })} required />
          </label>
          <label>
            To
            <input type="date" name="to" value={draft.to} min={draft.from} onChange={(e) => setDraft({ ...draft, to: e.target.value })} required />
          </label>
          <button type="submit">Show</button>
        </form>
      </div>
      <p className="muted">Requests made with the key you signed in with, {u?.from ?? range.from} to {u?.to ?? range.to} (UTC days). Counts are written every few seconds.</p>
      <ErrorNote error={usage.error} />
      {u && (
        <>
          <dl className="stats" aria-label="Totals">
            <div>
              <dt>Requests</dt>
              <dd data-stat="total">{fmtNum(u.totalCount)}</dd>
            </div>
            <div>
              <dt>Succeeded</dt>
              <dd data-stat="success">{fmtNum(u.successCount)}</dd>
            </div>
            <div>
              <dt>Errors</dt>
              <dd data-stat="errors">{fmtNum(u.errorCount)}</dd>
            </div>
            <div>
              <dt>Error rate</dt>
              <dd data-stat="error-rate">{u.totalCount ? fmtPct(u.errorCount / u.totalCount) : '—'}</dd>
            </div>
            <div>
              <dt>Average latency</dt>
              <dd>{u.totalCount ? ms(u.averageLatency) : '—'}</dd>
            </div>
          </dl>
          {u.totalCount === 0 ? (
            <p className="empty panel">No requests in this range.</p>
          ) : (
            <div className="grid2">
              <section className="panel wide">
                <h2>Requests per day</h2>
                <DailyChart title="Requests per day" from={u.from} to={u.to} days={u.days} />
                <p className="legend">
                  <span className="swatch" /> succeeded <span className="swatch neg" /> failed (UTC days)
                </p>
              </section>
              <section className="panel">
                <h2>Latency</h2>
                <BarChart
                  title="Latency percentiles (ms)"
                  format={ms}
                  rows={[
                    { label: 'min', value: u.minLatency },
                    { label: 'median', value: u.medianLatency },
                    { label: 'p90', value: u.p90Latency },
                    { label: 'p95', value: u.p95Latency },
                    { label: 'p99', value: u.p99Latency },
                    { label: 'max', value: u.maxLatency },
                  ]}
                />
                <p className="legend">Measured in the server; percentiles from a log-scale histogram (±2.5%).</p>
              </section>
              <section className="panel">
                <h2>Operations</h2>
                <BarChart
                  title="Requests per operation"
                  stacked
                  rows={ops.map((o) => ({
                    label: labels.get(o.operation)!,
                    value: o.totalCount,
                    parts: [{ value: o.successCount }, { value: o.errorCount, className: 'neg' }],
                    valueText: o.errorCount ? `${o.totalCount} (${o.errorCount} err)` : String(o.totalCount),
                    detail: `${o.operation}: ${o.successCount} succeeded, ${o.errorCount} failed`,
                  }))}
                />
                <p className="legend">
                  <span className="swatch" /> succeeded <span className="swatch neg" /> failed
                </p>
              </section>
            </div>
          )}
        </>
      )}
    </>
  );
}
