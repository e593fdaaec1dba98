/**
 * The seam between what needs sentence embeddings (memory retrieval, the reranker, the analysis)
 * and what computes them: the offline GloVe-SIF embedder by default, an OpenAI-compatible
 * `/v1/embeddings` endpoint when one is configured. Callers never ask which one they have; they
 * store `id` beside every vector, so vectors of two different spaces are never compared.
 */

export interface Embedder {
  /**
   * Names the vector space, e.g. `glove-6b-100d-sif@1` or `openai-compatible:nomic-embed-text`.
   * Changes whenever vectors stop being comparable with earlier ones (another model, another
   * dimension, another weighting): stored vectors with another id must be computed again.
   */
  readonly id: string;
  readonly dimensions: number;
  /**
   * One unit-length vector per text, in order. A text with nothing to embed (empty, or no word
   * the model knows) gets the zero vector: its cosine with everything is 0.
   */
  embed(texts: readonly string[], opts?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /** Releases connections or memory (optional). */
  close?(): Promise<void>;
}

/** An embedding provider failed (network, HTTP status, malformed answer, wrong dimension). */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    /** Worth retrying later (network, 429, 5xx, timeout), as opposed to a configuration error. */
    readonly transient: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbeddingError';
  }
}
