/**
 * `mindprint serve`: the API process. On the embedded database it also runs the job worker,
 * so one command is a complete service.
 */
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { initModules } from './modules.ts';
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import { acquireLock, updateLockUrl } from '../platform/db/lock.ts';
import type { IssuedKey } from '../platform/auth/keys.ts';
import { bootstrapKey, openContext, type OpenContextOptions } from './open.ts';
import { STALE_TEMP_MS, sweepTempFiles } from '../platform/storage/local-store.ts';


export interface ServeOptions extends OpenContextOptions {
  /** Print a generated bootstrap key on stdout (the CLI does; tests read it from the result). */
  printBootstrapKey?: boolean;
  /**
   * The embedded database failed for good (a WASM runtime error), and the server has logged it
   * (and /healthz answers 503): what to do now. Default: stop and exit the process with status 1,
   * so a supervisor restarts it on the data last written. Tests pass their own to observe it.
   */
  onDatabaseFailure?: (err: Error) => void;
}

export interface RunningServer {
  app: FastifyInstance;
  ctx: Deps;
  url: string;
  /** The key created at first start, when one was created. */
  bootstrap: IssuedKey | null;
  stop(): Promise<void>;
}

/** The server could not listen: the message names the setting to change (PORT or HOST). */
export class ListenError extends Error {}

function listenError(err: unknown, config: Config): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ListenError(`Cannot listen on ${where}: port ${config.port} is already in use. Stop what uses it or set PORT to a free port.`);
    case 'EACCES':
      return new ListenError(`Cannot listen on ${where}: port ${config.port} needs privileges this process does not have. Set PORT to 1024 or above.`);
    case 'EADDRNOTAVAIL':
      return new ListenError(`Cannot listen on ${where}: ${config.host} is not an address of this machine. Set HOST to one of its addresses (127.0.0.1, 0.0.0.0, ::).`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new ListenError(`Cannot listen on ${where}: HOST "${config.host}" does not resolve to an address. Set HOST to an address of this machine (127.0.0.1, 0.0.0.0, ::).`);
  }
  return new ListenError(`Cannot listen on ${where} (PORT/HOST): ${(err as Error).message}`);
}

/**
 * Fails at once, with the ListenError naming HOST, when HOST does not resolve or is not an address
 * of this machine: a trial listen on a free port there, closed at once. Only then are the data
 * directory created and the database opened — seconds of work, and a directory left behind, that
 * a typo in HOST would otherwise cost before the real listen found it.
 */
async function checkHost(config: Config): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: config.host, port: 0 }, resolve);
    });
  } catch (err) {
    throw listenError(err, config);
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}

export async function serve(config: Config, opts: ServeOptions = {}): Promise<RunningServer> {
  await checkHost(config);
  const releaseLock = config.databaseUrl || opts.pgliteDump ? async () => {} : await acquireLock(config.dataDir, { role: 'serve' });
  let ctx: Awaited<ReturnType<typeof openContext>> | null = null;
  let app: FastifyInstance | null = null;
  let modules: Awaited<ReturnType<typeof initModules>> = [];
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= holdingEventLoop(async () => {
      await app?.close();
      await ctx?.close();
      for (const m of modules) await m.close?.();
      await releaseLock();
    }));
  let url: string;
  let swept: Awaited<ReturnType<typeof sweepTempFiles>> | null = null;
  let boot: Awaited<ReturnType<typeof bootstrapKey>>;
  try {
    ctx = await openContext(config, opts);
    watchDatabase(ctx, () => app, stop, opts.onDatabaseFailure);
    // Temp files of uploads a killed process left. On the embedded database this process holds
    // the data dir alone (the lock), so all of them; beside other processes, only dead ones.
    // Before listening: an upload that starts now must not lose its spool file to this sweep.
    swept = await sweepTempFiles(config.dataDir, { olderThanMs: config.databaseUrl ? STALE_TEMP_MS : 0, walkStore: !config.storageUrl });
    modules = await initModules(ctx);
    if (config.inProcessWorker) for (const m of modules) await m.startWorkers?.(ctx);
    app = await buildApp(ctx, { modules });
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (err) {
      throw listenError(err, config);
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    if (!config.databaseUrl && !opts.pgliteDump) await updateLockUrl(config.dataDir, url);
    // Only now, once the server is reachable, is a first-start key created and printed: a start
    // that fails earlier (port in use, bad HOST) leaves no key behind that nobody ever saw.
    boot = await bootstrapKey(ctx.db, config.bootstrapKey);
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  if (boot?.generated && opts.printBootstrapKey !== false) {
    // Printed once, on the terminal, never logged: this is the only time the secret is shown.
    process.stdout.write(
      `\nNo API key existed, so one was created for organization "default", user admin@localhost:\n\n  ${boot.issued.key}\n\n` +
        'Keep it: it is not shown again. Try: curl -H "Authorization: Bearer <key>" ' + `${url}${config.basePath}/minds\n\n`,
    );
  }
  app.log.info({ url: `${url}${config.basePath}`, database: ctx.database.kind, docs: `${url}/docs` }, 'Mindprint is serving');
  if (swept && swept.uploads + swept.digests + (swept.storeTemps ?? 0) > 0) app.log.info({ ...swept }, 'temp files of interrupted uploads and snapshot jobs removed at start');
  return { app, ctx, url, bootstrap: boot?.issued ?? null, stop };
}

/**
 * When the database fails for good (only the embedded one can), the process cannot serve any
 * more: /healthz already answers 503; say so in the log, stop (requests in flight get 503s), and
 * exit non-zero — never an endless stream of errors from a process that looks alive.
 */
function watchDatabase(ctx: Deps, app: () => FastifyInstance | null, stop: () => Promise<void>, onFailure?: (err: Error) => void): void {
  ctx.database.onFailure((err) => {
    const log = app()?.log;
    const message = 'the embedded database failed and cannot run queries any more: stopping; restart the service (the data written before the failure is kept)';
    if (log) log.fatal({ err: err.message }, message);
    else process.stderr.write(`${message}: ${err.message}\n`);
    if (onFailure) return onFailure(err);
    // Stopping must not hang on a database that cannot answer: exit after 5 s whatever happens.
    const exit = () => process.exit(1);
    setTimeout(exit, 5_000).unref();
    void stop().catch(() => {}).finally(exit);
  });
}

/** `mindprint worker`: the job workers of every module, without HTTP. */
export async function runWorker(config: Config): Promise<{ ctx: Deps; stop(): Promise<void> }> {
  const ctx = await openContext(config, { readCaches: false });
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
