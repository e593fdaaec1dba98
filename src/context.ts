import type { Authenticator, Caller } from './auth/authenticate.ts';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { MindDeletionHook } from './minds/service.ts';
import type { UsageRecorder } from './usage/recorder.ts';

/** What route plugins get: the services of one running app. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  auth: Authenticator;
  usage: UsageRecorder;
  /** Run before a mind's rows are deleted (modules that keep files for a mind register here). */
  mindDeletionHooks: MindDeletionHook[];
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}
