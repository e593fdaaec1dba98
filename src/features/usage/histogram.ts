/**
 * Log-scale latency histogram: bucket i holds latencies in [BASE^i, BASE^(i+1)) ms, shifted so
 * sub-millisecond values keep resolution. Histograms merge by adding counts, which is what lets
 * many processes and many flushes combine into exact counts and ~2.5%-accurate percentiles.
 */
const BASE = 1.05;
const OFFSET = 0.01; // ms; keeps log() finite for zero latencies

export type Histogram = Record<string, number>;

export function bucketOf(ms: number): number {
  return Math.max(0, Math.floor(Math.log((ms + OFFSET) / OFFSET) / Math.log(BASE)));
}

function bucketMidpoint(bucket: number): number {
  const low = OFFSET * BASE ** bucket - OFFSET;
  const high = OFFSET * BASE ** (bucket + 1) - OFFSET;
  return (low + high) / 2;
}

export function record(h: Histogram, ms: number): void {
  const b = String(bucketOf(ms));
  h[b] = (h[b] ?? 0) + 1;
}

export function merge(into: Histogram, from: Histogram): Histogram {
  for (const [b, n] of Object.entries(from)) into[b] = (into[b] ?? 0) + n;
  return into;
}

/** The latency at quantile q (0–1), clamped to the observed min and max. */
export function quantile(h: Histogram, q: number, min: number, max: number): number {
  const buckets = Object.entries(h)
    .map(([b, n]) => [Number(b), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [b, n] of buckets) {
    seen += n;
    if (seen >= rank) return Math.min(max, Math.max(min, bucketMidpoint(b)));
  }
  return max;
}
