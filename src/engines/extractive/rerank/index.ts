/**
 * The reranker: picks the reply among the retrieved candidates with a small linear model trained
 * on question → answer pairs of real conversations (scripts/train-reranker.ts writes
 * src/engines/extractive/models/reranker.json). Features: ./features.ts; model: ./model.ts.
 * Sentence vectors come from the offline GloVe-SIF embedder (src/lib/embeddings), whatever embedder
 * the service retrieves with, because that is the space the model was trained in.
 */
import { readFileSync } from 'node:fs';
import { loadGloveModel, type GloveModel } from '../../../lib/embeddings/glove-sif.ts';
import { FEATURE_VERSION, FEATURES, type Candidate } from './features.ts';
import { checkModel, scoreRow, type RerankModel } from './model.ts';
import { LRUCache } from 'lru-cache';

export { candidatesFor, nextPart, turnVectors, FEATURES, FEATURE_VERSION, type Candidate, type CandidateInput, type Embed } from './features.ts';
export { adapt, checkModel, fit, scoreRow, train, type Group, type RerankModel } from './model.ts';

export const RERANKER_URL = new URL('../models/reranker.json', import.meta.url);

let shipped: RerankModel | null = null;

/** The shipped model (read once; a missing or stale file is an error at first use). */
export function shippedModel(): RerankModel {
  shipped ??= checkModel(JSON.parse(readFileSync(RERANKER_URL, 'utf8')), FEATURE_VERSION, FEATURES);
  return shipped;
}

/** Candidates with their reranker score, best first (ties: the input order). */
export function rerank(candidates: readonly Candidate[], model: RerankModel = shippedModel()): { c: Candidate; score: number }[] {
  return candidates
    .map((c, i) => ({ c, i, score: scoreRow(model, c.features) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ c, score }) => ({ c, score }));
}

/** Texts embedded so far (a turn's text comes back request after request). */
/** Sentence vectors by text, the least recently used dropped past 50,000. */
const cache = new LRUCache<string, Float32Array>({ max: 50_000 });

/** One embedding function per model, so caches keyed by the function (turn vectors) hold across requests. */
const embedders = new WeakMap<GloveModel, (text: string) => Float32Array>();

/** A synchronous, cached sentence embedding over a loaded GloVe model (the same function for the same model). */
export function cachedEmbedder(model: GloveModel): (text: string) => Float32Array {
  const known = embedders.get(model);
  if (known) return known;
  const embed = (text: string) => {
    let v = cache.get(text);
    if (!v) {
      v = model.embedOne(text);
      cache.set(text, v);
    }
    return v;
  };
  embedders.set(model, embed);
  return embed;
}

/** The embedding function of the reranker (loads the GloVe file once per process). */
export async function rerankEmbedder(): Promise<(text: string) => Float32Array> {
  return cachedEmbedder(await loadGloveModel());
}
