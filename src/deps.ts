import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Authenticator, Caller } from './platform/auth/authenticate.ts';
import type { Config } from './config.ts';
import type { Database, Db } from './platform/db/client.ts';
import type { JobQueue } from './platform/jobs/queue.ts';
import type { ChangeFeed } from './platform/db/change-feed.ts';
import type { MindCache } from './features/minds/index.ts';
import type { EventBus, Subscriptions } from './platform/events/index.ts';
import type { ArtifactStore } from './platform/storage/index.ts';
import type { UsageRecorder } from './features/usage/index.ts';
import type { Memory, MindRerankers } from './features/memory/index.ts';
import type { PersonaCache } from './features/profile/index.ts';
import type { EngineRegistry } from './engines/registry.ts';
import type { JobLogger } from './platform/jobs/log.ts';

/**
 * What every route, service and job receives: the services of one running process, built once at
 * start (boot/open.ts). Nothing else keeps per-process state, so one process may run several
 * servers (as the tests do) without them sharing anything.
 */
export interface Deps {
  config: Config;
  database: Database;
  db: Db;
  auth: Authenticator;
  usage: UsageRecorder;
  queue: JobQueue;
  store: ArtifactStore;
  /** Domain events: state changes emit them in their transaction; modules subscribe (Module.on). */
  events: EventBus;
  /** The simulation engines of this process's configuration (GET /models). */
  engines: EngineRegistry;
  /** Semantic memory: the embedder, the in-process vector and full-text indexes. */
  memory: Memory;
  /** Per-mind rerankers adapted in the background (MINDPRINT_RERANKER_ADAPT). */
  rerankers: MindRerankers;
  /** Persona cards and other speakers per mind and snapshot fingerprint. */
  personas: PersonaCache;
  /** Log lines of work outside a request (jobs, sweeps, background adaptation). */
  log: JobLogger;
  /** HMAC secret for local signed upload URLs, shared by every replica through the database. */
  signingSecret: string;
  /**
   * Single-mind read cache. Invalidated by this process's own writes and, on PostgreSQL, by the
   * change feed (every process's committed writes); null in processes that serve no reads.
   */
  mindCache: MindCache | null;
  /** PostgreSQL: notifications of committed changes (null on PGlite and in workers). */
  changeFeed: ChangeFeed | null;
}

/**
 * The routes of a module, one shape for all: a Fastify plugin (its own encapsulated scope) that
 * receives the Deps as its option, `async (app, { deps }) => { app.get(…) }`.
 */
export type Routes = FastifyPluginAsyncTypebox<{ deps: Deps }>;

/**
 * A feature module (snapshots, simulations, …): its routes under the authenticated base path,
 * routes outside it (signed uploads), the job workers it runs, and what to release on shutdown.
 * boot/modules.ts lists them; boot/app.ts registers their routes in that order.
 */
export interface Module {
  name: string;
  /** Called once per process, before routes and workers: schedule sweeps, warm caches. */
  init?(ctx: Deps): Promise<void>;
  /** What this module does when another's state changes: runs inside that change's transaction. */
  on?(ctx: Deps): Subscriptions;
  /** Under the API base path, after authentication: `req.caller` is set. */
  routes?: Routes;
  /** At the root, without authentication (signed uploads, the dashboard, /mcp with its own check). */
  publicRoutes?: Routes;
  startWorkers?(ctx: Deps): Promise<void>;
  close?(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}
