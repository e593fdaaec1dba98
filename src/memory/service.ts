/**
 * The memory of one running service: its embedder (offline GloVe-SIF by default, the configured
 * OpenAI-compatible provider otherwise), where vector search runs (pgvector in the database when
 * migration 0012 could create the extension's columns, else exact search in process), the
 * in-process vector indexes and the persona cache. One per database, created on first use.
 */
import { sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import { rowsOf, type Database, type Db } from '../db/client.ts';
import { createEmbedder, type Embedder } from '../embeddings/index.ts';
import { PersonaCache } from './profile.ts';
import { inScope, type MindScope } from './scope.ts';
import { decodeVector } from './vectors.ts';
import { VectorIndex, VectorIndexCache, type IndexedTurn } from './vector-index.ts';

export type VectorSearch = 'pgvector' | 'process';

export class Memory {
  readonly personas = new PersonaCache();
  readonly indexes = new VectorIndexCache();
  private search: Promise<VectorSearch> | null = null;

  constructor(
    readonly database: Database,
    readonly embedder: Embedder,
    /** 'auto': pgvector when the database has it; 'process': always in process. */
    private readonly mode: 'auto' | 'process' = 'auto',
  ) {}

  get db(): Db {
    return this.database.db;
  }

  /** Where vector search runs: pgvector when the extension's columns exist (and the mode allows it). */
  vectorSearch(): Promise<VectorSearch> {
    this.search ??= (async () => {
      if (this.mode === 'process') return 'process';
      const rows = rowsOf<{ present: boolean }>(
        await this.db.execute(sql`select exists (select 1 from information_schema.columns
          where table_schema = current_schema() and table_name = 'turn_embeddings' and column_name = 'text_vector') as present`),
      );
      return rows[0]?.present ? 'pgvector' : 'process';
    })().catch((err: unknown) => {
      this.search = null;
      throw err;
    });
    return this.search;
  }

  /** Whether pgvector columns are written (they exist), whatever the search mode. */
  async hasVectorColumns(): Promise<boolean> {
    if (this.mode === 'auto') return (await this.vectorSearch()) === 'pgvector';
    const rows = rowsOf<{ present: boolean }>(
      await this.db.execute(sql`select exists (select 1 from information_schema.columns
        where table_schema = current_schema() and table_name = 'turn_embeddings' and column_name = 'text_vector') as present`),
    );
    return Boolean(rows[0]?.present);
  }

  /**
   * The in-process index of the scope's embedded snapshots (cached by their fingerprint); null
   * when none is embedded with this process's embedder.
   */
  async index(scope: MindScope): Promise<VectorIndex | null> {
    if (!scope.semanticFingerprint || scope.embedder !== this.embedder.id) return null;
    const key = `${scope.mindId}/${scope.embedder}/${scope.semanticFingerprint}`;
    return this.indexes.get(key, async () => {
      const rows = rowsOf<{ turn_id: string; dimensions: number; embedding: Uint8Array | string; context_embedding: Uint8Array | string | null }>(
        await this.db.execute(sql`
          select e.turn_id, e.dimensions, e.embedding, e.context_embedding
          from turn_embeddings e join snapshots s on s.id = e.snapshot_id
          where ${inScope(scope.organizationId, scope.mindId, scope.asOfDate)}
            and s.embedder = ${this.embedder.id} and s.embedded_at is not null
            and e.mind_id = ${scope.mindId} and e.embedder = ${this.embedder.id}`),
      );
      const dimensions = rows.length ? Number(rows[0]!.dimensions) : this.embedder.dimensions;
      const turns: IndexedTurn[] = rows.map((r) => ({
        turnId: r.turn_id,
        embedding: decodeVector(r.embedding),
        contextEmbedding: r.context_embedding === null ? null : decodeVector(r.context_embedding),
      }));
      return new VectorIndex(turns, dimensions);
    });
  }

  async close(): Promise<void> {
    await this.embedder.close?.();
  }
}

const memories = new WeakMap<Database, Memory>();

/** The memory of the service running on `database` (created from `config` on first use). */
export function memoryFor(ctx: { database: Database; config: Config }): Memory {
  let m = memories.get(ctx.database);
  if (!m) {
    m = new Memory(ctx.database, createEmbedder(ctx.config.embeddings), ctx.config.vectorSearch);
    memories.set(ctx.database, m);
  }
  return m;
}
