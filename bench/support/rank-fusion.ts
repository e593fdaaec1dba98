/** The studies' small ranking helpers (specificity-study.ts, qa-association-study.ts): one definition each. */

/** Reciprocal rank fusion's constant (Cormack, Clarke & Büttcher 2009). */
export const RRF_K = 60;

/** Index of the highest score (the first on ties). */
export const argmax = (xs: readonly number[]) => xs.reduce((b, x, i) => (x > xs[b]! ? i : b), 0);

/** 1-based rank of each score, highest first; ties keep their order. */
export function ranks(xs: readonly number[]): number[] {
  const o = xs.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  const r = new Array<number>(xs.length);
  o.forEach((x, k) => (r[x.i] = k + 1));
  return r;
}

/** Reciprocal rank fusion of score lists over the same items. */
export const rrf = (...lists: number[][]) => {
  const rs = lists.map(ranks);
  return lists[0]!.map((_, i) => rs.reduce((s, r) => s + 1 / (RRF_K + r[i]!), 0));
};

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
