/**
 * Opens everything a process needs (database, migrations, auth, usage) and closes it again.
 * `serve`, `worker`, the CLI and the tests all start here, so they cannot drift apart.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Authenticator } from '../platform/auth/authenticate.ts';
import { countKeys, createKeyFor, type IssuedKey } from '../platform/auth/keys.ts';
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import { EventBus } from '../platform/events/index.ts';
import { jobLogger } from '../platform/jobs/log.ts';
import { createEngineRegistry } from '../engines/registry.ts';
import { createEmbedder } from '../lib/embeddings/index.ts';
import { Memory, MindRerankers } from '../features/memory/index.ts';
import { PersonaCache } from '../features/profile/index.ts';
import { lockForTransaction, migrate, openDatabase, type Database, type Db } from '../platform/db/client.ts';
import { serviceSettings } from '../platform/db/schema.ts';
import { startQueue } from '../platform/jobs/queue.ts';
import { queueDefinitions } from '../platform/jobs/queues.ts';
import { createArtifactStore } from '../platform/storage/index.ts';
import { MindCache } from '../features/minds/index.ts';
import { ChangeFeed, CHANNEL, type ChangeFeedOptions } from '../platform/db/change-feed.ts';
import type { Client as PgClient } from 'pg';
import { UsageRecorder } from '../features/usage/index.ts';

export interface OpenContextOptions {
  /** PGlite: start from this migrated dump instead of the data dir (tests). */
  pgliteDump?: Blob;
  usageFlushMs?: number;
  authCacheMs?: number;
  /** The mind cache's safety-net TTL (default 5 s); 0 turns the cache off. */
  mindCacheTtlMs?: number;
  /** Reconnect and ping timing of the change feed (PostgreSQL). */
  changeFeed?: ChangeFeedOptions;
  /** false for processes that serve no reads (`mindprint worker`): no read cache, no change feed. */
  readCaches?: boolean;
}

export async function openContext(config: Config, opts: OpenContextOptions = {}): Promise<Deps & { close(): Promise<void> }> {
  const database: Database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteDump: opts.pgliteDump });
  await migrate(database);
  const auth = new Authenticator(database.db, opts.authCacheMs);
  const usage = new UsageRecorder(database.db, auth.pendingLastUsed, opts.usageFlushMs);
  usage.start();
  const queue = await startQueue(database, {
    queues: queueDefinitions(config),
    maintenanceIntervalSeconds: config.jobMaintenanceSeconds,
    pollingIntervalSeconds: database.kind === 'pglite' ? 2 : 1,
  });
  const signingSecret = await sharedSecret(database.db, 'upload-signing-secret', config.signingSecret);
  const store = createArtifactStore({ storageUrl: config.storageUrl, dataDir: config.dataDir, signingSecret, env: config.env });
  const readCaches = config.readCache && opts.readCaches !== false && opts.mindCacheTtlMs !== 0;
  // On PostgreSQL the cache serves only while the change feed listens (it starts bypassed).
  const mindCache = readCaches ? new MindCache({ ttlMs: opts.mindCacheTtlMs, bypassed: database.kind === 'postgres' }) : null;
  const changeFeed = mindCache && database.connect ? startChangeFeed(database.connect, mindCache, auth, opts.changeFeed) : null;
  await changeFeed?.start();
  const log = jobLogger(config);
  const memory = new Memory(database, createEmbedder(config.embeddings), config.vectorSearch, config.lexicalSearch);
  const rerankers = new MindRerankers((err, mindId) => log.error({ err, mindId }, 'adapting the reranker to the mind failed; the shipped model answers'));
  const engines = createEngineRegistry(config.llm, config.defaultModel);
  const ctx: Deps = { config, database, db: database.db, auth, usage, queue, store, signingSecret, events: new EventBus(), engines, memory, rerankers, personas: new PersonaCache(), log, mindCache, changeFeed };
  return {
    ...ctx,
    async close() {
      await changeFeed?.stop();
      await queue.stop({ graceful: true, timeoutMs: config.jobShutdownSeconds * 1000 }).catch(() => {});
      await usage.stop().catch(() => {});
      await store.close?.();
      await memory.close().catch(() => {});
      await database.close();
    },
  };
}

/** Invalidates this process's caches on every change committed by any process. */
function startChangeFeed(connect: () => Promise<PgClient>, mindCache: MindCache, auth: Authenticator, opts?: ChangeFeedOptions): ChangeFeed {
  return new ChangeFeed(connect, [CHANNEL.minds, CHANNEL.keys], {
    notification(channel, payload) {
      if (channel === CHANNEL.minds) mindCache.invalidate(payload);
      else if (channel === CHANNEL.keys) auth.forgetHash(payload);
    },
    down() {
      mindCache.bypass(true);
    },
    up() {
      // Whatever changed while nobody listened is unknown: start both caches afresh.
      mindCache.bypass(false);
      auth.forgetAll();
    },
  }, opts);
}

/**
 * First start: with MINDPRINT_BOOTSTRAP_KEY, create organization "default", user
 * "admin@localhost" and a key with exactly that secret; with neither a key nor that variable,
 * create a random key. Returns the key when one was generated (the caller prints it once).
 */
export async function bootstrapKey(db: Db, bootstrapSecret: string | null): Promise<{ issued: IssuedKey; generated: boolean } | null> {
  // Replicas starting together on one PostgreSQL database take turns: one creates the key.
  return db.transaction(async (tx) => {
    await lockForTransaction(tx, 'mindprint:bootstrap-key');
    if ((await countKeys(tx)) > 0) return null;
    const issued = await createKeyFor(tx, { org: 'default', user: 'admin@localhost', name: 'bootstrap', secret: bootstrapSecret ?? undefined });
    return { issued, generated: !bootstrapSecret };
  });
}

/** A secret shared by every replica through the database (created once, on first use). */
export async function sharedSecret(db: Db, key: string, configured: string | null): Promise<string> {
  if (configured) return configured;
  await db.insert(serviceSettings).values({ key, value: randomBytes(32).toString('base64url') }).onConflictDoNothing();
  const [row] = await db.select({ value: serviceSettings.value }).from(serviceSettings).where(eq(serviceSettings.key, key));
  return row!.value;
}
