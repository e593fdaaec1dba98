/**
 * The offline default embedder: GloVe word vectors (6B tokens, 100 dimensions; public domain,
 * PDDL) averaged with smooth-inverse-frequency weights, minus their common component — the
 * "simple but tough-to-beat baseline for sentence embeddings" of Arora, Liang & Ma (ICLR 2017).
 * No network, no key, no native code: a 10 MB file read once, then microseconds per text.
 *
 * Word probabilities come from each word's frequency rank in the GloVe vocabulary (which is
 * sorted by corpus frequency) through Zipf's law, p(r) = 1 / (r · H_V): the source package ships
 * ranks, not counts. SIF weights a / (a + p) then mute "the", "and", "said" and keep the words
 * that carry meaning. The common component is fixed at build time (see scripts/build-embeddings.ts),
 * so a text's vector never depends on what else is embedded with it and stored vectors stay valid.
 */
import { readFile } from 'node:fs/promises';
import { decodeGloveFile, type GloveVectors } from './glove-file.ts';
import { forEachWord } from './tokenize.ts';
import type { Embedder } from './types.ts';
import { normalize } from './vector.ts';

export const GLOVE_MODEL_URL = new URL('./models/glove-6b-100d-100k.bin', import.meta.url);
/** Bump when the file, the weighting or the tokenizer changes: stored vectors are then recomputed. */
export const GLOVE_EMBEDDER_ID = 'glove-6b-100d-sif@1';

/** GloVe vectors prepared for embedding: lookup table and per-word SIF weight × scale. */
export class GloveModel {
  readonly dimensions: number;
  private readonly index = new Map<string, number>();
  /** SIF weight × quantization scale, per word: one multiply per word at embed time. */
  private readonly factor: Float32Array;
  private readonly values: Int8Array;
  private readonly common: Float32Array;

  constructor(v: GloveVectors) {
    const { header } = v;
    this.dimensions = header.dimensions;
    this.values = v.values;
    this.common = Float32Array.from(header.commonComponent);
    const harmonic = Math.log(header.sourceVocabulary) + 0.5772156649 + 1 / (2 * header.sourceVocabulary);
    this.factor = new Float32Array(header.count);
    for (let i = 0; i < header.count; i++) {
      this.index.set(v.words[i]!, i);
      const p = 1 / ((v.ranks[i]! + 1) * harmonic);
      this.factor[i] = (header.sifA / (header.sifA + p)) * v.scales[i]!;
    }
  }

  has = (word: string): boolean => this.index.has(word);

  /** The SIF sentence vector before the common component is removed (not normalized). */
  weightedSum(text: string): { vector: Float32Array; known: number } {
    const d = this.dimensions;
    const sum = new Float32Array(d);
    let known = 0;
    forEachWord(text, this.has, (w) => {
      const i = this.index.get(w);
      if (i === undefined) return;
      known++;
      const f = this.factor[i]!;
      const row = i * d;
      for (let k = 0; k < d; k++) sum[k]! += f * this.values[row + k]!;
    });
    return { vector: sum, known };
  }

  /** The unit sentence vector of `text` (zero when no word is known). */
  embedOne(text: string): Float32Array {
    const { vector, known } = this.weightedSum(text);
    if (known === 0) return vector;
    let proj = 0;
    for (let k = 0; k < this.dimensions; k++) proj += vector[k]! * this.common[k]!;
    for (let k = 0; k < this.dimensions; k++) vector[k]! -= proj * this.common[k]!;
    return normalize(vector);
  }

  /** The unit word vector, or null when the word is not in the vocabulary. */
  wordVector(word: string): Float32Array | null {
    const i = this.index.get(word.toLowerCase());
    if (i === undefined) return null;
    const d = this.dimensions;
    const v = new Float32Array(d);
    for (let k = 0; k < d; k++) v[k] = this.values[i * d + k]!;
    return normalize(v);
  }
}

let shared: Promise<GloveModel> | null = null;

/** The model file, read and prepared once per process (≈ 10 MB, well under 100 ms). */
export function loadGloveModel(url: URL = GLOVE_MODEL_URL): Promise<GloveModel> {
  if (url !== GLOVE_MODEL_URL) return readFile(url).then((b) => new GloveModel(decodeGloveFile(b)));
  shared ??= readFile(url).then(
    (b) => new GloveModel(decodeGloveFile(b)),
    (err) => {
      shared = null;
      throw err;
    },
  );
  return shared;
}

export class GloveSifEmbedder implements Embedder {
  readonly id = GLOVE_EMBEDDER_ID;
  readonly dimensions = 100;

  constructor(private readonly model: Promise<GloveModel> = loadGloveModel()) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const model = await this.model;
    return texts.map((t) => model.embedOne(t));
  }
}
