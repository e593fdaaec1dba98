/**
 * L2-regularised logistic regression on standardised features, fitted by Nesterov-accelerated
 * gradient descent with a step from the Lipschitz bound (deterministic: no random start, fixed
 * iteration count). Small and dependency-free: the data sets have hundreds of rows.
 */
import { mulberry32 } from '../../prng.ts';

export interface FittedLogistic {
  mean: number[];
  sd: number[];
  weights: number[];
  bias: number;
}

export function standardiser(rows: Float64Array[], d: number): { mean: number[]; sd: number[] } {
  const n = rows.length;
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j]! += r[j]! / n;
  for (const r of rows) for (let j = 0; j < d; j++) sd[j]! += (r[j]! - mean[j]!) ** 2 / n;
  // A constant feature gets sd 1 so it standardises to 0 and carries no weight.
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]!) || 1;
  return { mean, sd };
}

const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

export function fitLogistic(rows: Float64Array[], y: number[], lambda: number, iterations = 300): FittedLogistic {
  const n = rows.length;
  const d = rows[0]?.length ?? 0;
  const { mean, sd } = standardiser(rows, d);
  const Z = rows.map((r) => {
    const z = new Float64Array(d);
    for (let j = 0; j < d; j++) z[j] = (r[j]! - mean[j]!) / sd[j]!;
    return z;
  });
  // Lipschitz constant of the mean log-loss gradient: ≤ ¼·λmax(ZᵀZ/n) + λ, λmax by power iteration.
  let v = new Float64Array(d).fill(1 / Math.sqrt(Math.max(1, d)));
  let lmax = 1;
  for (let it = 0; it < 30; it++) {
    const u = new Float64Array(d);
    for (const z of Z) {
      let s = 0;
      for (let j = 0; j < d; j++) s += z[j]! * v[j]!;
      for (let j = 0; j < d; j++) u[j]! += (s * z[j]!) / n;
    }
    let norm = 0;
    for (let j = 0; j < d; j++) norm += u[j]! ** 2;
    norm = Math.sqrt(norm) || 1;
    lmax = norm;
    for (let j = 0; j < d; j++) u[j]! /= norm;
    v = u;
  }
  const step = 1 / (lmax / 4 + lambda + 1e-9);
  const w = new Float64Array(d + 1); // last entry is the bias
  let prev = new Float64Array(d + 1);
  const grad = new Float64Array(d + 1);
  for (let it = 1; it <= iterations; it++) {
    const momentum = (it - 1) / (it + 2);
    const look = new Float64Array(d + 1);
    for (let j = 0; j <= d; j++) look[j] = w[j]! + momentum * (w[j]! - prev[j]!);
    grad.fill(0);
    for (let i = 0; i < n; i++) {
      const z = Z[i]!;
      let s = look[d]!;
      for (let j = 0; j < d; j++) s += z[j]! * look[j]!;
      const r = (sigmoid(s) - y[i]!) / n;
      for (let j = 0; j < d; j++) grad[j]! += r * z[j]!;
      grad[d]! += r;
    }
    for (let j = 0; j < d; j++) grad[j]! += lambda * look[j]!;
    prev = Float64Array.from(w);
    for (let j = 0; j <= d; j++) w[j] = look[j]! - step * grad[j]!;
  }
  return { mean, sd, weights: Array.from(w.subarray(0, d)), bias: w[d]! };
}

export function logit(m: FittedLogistic, x: Float64Array): number {
  let s = m.bias;
  for (let j = 0; j < m.weights.length; j++) s += (m.weights[j]! * (x[j]! - m.mean[j]!)) / m.sd[j]!;
  return s;
}

export { sigmoid };

/** Stratified k-fold assignment, deterministic: rows of each class dealt round-robin in a seeded order. */
export function stratifiedFolds(y: number[], k: number, seed: number): number[] {
  const order = y.map((_, i) => i);
  // Seeded, so folds are the same on every run.
  const rand = mulberry32(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const fold = new Array<number>(y.length).fill(0);
  const dealt = [0, 0];
  for (const i of order) {
    const cls = y[i]! > 0 ? 1 : 0;
    fold[i] = dealt[cls]! % k;
    dealt[cls]!++;
  }
  return fold;
}
