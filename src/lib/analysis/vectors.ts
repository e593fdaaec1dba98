/**
 * Sentence vectors for the analysis: the offline GloVe-SIF embedder's model (src/lib/embeddings),
 * read synchronously once per process by text-embedding.ts (≈ 0.25 s; the Big Five features read
 * the same instance). Topics use it to group passages by meaning and to pick the phrase that
 * best represents a topic. Always the offline model, whatever embedder the service is configured
 * with: an analysis must not depend on a network service, and the same file gives the same result.
 */
import type { GloveModel } from '../embeddings/glove-sif.ts';
import { gloveModelSync } from './text-embedding.ts';

/** The GloVe-SIF model, loaded on first use (the same instance as the Big Five features'). */
export function analysisVectors(): GloveModel {
  return gloveModelSync();
}

/** Dot product of two unit vectors: their cosine (0 when either is the zero vector). */
export function cosineOf(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The unit mean of vectors (zero when there are none). */
export function meanVector(vectors: readonly Float32Array[], dimensions: number): Float32Array {
  const c = new Float32Array(dimensions);
  for (const v of vectors) for (let i = 0; i < dimensions; i++) c[i]! += v[i]!;
  let s = 0;
  for (let i = 0; i < dimensions; i++) s += c[i]! * c[i]!;
  if (s > 0) for (let i = 0; i < dimensions; i++) c[i]! /= Math.sqrt(s);
  return c;
}
