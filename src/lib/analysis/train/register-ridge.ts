/**
 * Register-aware ridge regression for the Big Five: one model per trait, learned from several data
 * sets at once (written essays, spoken vlogs and clips), where every data set's features are
 * standardised on its own rows (so "more 'you' than other vloggers" and "more 'you' than other
 * essay writers" are the same signal, whatever the register's level), its target is centred on its
 * own median, and it keeps its own intercept.
 *
 * The weights are "shared + register" (Daumé 2007, feature augmentation): each standardised feature
 * enters three times — for every row, for written rows only, for spoken rows only — under one
 * ridge penalty, so a register departs from the shared weights only where its own data pay for it.
 * A written text is then read with shared + written weights, a spoken one with shared + spoken.
 * Rows can be weighted per data set (the 224 vlogs, the closest to what users upload, against
 * 2,319 essays). The penalty is chosen per trait by grouped k-fold error on the training rows only,
 * so a caller's outer cross-validation never sees its test rows.
 */

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

export type Register = 'written' | 'spoken';
export const REGISTERS: readonly Register[] = ['written', 'spoken'];

export interface RidgeOptions {
  /** The register of each data set's rows. */
  registerOf: Record<string, Register>;
  /** Weight of each data set's rows in the loss (default 1). */
  weightOf?: Record<string, number>;
  /** Penalties tried per target (× the total row weight, on standardised features). */
  lambdas: number[];
  /** Grouped folds of the penalty's selection on the training rows, and their seed. */
  innerFolds: number;
  seed: number;
}

export interface FittedRidge {
  columns: number[];
  lambda: number;
  /** Weights on standardised columns per register: the shared weights + the register's own. */
  weights: Record<Register, number[]>;
  /** Per data set: its register, intercept (its median cut) and its standardiser (full vector). */
  datasets: Record<string, { register: Register; intercept: number; standardiser: Standardiser }>;
  /** Mean over data sets of the inner cross-validated mean squared error at the chosen penalty. */
  selectionError: number;
}

/** Solves A·X = B for symmetric positive definite A (n×n) and several right-hand sides (Cholesky). */
export function choleskySolve(A: Float64Array, n: number, B: Float64Array[]): Float64Array[] {
  const L = Float64Array.from(A);
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    let s = L[rj + j]!;
    for (let k = 0; k < j; k++) s -= L[rj + k]! ** 2;
    const d = Math.sqrt(Math.max(s, 1e-12));
    L[rj + j] = d;
    for (let i = j + 1; i < n; i++) {
      const ri = i * n;
      let t = L[ri + j]!;
      for (let k = 0; k < j; k++) t -= L[ri + k]! * L[rj + k]!;
      L[ri + j] = t / d;
    }
  }
  return B.map((b) => {
    const y = Float64Array.from(b);
    for (let i = 0; i < n; i++) {
      let s = y[i]!;
      for (let k = 0; k < i; k++) s -= L[i * n + k]! * y[k]!;
      y[i] = s / L[i * n + i]!;
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = y[i]!;
      for (let k = i + 1; k < n; k++) s -= L[k * n + i]! * y[k]!;
      y[i] = s / L[i * n + i]!;
    }
    return y;
  });
}

/** Weighted sums ΣwzzᵀandΣwzy of some rows, kept per register (the augmented system is built from them). */
interface Moments {
  gram: Record<Register, Float64Array>;
  rhs: Record<Register, Float64Array[]>;
  weight: number;
}

function emptyMoments(d: number, targets: number): Moments {
  return {
    gram: { written: new Float64Array(d * d), spoken: new Float64Array(d * d) },
    rhs: { written: Array.from({ length: targets }, () => new Float64Array(d)), spoken: Array.from({ length: targets }, () => new Float64Array(d)) },
    weight: 0,
  };
}

function addRow(m: Moments, z: Float64Array, w: number, register: Register, ys: number[]): void {
  const d = z.length;
  const G = m.gram[register];
  for (let i = 0; i < d; i++) {
    const wz = w * z[i]!;
    if (wz === 0) continue;
    const row = i * d;
    for (let j = 0; j <= i; j++) G[row + j]! += wz * z[j]!;
  }
  ys.forEach((y, t) => {
    const b = m.rhs[register][t]!;
    for (let i = 0; i < d; i++) b[i]! += w * z[i]! * y;
  });
  m.weight += w;
}

function sumMoments(parts: Moments[], d: number, targets: number): Moments {
  const out = emptyMoments(d, targets);
  for (const p of parts) {
    for (const r of REGISTERS) {
      const G = out.gram[r];
      p.gram[r].forEach((v, k) => (G[k]! += v));
      p.rhs[r].forEach((b, t) => b.forEach((v, k) => (out.rhs[r][t]![k]! += v)));
    }
    out.weight += p.weight;
  }
  return out;
}

/**
 * Ridge weights of the augmented design [z, z·written, z·spoken] for every target, at penalty λ:
 * its normal equations are built from the per-register moments (the blocks of the augmented Gram
 * matrix are G_w + G_s, G_w, G_s and zeros), so the rows are never expanded.
 */
function solveAugmented(m: Moments, d: number, lambda: number): Record<Register, number[]>[] {
  const D = 3 * d;
  const A = new Float64Array(D * D);
  const Gw = m.gram.written;
  const Gs = m.gram.spoken;
  for (let i = 0; i < d; i++)
    for (let j = 0; j <= i; j++) {
      const w = Gw[i * d + j]!;
      const s = Gs[i * d + j]!;
      // Lower triangles of the blocks (the Cholesky solver reads only the lower triangle).
      A[i * D + j] = w + s;
      A[(d + i) * D + j] = w;
      A[(d + j) * D + i] = w;
      A[(d + i) * D + d + j] = w;
      A[(2 * d + i) * D + j] = s;
      A[(2 * d + j) * D + i] = s;
      A[(2 * d + i) * D + 2 * d + j] = s;
    }
  for (let k = 0; k < D; k++) A[k * D + k]! += lambda * m.weight;
  const B = m.rhs.written.map((bw, t) => {
    const bs = m.rhs.spoken[t]!;
    const b = new Float64Array(D);
    for (let i = 0; i < d; i++) {
      b[i] = bw[i]! + bs[i]!;
      b[d + i] = bw[i]!;
      b[2 * d + i] = bs[i]!;
    }
    return b;
  });
  return choleskySolve(A, D, B).map((v) => ({
    written: Array.from({ length: d }, (_, i) => v[i]! + v[d + i]!),
    spoken: Array.from({ length: d }, (_, i) => v[i]! + v[2 * d + i]!),
  }));
}

const dotArr = (w: number[], z: Float64Array): number => {
  let s = 0;
  for (let k = 0; k < z.length; k++) s += w[k]! * z[k]!;
  return s;
};

/**
 * Fits every target (trait) on `rows` over `columns`, choosing per target the penalty with the
 * lowest grouped k-fold error on these rows (mean over data sets of each one's mean squared error,
 * unweighted, so a large data set does not drown the others), then refits on all of them.
 */
export function fitRegisterRidge(rows: RidgeRow[], targets: number[][], columns: number[], options: RidgeOptions): FittedRidge[] {
  const datasets = [...new Set(rows.map((r) => r.dataset))];
  const d = columns.length;
  const nt = targets.length;
  const standardisers: Record<string, Standardiser> = {};
  for (const ds of datasets)
    standardisers[ds] = standardiserOf(
      rows.filter((r) => r.dataset === ds).map((r) => r.x),
      rows[0]?.x.length ?? 0,
    );
  const Z = rows.map((r) => standardise(r.x, standardisers[r.dataset]!, columns));
  const registerOfRow = rows.map((r) => {
    const reg = options.registerOf[r.dataset];
    if (!reg) throw new Error(`no register for data set ${r.dataset}`);
    return reg;
  });
  const weightOfRow = rows.map((r) => options.weightOf?.[r.dataset] ?? 1);
  // Each data set's intercept per target: the mean target of its rows; the fit is on centred targets.
  const intercepts = targets.map((y) =>
    Object.fromEntries(
      datasets.map((ds) => {
        const ys = y.filter((_, i) => rows[i]!.dataset === ds);
        return [ds, ys.reduce((s, v) => s + v, 0) / ys.length];
      }),
    ),
  );
  const centred = targets.map((y, t) => y.map((v, i) => v - intercepts[t]![rows[i]!.dataset]!));
  const k = options.innerFolds;
  const folds = groupFolds(rows, k, options.seed);
  const parts = Array.from({ length: k }, () => emptyMoments(d, nt));
  Z.forEach((z, i) =>
    addRow(
      parts[folds[i]!]!,
      z,
      weightOfRow[i]!,
      registerOfRow[i]!,
      centred.map((y) => y[i]!),
    ),
  );
  // Inner cross-validated squared error per penalty, target and data set.
  const sq = options.lambdas.map(() => centred.map(() => new Map<string, { sum: number; n: number }>(datasets.map((ds) => [ds, { sum: 0, n: 0 }]))));
  for (let f = 0; f < k; f++) {
    const train = sumMoments(
      parts.filter((_, g) => g !== f),
      d,
      nt,
    );
    options.lambdas.forEach((lambda, li) => {
      const W = solveAugmented(train, d, lambda);
      Z.forEach((z, i) => {
        if (folds[i] !== f) return;
        W.forEach((w, t) => {
          const e = centred[t]![i]! - dotArr(w[registerOfRow[i]!], z);
          const acc = sq[li]![t]!.get(rows[i]!.dataset)!;
          acc.sum += e * e;
          acc.n++;
        });
      });
    });
  }
  const all = sumMoments(parts, d, nt);
  const solved = new Map<number, Record<Register, number[]>[]>();
  const fits = centred.map((_, t) => {
    let best = 0;
    let bestErr = Infinity;
    options.lambdas.forEach((_, li) => {
      const m = sq[li]![t]!;
      const err = [...m.values()].reduce((s, a) => s + a.sum / Math.max(1, a.n), 0) / m.size;
      if (err < bestErr) {
        bestErr = err;
        best = li;
      }
    });
    const lambda = options.lambdas[best]!;
    if (!solved.has(lambda)) solved.set(lambda, solveAugmented(all, d, lambda));
    const fit: FittedRidge = {
      columns,
      lambda,
      weights: solved.get(lambda)![t]!,
      datasets: Object.fromEntries(
        datasets.map((ds) => [ds, { register: options.registerOf[ds]!, intercept: intercepts[t]![ds]!, standardiser: standardisers[ds]! }]),
      ),
      selectionError: bestErr,
    };
    return fit;
  });
  // Labels are median splits: each data set's cut is the median of its fitted values, so that
  // "prediction > 0" calls half of a data set's training rows high, whatever the targets' skew.
  for (const m of fits)
    for (const ds of datasets) {
      const fitted = rows.filter((r) => r.dataset === ds).map((r) => predictRegisterRidge(m, r.x, ds));
      m.datasets[ds]!.intercept -= medianOf(fitted);
    }
  return fits;
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : 0;
}

/** The prediction for a feature vector read with data set `dataset`'s standardiser, intercept and register weights. */
export function predictRegisterRidge(m: FittedRidge, x: Float64Array, dataset: string): number {
  const ds = m.datasets[dataset];
  if (!ds) throw new Error(`model has no data set ${dataset}`);
  return ds.intercept + dotArr(m.weights[ds.register], standardise(x, ds.standardiser, m.columns));
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
