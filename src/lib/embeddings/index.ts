/**
 * Sentence embeddings: the offline GloVe-SIF embedder by default, an OpenAI-compatible endpoint
 * when MINDPRINT_EMBEDDINGS_MODEL is configured. A pure library: no database, no feature imports.
 */
import type { EmbeddingsConfig } from './config.ts';
import { GloveSifEmbedder } from './glove-sif.ts';
import { OpenAiCompatibleEmbedder } from './provider.ts';
import type { Embedder } from './types.ts';

export { embeddingsConfigFromEnv, type EmbeddingsConfig } from './config.ts';
export { GloveSifEmbedder, GLOVE_EMBEDDER_ID, loadGloveModel, type GloveModel } from './glove-sif.ts';
export { OpenAiCompatibleEmbedder } from './provider.ts';
export { EmbeddingError, type Embedder } from './types.ts';
export { centroid, cosine, dot, normalize } from './vector.ts';
export { words } from './tokenize.ts';

/** The embedder a process uses: the configured provider, else the offline default. */
export function createEmbedder(config: EmbeddingsConfig | null): Embedder {
  return config ? new OpenAiCompatibleEmbedder(config) : new GloveSifEmbedder();
}
