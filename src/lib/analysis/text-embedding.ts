/**
 * Sentence-embedding features for the Big Five model: the offline GloVe-SIF embedder of
 * src/lib/embeddings (Arora, Liang & Ma 2017), read synchronously because the analysis is synchronous.
 *
 * A text's SIF vector is a weighted SUM of word vectors, so it is additive like the other counts:
 * each turn stores its sum under `e:<k>` (and the known-word count under `#embKnown`), a person's
 * speech is the sum of their turns, "the speech without one turn" is a subtraction, and the
 * feature vector (common component removed, unit length) is computed from the sum.
 */
import { readFileSync } from 'node:fs';
import { decodeGloveFile } from '../embeddings/glove-file.ts';
import { GLOVE_MODEL_URL, GloveModel } from '../embeddings/glove-sif.ts';
import type { Counts } from './features.ts';

export const EMBEDDING_DIMENSIONS = 100;
export const EMBEDDING_KNOWN = '#embKnown';
export const embeddingKey = (k: number): string => `e:${k}`;

let model: GloveModel | undefined;
let common: Float64Array | undefined;

/** The GloVe-SIF model, read once per process (≈ 11 MB). */
export function gloveModelSync(): GloveModel {
  if (!model) {
    const v = decodeGloveFile(readFileSync(GLOVE_MODEL_URL));
    model = new GloveModel(v);
    common = Float64Array.from(v.header.commonComponent);
  }
  return model;
}

/** Adds the SIF weighted sum of `text`'s words to `counts` (keys `e:0…e:99`, `#embKnown`). */
export function addEmbeddingCounts(counts: Counts, text: string): void {
  const { vector, known } = gloveModelSync().weightedSum(text);
  if (known === 0) return;
  counts.set(EMBEDDING_KNOWN, (counts.get(EMBEDDING_KNOWN) ?? 0) + known);
  for (let k = 0; k < vector.length; k++) {
    const key = embeddingKey(k);
    counts.set(key, (counts.get(key) ?? 0) + vector[k]!);
  }
}

/**
 * The unit SIF vector of summed counts (common component removed), or null when no known word
 * was counted. `get` reads a count (so a "total minus part" view works without copying).
 */
export function embeddingFromCounts(get: (key: string) => number): Float64Array | null {
  if (get(EMBEDDING_KNOWN) <= 0) return null;
  gloveModelSync();
  const v = new Float64Array(EMBEDDING_DIMENSIONS);
  for (let k = 0; k < EMBEDDING_DIMENSIONS; k++) v[k] = get(embeddingKey(k));
  let proj = 0;
  for (let k = 0; k < EMBEDDING_DIMENSIONS; k++) proj += v[k]! * common![k]!;
  let norm = 0;
  for (let k = 0; k < EMBEDDING_DIMENSIONS; k++) {
    v[k]! -= proj * common![k]!;
    norm += v[k]! ** 2;
  }
  norm = Math.sqrt(norm);
  if (norm === 0) return null;
  for (let k = 0; k < EMBEDDING_DIMENSIONS; k++) v[k]! /= norm;
  return v;
}
