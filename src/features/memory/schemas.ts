/** GET /minds/{mindId}/semantic-index: where the mind's semantic memory stands. */
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

export const SemanticIndexResponse = named('SemanticIndex', Type.Object({
  mindId: Uuid,
  status: Type.String({
    enum: ['empty', 'indexing', 'ready', 'failed'],
    description:
      'empty: no completed snapshot yet. indexing: some completed snapshots are not embedded with the current embedder yet (just processed, or re-embedding after a change of embedder); simulations meanwhile use full-text search for them. ready: every completed snapshot is embedded. failed: the rest are embedded, but embedding some failed (see errors); they are tried again when the service restarts.',
    example: 'ready',
  }),
  embedder: Type.Object({
    id: Type.String({ description: 'The vector space: glove-6b-100d-sif@1 (offline default) or openai-compatible:<model>[/<dimensions>]', example: 'glove-6b-100d-sif@1' }),
    dimensions: Nullable(Type.Integer({ description: 'Vector length (null for a provider that has not answered yet)', example: 100 })),
    offline: Type.Boolean({ description: 'True for the embedded default, which needs no network and no key', example: true }),
  }),
  vectorSearch: Type.String({ enum: ['pgvector', 'process'], description: 'Where similarity search runs: pgvector in the database, or an exact search in process (the embedded database, and servers without the extension)', example: 'process' }),
  snapshots: Type.Object({
    total: Type.Integer({ description: 'Completed snapshots of the mind (linked or not)', example: 3 }),
    embedded: Type.Integer({ example: 3 }),
    pending: Type.Integer({ example: 0 }),
    failed: Type.Integer({ example: 0 }),
  }),
  turns: Type.Object({
    total: Type.Integer({ description: "The mind's own turns in those snapshots", example: 412 }),
    embedded: Type.Integer({ description: 'Of them, embedded with the current embedder', example: 412 }),
  }),
  lastEmbeddedAt: Nullable(Timestamp),
  errors: Type.Array(Type.Object({ snapshotId: Uuid, message: Type.String({ example: 'the embedding endpoint answered 401 (check MINDPRINT_EMBEDDINGS_API_KEY)' }) })),
}));
export type SemanticIndexResponse = Static<typeof SemanticIndexResponse>;
