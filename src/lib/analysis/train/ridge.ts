/**
 * Kernel (dual) ridge regression on ±1 labels with closed-form leave-one-out predictions, used
 * by the model-selection experiments (train/experiments.ts): because LOO costs one matrix
 * inverse per λ, the regularisation strength can be chosen per trait inside every training fold
 * (nested selection, no test-fold leakage) at a fraction of the cost of refitting.
 */

/** Inverse of a symmetric positive-definite n×n matrix (row-major), by Cholesky. */
export function spdInverse(A: Float64Array, n: number): Float64Array {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[i * n + j]!;
      for (let k = 0; k < j; k++) s -= L[i * n + k]! * L[j * n + k]!;
      L[i * n + j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / L[j * n + j]!;
    }
  }
  const Li = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    Li[i * n + i] = 1 / L[i * n + i]!;
    for (let j = 0; j < i; j++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= L[i * n + k]! * Li[k * n + j]!;
      Li[i * n + j] = s / L[i * n + i]!;
    }
  }
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < n; k++) s += Li[k * n + i]! * Li[k * n + j]!;
      inv[i * n + j] = s;
      inv[j * n + i] = s;
    }
  return inv;
}

/** Linear kernel between rows `a` (m×d) and `b` (n×d), divided by d (so families of different sizes weigh alike). */
export function linearKernel(a: Float64Array[], b: Float64Array[]): Float64Array {
  const m = a.length;
  const n = b.length;
  const d = Math.max(1, a[0]?.length ?? 1);
  const K = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    const x = a[i]!;
    for (let j = 0; j < n; j++) {
      const z = b[j]!;
      let s = 0;
      for (let k = 0; k < x.length; k++) s += x[k]! * z[k]!;
      K[i * n + j] = s / d;
    }
  }
  return K;
}

export interface RidgeFit {
  /** Dual coefficients (one per training row) and the unpenalised intercept (mean label). */
  alpha: Float64Array;
  bias: number;
  /** Leave-one-out prediction of each training row. */
  loo: number[];
}

/**
 * Ridge on kernel K (n×n, of features centred on the training rows) and labels y in ±1:
 * f(x) = ȳ + Σ αᵢ k(x, xᵢ), α = (K + λI)⁻¹(y − ȳ). LOO residual eᵢ = (yᵢ − fᵢ)/(1 − Hᵢᵢ), H = K(K+λI)⁻¹ + 11ᵀ/n.
 */
export function fitRidge(K: Float64Array, n: number, y: number[], lambda: number): RidgeFit {
  const A = Float64Array.from(K);
  for (let i = 0; i < n; i++) A[i * n + i]! += lambda;
  const inv = spdInverse(A, n);
  const bias = y.reduce((s, v) => s + v, 0) / n;
  const alpha = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += inv[i * n + k]! * (y[k]! - bias);
    alpha[i] = s;
  }
  const loo: number[] = [];
  for (let i = 0; i < n; i++) {
    let f = bias;
    let h = 1 / n;
    for (let k = 0; k < n; k++) {
      f += K[i * n + k]! * alpha[k]!;
      h += K[i * n + k]! * inv[k * n + i]!;
    }
    loo.push(y[i]! - (y[i]! - f) / (1 - h));
  }
  return { alpha, bias, loo };
}

/** Predictions for test rows from their kernel against the training rows (m×n). */
export function predictRidge(fit: RidgeFit, Ktest: Float64Array, m: number): number[] {
  const n = fit.alpha.length;
  return Array.from({ length: m }, (_, i) => {
    let s = fit.bias;
    for (let k = 0; k < n; k++) s += Ktest[i * n + k]! * fit.alpha[k]!;
    return s;
  });
}
