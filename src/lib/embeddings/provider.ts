/**
 * Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint, through the AI SDK's
 * openai-compatible provider (the same library the LLM engine uses: request shape, batching,
 * retries with retry-after, error parsing). Vectors are normalized to unit length, so callers
 * compare them with a dot product whatever the model returns.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, embedMany, type EmbeddingModel } from 'ai';
import type { EmbeddingsConfig } from './config.ts';
import { EmbeddingError, type Embedder } from './types.ts';
import { normalize } from './vector.ts';

export class OpenAiCompatibleEmbedder implements Embedder {
  readonly id: string;
  /** Known once the first answer came (or from MINDPRINT_EMBEDDINGS_DIMENSIONS). */
  dimensions: number;
  private readonly model: EmbeddingModel;

  constructor(private readonly config: EmbeddingsConfig) {
    // The id names the space: the same model with another requested dimension is another space.
    this.id = `openai-compatible:${config.model}${config.dimensions ? `/${config.dimensions}` : ''}`;
    this.dimensions = config.dimensions ?? 0;
    const provider = createOpenAICompatible({ name: 'embeddings', baseURL: config.baseUrl, apiKey: config.apiKey ?? undefined });
    this.model = provider.embeddingModel(config.model);
  }

  async embed(texts: readonly string[], opts: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.config.batchSize) {
      // An empty string is refused by some servers; it has nothing to embed anyway.
      const batch = texts.slice(i, i + this.config.batchSize);
      const nonEmpty = batch.map((t, k) => [t.trim(), k] as const).filter(([t]) => t !== '');
      const vectors = nonEmpty.length ? await this.request(nonEmpty.map(([t]) => t), opts.signal) : [];
      const byIndex = new Map(nonEmpty.map(([, k], j) => [k, vectors[j]!]));
      for (let k = 0; k < batch.length; k++) out.push(byIndex.get(k) ?? new Float32Array(this.dimensions));
    }
    return out;
  }

  private async request(values: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    try {
      const { embeddings } = await embedMany({
        model: this.model,
        values,
        maxRetries: this.config.maxRetries,
        abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        providerOptions: this.config.dimensions ? { openaiCompatible: { dimensions: this.config.dimensions } } : undefined,
      });
      if (embeddings.length !== values.length) throw new EmbeddingError(`the embedding endpoint returned ${embeddings.length} vectors for ${values.length} texts`, false);
      const dims = embeddings[0]!.length;
      if (this.dimensions && dims !== this.dimensions) {
        throw new EmbeddingError(`the embedding model returned ${dims} dimensions where ${this.dimensions} were expected`, false);
      }
      this.dimensions = dims;
      return embeddings.map((e) => normalize(Float32Array.from(e)));
    } catch (err) {
      throw toEmbeddingError(err, signal, timeout);
    }
  }
}

function toEmbeddingError(err: unknown, signal: AbortSignal | undefined, timeout: AbortSignal): unknown {
  if (err instanceof EmbeddingError) return err;
  if (signal?.aborted) return signal.reason ?? err;
  if (timeout.aborted) return new EmbeddingError('the embedding endpoint did not answer in time', true, { cause: err });
  const apiError = findApiError(err);
  if (apiError) {
    const status = apiError.statusCode;
    const transient = apiError.isRetryable || status === undefined || status === 429 || status >= 500;
    // The provider's message may echo the key: report the status and the provider's error type only.
    return new EmbeddingError(`the embedding endpoint answered ${status ?? 'without a status'}${status === 401 || status === 403 ? ' (check MINDPRINT_EMBEDDINGS_API_KEY)' : status === 404 ? ' (check MINDPRINT_EMBEDDINGS_MODEL and MINDPRINT_EMBEDDINGS_BASE_URL)' : ''}`, transient);
  }
  return new EmbeddingError(`the embedding endpoint could not be reached (${err instanceof Error ? err.name : 'error'})`, true, { cause: err });
}

function findApiError(err: unknown): APICallError | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown; lastError?: unknown }).lastError ?? (e as { cause?: unknown }).cause, depth++) {
    if (APICallError.isInstance(e)) return e;
  }
  return null;
}
