/**
 * Opens the database: embedded PGlite under MINDPRINT_DATA_DIR by default, PostgreSQL when
 * DATABASE_URL is set. Both speak the same SQL and run the same migrations, so the rest of the
 * code sees one `Db` type and never asks which one it has.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { Client as PgClient } from 'pg';
import { sql, type SQL } from 'drizzle-orm';
import { DatabaseUnavailableError, isWasmRuntimeError } from './errors.ts';
import * as schema from './schema.ts';

export { DatabaseUnavailableError } from './errors.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** Runs SQL with positional parameters ($1, $2, …): what pg-boss needs from its host. */
export type RawExecutor = (text: string, values?: unknown[]) => Promise<{ rows: any[] }>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Raw access for pg-boss and a few hand-written queries. */
  execute: RawExecutor;
  /**
   * Tell the database a bulk write happened (a snapshot's turns). PostgreSQL's autovacuum keeps
   * planner statistics fresh by itself; PGlite has no autovacuum, and without statistics the
   * planner picks nested loops that made memory retrieval twice as slow, so there a debounced
   * ANALYZE follows.
   */
  noteBulkWrite(): void;
  /** PostgreSQL only: a new connection outside the pool (the migration lock, LISTEN); the caller ends it. */
  connect?(): Promise<PgClient>;
  /**
   * Why the database can no longer work, or null while it can. The embedded database fails for
   * good on a WASM runtime error (its memory is then undefined): every later query is refused
   * with a DatabaseUnavailableError at once, and the process must exit or reopen it. PostgreSQL
   * outages pass (the pool reconnects), so there this stays null.
   */
  failure(): Error | null;
  /** Called once when the database fails for good (see `failure`). */
  onFailure(listener: (err: Error) => void): void;
  close(): Promise<void>;
}

/** Runs `analyze` once writes have been quiet for `quietMs` (never concurrently, never after close). */
function debouncedAnalyze(run: () => Promise<unknown>, quietMs = 2_000) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let closed = false;
  return {
    note() {
      if (closed) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        running = run()
          .catch(() => {})
          .finally(() => (running = null));
      }, quietMs);
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../drizzle', import.meta.url));

export interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** Open PGlite from this in-memory dump instead of the data dir (tests clone a migrated template). */
  pgliteDump?: Blob;
}

/**
 * A hot statement, sent as a named prepared statement on PostgreSQL: each pooled connection parses
 * it once, and after a few executions PostgreSQL reuses a generic plan instead of planning it again
 * (planning the mind query cost twice its execution). Text with $1, $2, … placeholders.
 */
export interface Statement {
  name: string;
  text: string;
}

/** A Statement from drizzle SQL written with $n placeholders (and no embedded parameters). */
export function statement(name: string, query: SQL): Statement {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  if (params.length) throw new Error(`statement ${name}: use $n placeholders, not embedded parameters`);
  return { name, text };
}

type StatementRunner = (statement: Statement, values: unknown[]) => Promise<{ rows: any[] }>;
const statementRunners = new WeakMap<Db, StatementRunner>();

/** Runs a Statement: prepared on PostgreSQL, a plain parameterised query on PGlite or inside a transaction. */
export async function runStatement<T>(db: Db, statement: Statement, values: unknown[]): Promise<T[]> {
  const run = statementRunners.get(db);
  if (run) return (await run(statement, values)).rows as T[];
  return rowsOf<T>(await db.execute(positionalSql(statement.text, values)));
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(opts);
}

/** postgres://user@host:port/db: a database URL safe to print (no password, no query parameters). */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

function connectFailure(err: any, url: string): DatabaseUnavailableError {
  const causes: any[] = err?.errors?.length ? err.errors : [err];
  const reason = causes.map((e) => e?.message || e?.code || String(e)).join('; ');
  const code = causes[0]?.code;
  const hint =
    code === 'ECONNREFUSED' ? ' Is PostgreSQL running and listening there?'
    : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? ' Check the host name.'
    : code === '3D000' ? ' Create the database (createdb) or fix its name.'
    : code === '28P01' || code === '28000' ? ' Check the user name and password.'
    : '';
  return new DatabaseUnavailableError(`Cannot connect to the PostgreSQL database of DATABASE_URL (${describeDatabaseUrl(url)}): ${reason}.${hint}`);
}

type PgPool = import('pg').Pool;
type PgPoolClient = import('pg').PoolClient;

/**
 * drizzle's node-postgres `transaction()` checks a connection out and runs `begin` before its
 * try/finally, so a `begin` that fails (the server restarting, the connection dropped) never gives
 * the connection back: each such failure costs the pool a connection for good, and `pool.end()`
 * (shutdown) then waits for ever. Connections checked out with `await pool.connect()` (drizzle's
 * way; `pool.query` manages its own) are therefore released here when a statement fails and the
 * connection is gone (destroyed, never handed out again) or when the failed statement was `begin`
 * (drizzle will not touch it again); a second release is a no-op instead of pg-pool's error.
 */
function releaseWhatDrizzleLeaks(pool: PgPool): void {
  const checkedOut = new WeakSet<PgPoolClient>();
  const wrapped = new WeakSet<PgPoolClient>();
  const connect = pool.connect.bind(pool) as (cb?: unknown) => unknown;
  const guard = (client: PgPoolClient): PgPoolClient => {
    const release = client.release;
    let released = false;
    checkedOut.add(client);
    client.release = (err?: Error | boolean) => {
      if (released) return;
      released = true;
      checkedOut.delete(client);
      release(err);
    };
    if (!wrapped.has(client)) {
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const result = query(...args);
        // Callback and submittable forms (not drizzle's) pass through untouched.
        if (!checkedOut.has(client) || !(result instanceof Promise)) return result;
        return result.catch((err: unknown) => {
          const state = client as unknown as { _queryable?: boolean; _ending?: boolean; _ended?: boolean };
          const gone = state._queryable === false || state._ending === true || state._ended === true;
          const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text ?? '';
          if (gone) client.release(err instanceof Error ? err : true);
          else if (/^\s*begin\b/i.test(text)) client.release();
          throw err;
        });
      };
    }
    return client;
  };
  (pool as unknown as { connect: (cb?: unknown) => unknown }).connect = (cb?: unknown) =>
    cb ? connect(cb) : (connect() as Promise<PgPoolClient>).then(guard);
}

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  // One connection first, with a time limit: an unreachable or missing database is a clear
  // start-up error, not a driver stack trace from the first query.
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  probe.on('error', () => {});
  try {
    await probe.connect();
  } catch (err) {
    throw connectFailure(err, url);
  } finally {
    await probe.end().catch(() => {});
  }
  // A connection that cannot be made (PostgreSQL down, a network partition) fails the request
  // after 10 s instead of holding it until the client gives up (503 UNAVAILABLE, src/platform/http/errors.ts).
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000 });
  // An idle connection the server drops (restart, failover, admin command) must not crash the
  // process: the pool discards it and the next query opens a new one.
  pool.on('error', (err) => process.emitWarning(`PostgreSQL connection lost: ${err.message}`));
  // A connection checked out of the pool (a transaction, drizzle's session) has no listener of
  // the pool's: pg-pool removes it at checkout, so the server dropping it mid-transaction would
  // be an uncaught 'error' and take the process down. Its statement rejects and the caller answers
  // 503 UNAVAILABLE (src/platform/http/errors.ts); this listener, added once per connection, only keeps
  // the event from being fatal (the pool's own listener reports idle ones above).
  pool.on('connect', (client) => client.on('error', () => {}));
  releaseWhatDrizzleLeaks(pool);
  const db = drizzle(pool, { schema }) as unknown as Db;
  statementRunners.set(db, (st, values) => pool.query({ name: st.name, text: st.text, values }));
  return {
    kind: 'postgres',
    db,
    execute: async (text, values) => pool.query(text, values as any[]),
    noteBulkWrite: () => {},
    failure: () => null,
    onFailure: () => {},
    async connect() {
      const client = new pg.Client({ connectionString: url });
      // A dropped connection must not crash the process; its queries fail and the caller reacts.
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    close: () => pool.end(),
  };
}

async function openPglite(opts: OpenOptions): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  // pgvector: semantic memory searches the turns' vectors in the database (src/features/memory).
  const { vector } = await import('@electric-sql/pglite/vector');
  const { drizzle } = await import('drizzle-orm/pglite');
  let client;
  if (opts.pgliteDump) {
    client = await PGlite.create({ loadDataDir: opts.pgliteDump, extensions: { pg_trgm, vector } });
  } else {
    const dir = path.join(opts.dataDir, 'pglite');
    await mkdir(dir, { recursive: true });
    client = await PGlite.create(dir, { extensions: { pg_trgm, vector } });
  }
  const fatal = guardAgainstWasmFailure(client);
  const db = drizzle(client, { schema }) as unknown as Db;
  statementRunners.set(db, (st, values) => client.query(st.text, values));
  const analyze = debouncedAnalyze(() => client.exec('analyze turns; analyze snapshots; analyze turn_embeddings'));
  return {
    kind: 'pglite',
    db,
    // PGlite runs one statement per `query` call; parameterless multi-statement SQL goes through `exec`.
    execute: async (text, values) => {
      if (values && values.length > 0) return client.query(text, values);
      const results = await client.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
    noteBulkWrite: analyze.note,
    failure: () => fatal.error,
    onFailure: (listener) => void fatal.listeners.push(listener),
    close: async () => {
      await analyze.close();
      // A failed PGlite cannot flush or close cleanly; what it wrote before stays on disk.
      if (fatal.error) return;
      await client.close();
    },
  };
}

/** PGlite's entry points: every query, statement, transaction and raw protocol message goes through one of them. */
const PGLITE_ENTRY_POINTS = ['query', 'exec', 'transaction', 'sql', 'execProtocol', 'execProtocolRaw', 'listen', 'describeQuery'] as const;

/**
 * A WASM runtime error inside PGlite ("memory access out of bounds", "unreachable") leaves its
 * memory in an undefined state: every later call fails the same way or, worse, returns garbage.
 * So the first one marks the database failed for good: that call and every later one throw a
 * DatabaseUnavailableError at once (503), and the listeners (the server) are told, once, so the
 * process can say so and exit for its supervisor to restart it on the data last written.
 */
function guardAgainstWasmFailure(client: object): { error: Error | null; listeners: ((err: Error) => void)[] } {
  const state: { error: Error | null; listeners: ((err: Error) => void)[] } = { error: null, listeners: [] };
  const fail = (cause: unknown): Error => {
    if (!state.error) {
      state.error = new DatabaseUnavailableError(`The embedded database failed (${(cause as Error)?.message ?? String(cause)}) and cannot run queries any more; the process must restart`, { cause });
      for (const listener of state.listeners) {
        try {
          listener(state.error);
        } catch {
          /* a listener's failure must not hide the database's */
        }
      }
    }
    return state.error;
  };
  const target = client as Record<string, unknown>;
  for (const name of PGLITE_ENTRY_POINTS) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function guarded(this: unknown, ...args: unknown[]) {
      if (state.error) return Promise.reject(state.error);
      try {
        const result = (original as (...a: unknown[]) => unknown).apply(this, args);
        if (result instanceof Promise) return result.catch((err: unknown) => Promise.reject(isWasmRuntimeError(err) ? fail(err) : err));
        return result;
      } catch (err) {
        throw isWasmRuntimeError(err) ? fail(err) : err;
      }
    };
  }
  return state;
}

/** Any constant works; it only has to be the same in every Mindprint process. */
const MIGRATION_LOCK = 7_246_118_303;

/**
 * Applies the migrations. On PostgreSQL several processes may start at once (replicas, workers,
 * `mindprint migrate`): they take turns under a session-level advisory lock held on a connection
 * of their own, and the migrator runs on that same connection, so the second one finds the
 * migrations applied instead of racing the first through CREATE EXTENSION and CREATE TABLE.
 */
export async function migrate(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    const { migrate: run } = await import('drizzle-orm/pglite/migrator');
    const before = await appliedMigrations(database);
    await run(database.db as any, { migrationsFolder: MIGRATIONS_DIR });
    // PGlite has no autovacuum: a migration that rewrote rows (0003 rewrites long turns) would
    // leave the old versions for every scan to step over, for ever. Clean up once, as
    // autovacuum does on PostgreSQL (VACUUM cannot run inside the migrations' transaction).
    if (before > 0 && (await appliedMigrations(database)) > before) await database.execute('vacuum analyze');
    return;
  }
  const { migrate: run } = await import('drizzle-orm/node-postgres/migrator');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const client = await database.connect!();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await run(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    // Ending the session releases the lock even if the unlock cannot be sent.
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end().catch(() => {});
  }
}

/** How many migrations the database has applied (0 for a new one). */
async function appliedMigrations(database: Database): Promise<number> {
  const { rows } = await database.execute("select to_regclass('drizzle.__drizzle_migrations') is not null as present");
  if (!rows[0]?.present) return 0;
  const counted = await database.execute('select count(*)::int as n from drizzle.__drizzle_migrations');
  return Number(counted.rows[0]?.n ?? 0);
}

/**
 * Inside a transaction: waits until no other transaction holds the lock named `key`, and holds it
 * until this one ends. Transactions that would race on the same thing (a slug, the first key)
 * then run one after the other, on PostgreSQL as on PGlite.
 */
export async function lockForTransaction(tx: Db, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`);
}

/** Builds a drizzle SQL object from text with $n placeholders, so raw SQL can run inside a drizzle transaction. */
export function positionalSql(text: string, values: unknown[] = []): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks: SQL[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 0) chunks.push(sql.raw(parts[i]!));
    // One parameter each, arrays included (as node-postgres sends them), never expanded into a list.
    else chunks.push(sql`${sql.param(toParam(values[Number(parts[i]) - 1]))}`);
  }
  return sql.join(chunks, sql.raw(''));
}

/** node-postgres conventions for raw parameters: undefined is NULL, plain objects are JSON. */
function toParam(value: unknown): unknown {
  if (value === undefined) return null;
  if (value && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value) && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

/** Rows of a raw drizzle `execute`, whichever driver ran it. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}
