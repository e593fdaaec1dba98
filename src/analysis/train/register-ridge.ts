/**
 * Register-aware ridge regression for the Big Five: one set of weights per trait, learned from
 * several data sets at once (written essays, spoken vlogs and clips), where every data set's
 * features are standardised on its own rows (so "more 'you' than other vloggers" and "more 'you'
 * than other essay writers" are the same signal, whatever the register's level), its target is
 * centred on its own median, and it keeps its own intercept. The regularisation strength and the
 * feature family are chosen per trait by leave-group-out error on the training rows only
 * (closed form), so a caller's outer cross-validation never sees its test rows.
 */
import { spdInverse } from './ridge.ts';

export interface RidgeRow {
  dataset: string;
  /** Rows of a group are left out together (one author, one video). */
  group: string;
  /** Feature values (NaN = unknown: read as the data set's mean). */
  x: Float64Array;
}

export interface Standardiser {
  mean: number[];
  sd: number[];
}

/** Mean and sd of each column over `xs`, ignoring NaN; a constant column gets sd 1. */
export function standardiserOf(xs: Float64Array[], d: number): Standardiser {
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  const n = new Array<number>(d).fill(0);
  for (const x of xs)
    for (let j = 0; j < d; j++)
      if (!Number.isNaN(x[j]!)) {
        mean[j]! += x[j]!;
        n[j]!++;
      }
  for (let j = 0; j < d; j++) mean[j] = n[j]! ? mean[j]! / n[j]! : 0;
  for (const x of xs) for (let j = 0; j < d; j++) if (!Number.isNaN(x[j]!)) sd[j]! += (x[j]! - mean[j]!) ** 2;
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(n[j]! ? sd[j]! / n[j]! : 0) || 1;
  return { mean, sd };
}

/** Standardised copy of `x` restricted to `columns` (NaN → 0, the mean). */
export function standardise(x: Float64Array, s: Standardiser, columns: number[]): Float64Array {
  const z = new Float64Array(columns.length);
  for (let k = 0; k < columns.length; k++) {
    const j = columns[k]!;
    const v = x[j]!;
    z[k] = Number.isNaN(v) ? 0 : (v - s.mean[j]!) / s.sd[j]!;
  }
  return z;
}

export interface RidgeCandidate {
  /** Name of the feature family (reported). */
  name: string;
  /** Column indices of the full feature vector that this family uses. */
  columns: number[];
}

export interface FittedRidge {
  family: string;
  columns: number[];
  lambda: number;
  /** Weights on standardised columns. */
  weights: number[];
  /** Per data set: intercept (its training rows' mean target) and its standardiser (full vector). */
  datasets: Record<string, { intercept: number; standardiser: Standardiser }>;
  /** Mean over data sets of the leave-group-out mean squared error at the chosen setting. */
  selectionError: number;
}

export const LAMBDAS = [0.03, 0.1, 0.3, 1, 3, 10, 30];

interface Prepared {
  Z: Float64Array[];
  datasets: string[];
  groups: string[];
  standardisers: Record<string, Standardiser>;
}

function prepare(rows: RidgeRow[], columns: number[]): Prepared {
  const d = rows[0]?.x.length ?? 0;
  const byDataset = new Map<string, RidgeRow[]>();
  for (const r of rows) byDataset.set(r.dataset, [...(byDataset.get(r.dataset) ?? []), r]);
  const standardisers: Record<string, Standardiser> = {};
  for (const [ds, rs] of byDataset)
    standardisers[ds] = standardiserOf(
      rs.map((r) => r.x),
      d,
    );
  return {
    Z: rows.map((r) => standardise(r.x, standardisers[r.dataset]!, columns)),
    datasets: rows.map((r) => r.dataset),
    groups: rows.map((r) => `${r.dataset}\u0000${r.group}`),
    standardisers,
  };
}

/** XᵀX (d×d, row-major) and Xᵀy for several targets. */
function gram(Z: Float64Array[], d: number): Float64Array {
  const G = new Float64Array(d * d);
  for (const z of Z)
    for (let i = 0; i < d; i++) {
      const zi = z[i]!;
      if (zi === 0) continue;
      const row = i * d;
      for (let j = 0; j <= i; j++) G[row + j]! += zi * z[j]!;
    }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) G[j * d + i] = G[i * d + j]!;
  return G;
}

/** Solve a small dense system (Gaussian elimination with partial pivoting). */
function solveSmall(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    const piv = M[c]![c]! || 1e-12;
    for (let r = c + 1; r < n; r++) {
      const f = M[r]![c]! / piv;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= M[r]![k]! * x[k]!;
    x[r] = s / (M[r]![r]! || 1e-12);
  }
  return x;
}

/**
 * Ridge fits for every λ with leave-group-out residuals in closed form: for the rows G of one
 * group, e_G = (I − H_GG)⁻¹ r_G with H = Z(ZᵀZ + λn I)⁻¹Zᵀ. Returns, per λ, the weights (one array
 * per target) and the mean over data sets of each target's leave-group-out MSE.
 */
function ridgePath(p: Prepared, targets: number[][], lambdas: number[]): { lambda: number; weights: number[][]; error: number[] }[] {
  const n = p.Z.length;
  const d = p.Z[0]?.length ?? 0;
  const G = gram(p.Z, d);
  const Xty = targets.map((y) => {
    const v = new Float64Array(d);
    p.Z.forEach((z, i) => {
      for (let j = 0; j < d; j++) v[j]! += z[j]! * y[i]!;
    });
    return v;
  });
  const groupRows = new Map<string, number[]>();
  p.groups.forEach((g, i) => groupRows.set(g, [...(groupRows.get(g) ?? []), i]));
  const datasets = [...new Set(p.datasets)];
  const out = [];
  for (const lambda of lambdas) {
    const A = Float64Array.from(G);
    for (let j = 0; j < d; j++) A[j * d + j]! += lambda * n;
    const inv = spdInverse(A, d);
    const weights = Xty.map((v) => {
      const w = new Array<number>(d).fill(0);
      for (let i = 0; i < d; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += inv[i * d + j]! * v[j]!;
        w[i] = s;
      }
      return w;
    });
    // A⁻¹zᵢ for every row (needed for H entries within groups).
    const Az = p.Z.map((z) => {
      const u = new Float64Array(d);
      for (let i = 0; i < d; i++) {
        let s = 0;
        const row = i * d;
        for (let j = 0; j < d; j++) s += inv[row + j]! * z[j]!;
        u[i] = s;
      }
      return u;
    });
    const dot = (a: Float64Array, b: Float64Array): number => {
      let s = 0;
      for (let k = 0; k < d; k++) s += a[k]! * b[k]!;
      return s;
    };
    const sq = targets.map(() => new Map<string, { sum: number; n: number }>(datasets.map((ds) => [ds, { sum: 0, n: 0 }])));
    for (const idx of groupRows.values()) {
      const H = idx.map((i) => idx.map((j) => (i === j ? 1 : 0) - dot(p.Z[i]!, Az[j]!)));
      targets.forEach((y, t) => {
        const r = idx.map((i) => y[i]! - weights[t]!.reduce((s, w, k) => s + w * p.Z[i]![k]!, 0));
        const e = idx.length === 1 ? [r[0]! / (H[0]![0]! || 1e-12)] : solveSmall(H, r);
        idx.forEach((i, k) => {
          const acc = sq[t]!.get(p.datasets[i]!)!;
          acc.sum += e[k]! ** 2;
          acc.n++;
        });
      });
    }
    const error = sq.map((m) => [...m.values()].reduce((s, a) => s + a.sum / Math.max(1, a.n), 0) / m.size);
    out.push({ lambda, weights, error });
  }
  return out;
}

/**
 * Fits every target (trait) on `rows`, choosing per target the candidate family and λ with the
 * lowest leave-group-out error (mean over data sets, so a large data set does not drown the others).
 */
export function fitRegisterRidge(rows: RidgeRow[], targets: number[][], candidates: RidgeCandidate[], lambdas = LAMBDAS): FittedRidge[] {
  const best: (FittedRidge | undefined)[] = targets.map(() => undefined);
  const datasets = [...new Set(rows.map((r) => r.dataset))];
  // Each data set's intercept per target: the mean target of its rows.
  const intercepts = targets.map((y) =>
    Object.fromEntries(
      datasets.map((ds) => {
        const ys = y.filter((_, i) => rows[i]!.dataset === ds);
        return [ds, ys.reduce((s, v) => s + v, 0) / ys.length];
      }),
    ),
  );
  for (const c of candidates) {
    const p = prepare(rows, c.columns);
    const centred = targets.map((y, t) => y.map((v, i) => v - intercepts[t]![p.datasets[i]!]!));
    const path = ridgePath(p, centred, lambdas);
    targets.forEach((_, t) => {
      for (const step of path) {
        const err = step.error[t]!;
        if (best[t] && best[t].selectionError <= err) continue;
        best[t] = {
          family: c.name,
          columns: c.columns,
          lambda: step.lambda,
          weights: step.weights[t]!,
          datasets: Object.fromEntries(
            datasets.map((ds) => [ds, { intercept: intercepts[t]![ds]!, standardiser: p.standardisers[ds]! }]),
          ),
          selectionError: err,
        };
      }
    });
  }
  // Labels are median splits: each data set's cut is the median of its fitted values, so that
  // "prediction > 0" calls half of a data set's training rows high, whatever the targets' skew.
  for (const m of best as FittedRidge[])
    for (const ds of datasets) {
      const fitted = rows.filter((r) => r.dataset === ds).map((r) => predictRegisterRidge(m, r.x, ds));
      m.datasets[ds]!.intercept -= medianOf(fitted);
    }
  return best as FittedRidge[];
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : 0;
}

/** The prediction for a feature vector read with data set `dataset`'s standardiser and intercept. */
export function predictRegisterRidge(m: FittedRidge, x: Float64Array, dataset: string, standardiserOverride?: Standardiser): number {
  const ds = m.datasets[dataset];
  if (!ds) throw new Error(`model has no data set ${dataset}`);
  const z = standardise(x, standardiserOverride ?? ds.standardiser, m.columns);
  let s = ds.intercept;
  for (let k = 0; k < z.length; k++) s += m.weights[k]! * z[k]!;
  return s;
}

/** Deterministic fold of each group: groups shuffled with a seeded generator, dealt round-robin per data set. */
export function groupFolds(rows: { dataset: string; group: string }[], k: number, seed: number): number[] {
  let state = seed >>> 0;
  const rand = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const foldOf = new Map<string, number>();
  const datasets = [...new Set(rows.map((r) => r.dataset))];
  for (const ds of datasets) {
    const groups = [...new Set(rows.filter((r) => r.dataset === ds).map((r) => r.group))];
    for (let i = groups.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [groups[i], groups[j]] = [groups[j]!, groups[i]!];
    }
    groups.forEach((g, i) => foldOf.set(`${ds}\u0000${g}`, i % k));
  }
  return rows.map((r) => foldOf.get(`${r.dataset}\u0000${r.group}`)!);
}
