/**
 * Starts the real service on a random loopback port for HTTP tests, on the embedded PGlite
 * database (default) or on PostgreSQL when TEST_DATABASE_URL is set (a fresh database per
 * server, dropped afterwards). PGlite servers start from a migrated template dumped once per
 * test process, since creating a PGlite database takes seconds.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createThrowawayDatabase } from './pg.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { migrate, openDatabase } from '../../src/platform/db/client.ts';
import { createKeyFor } from '../../src/platform/auth/keys.ts';
import { serve, type RunningServer, type ServeOptions } from '../../src/boot/server.ts';

let template: Promise<Blob> | null = null;

/**
 * What the template depends on: the migrations, the database client (extensions) and the PGlite
 * build. Any change gives another key, so a stale template is never loaded.
 */
async function templateKey(): Promise<string> {
  const root = new URL('../../', import.meta.url);
  const hash = createHash('sha256');
  const drizzleDir = new URL('drizzle/', root);
  for (const f of (await readdir(drizzleDir)).filter((f) => f.endsWith('.sql')).sort()) hash.update(f).update(await readFile(new URL(f, drizzleDir)));
  hash.update(await readFile(new URL('drizzle/meta/_journal.json', root)));
  hash.update(await readFile(new URL('src/platform/db/client.ts', root)));
  hash.update(await readFile(new URL('node_modules/@electric-sql/pglite/package.json', root)).catch(() => Buffer.from('?')));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A migrated PGlite database as a dump. Creating one takes seconds and every test file is its own
 * process, so the dump is also kept in the temp directory under a key of what it depends on and
 * reused by the next test process (written to a temp name, then renamed: readers never see half).
 */
async function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const cached = path.join(os.tmpdir(), `mindprint-pglite-template-${await templateKey()}.tar`);
    const hit = await readFile(cached).catch(() => null);
    if (hit) return new Blob([hit]);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-template-'));
    const database = await openDatabase({ databaseUrl: null, dataDir: dir });
    await migrate(database);
    const dump = await ((database.db as any).$client as { dumpDataDir(c?: string): Promise<Blob> }).dumpDataDir('none');
    await database.close();
    await rm(dir, { recursive: true, force: true });
    const partial = `${cached}.${process.pid}.partial`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, cached);
    return dump;
  })();
  return template;
}

export interface TestServer extends RunningServer {
  config: Config;
  base: string;
  /** The bootstrap key (organization "default", user admin@localhost). */
  key: string;
  /** fetch against the API with a key (default: the bootstrap key). */
  api(method: string, path: string, body?: unknown, key?: string | null, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  /** Creates an organization/user key directly in the database (as `mindprint keys create` does). */
  newKey(org: string, user: string): Promise<{ key: string; keyId: string; userId: string; organizationId: string }>;
  /** Stops the service and starts it again on the same data (same config, same key); close the returned one. */
  restart(): Promise<TestServer>;
  close(): Promise<void>;
}

export const onPostgres = () => Boolean(process.env.TEST_DATABASE_URL);

export interface TestServerOptions {
  usageFlushMs?: number;
  /** PGlite: open a real data dir instead of an in-memory copy of the template, so `restart()` keeps the data. */
  persistent?: boolean;
  /** PostgreSQL: a second service instance (replica) on this server's database; closing it leaves the database. */
  replicaOf?: TestServer;
  /** Passed to the service (cache TTLs, …). */
  serveOptions?: Partial<ServeOptions>;
  /** This database whatever TEST_DATABASE_URL says (postgres needs it set): for tests that use both at once. */
  database?: 'pglite' | 'postgres';
}

export async function startTestServer(env: Record<string, string> = {}, opts: TestServerOptions = {}): Promise<TestServer> {
  if (opts.replicaOf && !opts.replicaOf.config.databaseUrl) throw new Error('replicaOf needs PostgreSQL: only one process may open an embedded database');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-test-'));
  if (opts.database === 'postgres' && !onPostgres()) throw new Error('database: postgres needs TEST_DATABASE_URL');
  const wantPostgres = opts.database ? opts.database === 'postgres' : onPostgres();
  const pgDb = opts.replicaOf ? null : wantPostgres ? await createThrowawayDatabase(process.env.TEST_DATABASE_URL!) : null;
  const databaseUrl = opts.replicaOf?.config.databaseUrl ?? pgDb?.url;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    MINDPRINT_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Suites make thousands of requests with one key and send wrong keys on purpose: the rate
    // limits' defaults would get in the way (test/platform/http/rate-limit.test.ts sets its own).
    MINDPRINT_RATE_LIMIT_PER_MINUTE: '100000000',
    MINDPRINT_AUTH_FAILURES_PER_MINUTE: '100000000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(opts.replicaOf ? { MINDPRINT_BOOTSTRAP_KEY: opts.replicaOf.key } : {}),
    ...env,
  });
  const serveOptions: ServeOptions = {
    pgliteDump: databaseUrl || opts.persistent ? undefined : await pgliteTemplate(),
    printBootstrapKey: false,
    usageFlushMs: opts.usageFlushMs ?? 60_000,
    ...opts.serveOptions,
  };
  const cleanup = async () => {
    await pgDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  const server = await serve(config, serveOptions);
  const key = config.bootstrapKey ?? server.bootstrap!.key;
  return testServer(server, config, key, serveOptions, cleanup);
}

function testServer(server: RunningServer, config: Config, key: string, serveOptions: ServeOptions, cleanup: () => Promise<void>): TestServer {
  const base = `${server.url}${config.basePath}`;
  const handle: TestServer = {
    ...server,
    config,
    base,
    key,
    async api(method, p, body, k = key, headers = {}) {
      const h: Record<string, string> = { ...headers };
      if (k) h.authorization = `Bearer ${k}`;
      let payload: BodyInit | undefined;
      if (body instanceof FormData) payload = body;
      else if (typeof body === 'string') {
        payload = body;
        h['content-type'] ??= 'application/json';
      } else if (body !== undefined) {
        payload = JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${base}${p}`, { method, headers: h, body: payload });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: leave the text for the assertion to show */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    newKey: (org, user) => createKeyFor(server.ctx.db, { org, user }),
    async restart() {
      if (serveOptions.pgliteDump) throw new Error('restart() on PGlite needs startTestServer(…, { persistent: true })');
      await server.stop();
      return testServer(await serve(config, serveOptions), config, key, serveOptions, cleanup);
    },
    async close() {
      await server.stop();
      await cleanup();
      // Test files share processes (scripts/test.ts) and keep their server in a module-level
      // variable: let go of the stopped service (its database, caches, app) so it can be collected.
      // A second close() is a no-op, and the closures that held the service are gone with their keys.
      for (const k of Object.keys(handle) as (keyof TestServer)[]) delete handle[k];
      handle.close = async () => {};
    },
  };
  return handle;
}

/** Sends a request that must be refused as invalid: 400, VALIDATION_FAILED, a message matching `message` (which names the field). */
export async function assertInvalid(s: TestServer, method: string, path: string, body: unknown, message: RegExp): Promise<void> {
  const res = await s.api(method, path, body);
  const what = `${method} ${path} ${JSON.stringify(body) ?? ''}: ${JSON.stringify(res.body)}`;
  assert.equal(res.status, 400, what);
  assert.equal(res.body.code, 'VALIDATION_FAILED', what);
  assert.equal(typeof res.body.error, 'string', what);
  assert.match(res.body.message, message, what);
}
