/**
 * `mindprint serve`: the API process. On the embedded database it also runs the job worker,
 * so one command is a complete service.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { initModules } from './modules.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { acquireLock, updateLockUrl } from './db/lock.ts';
import type { IssuedKey } from './auth/keys.ts';
import { bootstrapKey, openContext, type OpenContextOptions } from './services.ts';


export interface ServeOptions extends OpenContextOptions {
  /** Print a generated bootstrap key on stdout (the CLI does; tests read it from the result). */
  printBootstrapKey?: boolean;
}

export interface RunningServer {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  /** The key created at first start, when one was created. */
  bootstrap: IssuedKey | null;
  stop(): Promise<void>;
}

export async function serve(config: Config, opts: ServeOptions = {}): Promise<RunningServer> {
  const releaseLock = config.databaseUrl || opts.pgliteDump ? async () => {} : await acquireLock(config.dataDir, null);
  const ctx = await openContext(config, opts);
  const boot = await bootstrapKey(ctx.db, config.bootstrapKey);
  const modules = await initModules(ctx);
  if (config.inProcessWorker) for (const m of modules) await m.startWorkers?.(ctx);
  const app = await buildApp(ctx, { modules });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  if (!config.databaseUrl && !opts.pgliteDump) await updateLockUrl(config.dataDir, url);
  if (boot?.generated && opts.printBootstrapKey !== false) {
    // Printed once, on the terminal, never logged: this is the only time the secret is shown.
    process.stdout.write(
      `\nNo API key existed, so one was created for organization "default", user admin@localhost:\n\n  ${boot.issued.key}\n\n` +
        'Keep it: it is not shown again. Try: curl -H "Authorization: Bearer <key>" ' + `${url}${config.basePath}/minds\n\n`,
    );
  }
  app.log.info({ url: `${url}${config.basePath}`, database: ctx.database.kind, docs: `${url}/docs` }, 'Mindprint is serving');

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= holdingEventLoop(async () => {
      await app.close();
      await ctx.close();
      for (const m of modules) await m.close?.();
      await releaseLock();
    }));
  return { app, ctx, url, bootstrap: boot?.issued ?? null, stop };
}

/** `mindprint worker`: the job workers of every module, without HTTP. */
export async function runWorker(config: Config): Promise<{ ctx: AppContext; stop(): Promise<void> }> {
  const ctx = await openContext(config);
  const modules = await initModules(ctx);
  for (const m of modules) await m.startWorkers?.(ctx);
  let stopping: Promise<void> | null = null;
  return {
    ctx,
    stop: () =>
      (stopping ??= holdingEventLoop(async () => {
        await ctx.close();
        for (const m of modules) await m.close?.();
      })),
  };
}

/**
 * Shutdown awaits things that hold no handle of their own (pg-boss's unref'd timers, idle
 * worker threads): keep the event loop alive until `fn` is done, or a process with nothing else
 * to do would exit with the database still open.
 */
async function holdingEventLoop(fn: () => Promise<void>): Promise<void> {
  const keepAlive = setInterval(() => {}, 1_000);
  try {
    await fn();
  } finally {
    clearInterval(keepAlive);
  }
}
