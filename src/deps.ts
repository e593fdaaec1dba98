import type { FastifyInstance } from 'fastify';
import type { Authenticator, Caller } from './platform/auth/authenticate.ts';
import type { Config } from './config.ts';
import type { Database, Db } from './platform/db/client.ts';
import type { JobQueue } from './platform/jobs/queue.ts';
import type { ChangeFeed } from './platform/db/change-feed.ts';
import type { MindCache } from './features/minds/index.ts';
import type { MindDeletionHook } from './features/minds/index.ts';
import type { EventBus, Subscriptions } from './platform/events/index.ts';
import type { ArtifactStore } from './platform/storage/index.ts';
import type { UsageRecorder } from './features/usage/index.ts';

/** What route plugins, job handlers and modules get: the services of one running process. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  auth: Authenticator;
  usage: UsageRecorder;
  queue: JobQueue;
  store: ArtifactStore;
  /** Domain events: state changes emit them in their transaction; modules subscribe (Module.on). */
  events: EventBus;
  /** HMAC secret for local signed upload URLs, shared by every replica through the database. */
  signingSecret: string;
  /** Run before a mind's rows are deleted (modules that keep files for a mind register here). */
  mindDeletionHooks: MindDeletionHook[];
  /**
   * Single-mind read cache. Invalidated by this process's own writes and, on PostgreSQL, by the
   * change feed (every process's committed writes); null in processes that serve no reads.
   */
  mindCache: MindCache | null;
  /** PostgreSQL: notifications of committed changes (null on PGlite and in workers). */
  changeFeed: ChangeFeed | null;
}

/**
 * A feature module (snapshots, simulations, …): its routes under the authenticated base path,
 * routes outside it (signed uploads), the job workers it runs, and what to release on shutdown.
 */
export interface Module {
  name: string;
  /** Called once per process, before routes and workers: register deletion hooks, warm caches. */
  init?(ctx: AppContext): Promise<void>;
  /** What this module does when another's state changes: runs inside that change's transaction. */
  on?(ctx: AppContext): Subscriptions;
  routes?(api: FastifyInstance, ctx: AppContext): Promise<void>;
  publicRoutes?(app: FastifyInstance, ctx: AppContext): Promise<void>;
  startWorkers?(ctx: AppContext): Promise<void>;
  close?(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}
