/** Small vector helpers shared by embedders and their callers (unit vectors, Float32Array). */

/** Dot product; for unit vectors, the cosine similarity. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/** Scales `v` to unit length in place (the zero vector stays zero). Returns `v`. */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s === 0) return v;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

/** Cosine similarity of any two vectors (0 when either is zero). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

/** The unit-length mean of several vectors (zero when they cancel or none is given). */
export function centroid(vectors: readonly ArrayLike<number>[], dimensions: number): Float32Array {
  const c = new Float32Array(dimensions);
  for (const v of vectors) for (let i = 0; i < dimensions; i++) c[i]! += v[i]!;
  return normalize(c);
}
