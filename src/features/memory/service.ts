/**
 * The memory of one running service: its embedder (offline GloVe-SIF by default, the configured
 * OpenAI-compatible provider otherwise), where vector search runs (pgvector on a PostgreSQL server
 * where migration 0012 could create the extension's columns, else exact search in process), the
 * in-process vector and full-text indexes and the persona cache. One per database, created on first use.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Database, type Db } from '../../platform/db/client.ts';
import type { Embedder } from '../../lib/embeddings/index.ts';
import type { MemoryTurn } from '../../engines/types.ts';
import { LexicalIndex } from './lexical-index.ts';
import { scopeTurnCount, scopeTurns } from './retrieve.ts';
import { inScope, type MindScope } from './scope.ts';
import { decodeVector } from './vectors.ts';
import { IndexCache } from './index-cache.ts';
import { VectorIndex, type IndexedTurn } from './vector-index.ts';

export type VectorSearch = 'pgvector' | 'process';
export type LexicalSearch = 'database' | 'process';

/**
 * Over this many turns in scope (≈ 500 one-hour transcripts; an index of ≈ 95 MB, measured at
 * 17.5 MB for 5,584 turns, mostly their text), 'auto' leaves full-text search to the database
 * rather than hold the index in every replica.
 */
export const MAX_PROCESS_TURNS = 30_000;
/** Cached in place of an index the size limit declined, so the count is not taken again for the same scope. */
const DECLINED = Object.freeze({ byteLength: 0 });

export class Memory {
  readonly indexes = new IndexCache<VectorIndex>();
  readonly lexicalIndexes = new IndexCache<LexicalIndex<MemoryTurn> | typeof DECLINED>();
  private search: Promise<VectorSearch> | null = null;

  constructor(
    readonly database: Database,
    readonly embedder: Embedder,
    /**
     * 'auto': pgvector on a PostgreSQL server that has it, in process otherwise (and on the
     * embedded PGlite, whose pgvector is an exact scan in WebAssembly on the event loop: 22 ms
     * per request at 100 transcripts against 0.4 ms in process — bench/simulate.ts);
     * 'pgvector': pgvector wherever the columns exist; 'process': always in process.
     */
    private readonly mode: 'auto' | 'pgvector' | 'process' = 'auto',
    /**
     * 'auto': in process (the database's full-text search took 25 of a request's 32 ms on PGlite,
     * where it runs in WebAssembly on the event loop, and 15 of 37 ms on PostgreSQL, at 100
     * transcripts — bench/simulate.ts), unless the scope holds more than MAX_PROCESS_TURNS turns:
     * then the database searches and no replica holds an index that large. 'database' or
     * 'process' (whatever the size) force one.
     */
    private readonly lexicalMode: 'auto' | 'database' | 'process' = 'auto',
    private readonly maxProcessTurns = MAX_PROCESS_TURNS,
  ) {}

  /** Where full-text search runs: in process unless configured otherwise (see the constructor for the size limit of 'auto'). */
  lexicalSearch(): LexicalSearch {
    return this.lexicalMode === 'database' ? 'database' : 'process';
  }

  /**
   * The in-process full-text index of the scope's turns, cached by the scope's fingerprint (a new
   * or reprocessed snapshot changes it); null when the scope has no snapshot, or when the database
   * searches (configured, or the scope is over the size limit of 'auto').
   */
  async lexicalIndex(scope: MindScope): Promise<LexicalIndex<MemoryTurn> | null> {
    if (!scope.fingerprint || this.lexicalMode === 'database') return null;
    const key = `${scope.mindId}/${scope.asOfSnapshotId ?? ''}/${scope.fingerprint}`;
    const entry = await this.lexicalIndexes.get(key, async () => {
      if (this.lexicalMode === 'auto' && (await scopeTurnCount(this.db, scope)) > this.maxProcessTurns) return DECLINED;
      return new LexicalIndex(await scopeTurns(this.db, scope));
    });
    return entry instanceof LexicalIndex ? entry : null;
  }

  get db(): Db {
    return this.database.db;
  }

  /** Where vector search runs: pgvector when the extension's columns exist and the mode (see the constructor) allows it. */
  vectorSearch(): Promise<VectorSearch> {
    this.search ??= (async () => {
      if (this.mode === 'process' || (this.mode === 'auto' && this.database.kind === 'pglite')) return 'process';
      return (await this.vectorColumnsExist()) ? 'pgvector' : 'process';
    })().catch((err: unknown) => {
      this.search = null;
      throw err;
    });
    return this.search;
  }

  /** Whether pgvector columns are written: whenever they exist, whatever the search mode, so a change of mode needs no re-embedding. */
  hasVectorColumns(): Promise<boolean> {
    return this.vectorColumnsExist();
  }

  private columns: Promise<boolean> | null = null;
  private vectorColumnsExist(): Promise<boolean> {
    this.columns ??= (async () => {
      const rows = rowsOf<{ present: boolean }>(
        await this.db.execute(sql`select exists (select 1 from information_schema.columns
          where table_schema = current_schema() and table_name = 'turn_embeddings' and column_name = 'text_vector') as present`),
      );
      return Boolean(rows[0]?.present);
    })().catch((err: unknown) => {
      this.columns = null;
      throw err;
    });
    return this.columns;
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
