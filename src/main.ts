/**
 * The `mindprint` command line: serve | worker | migrate | keys | mcp, and the HTTP client
 * commands upload | ask (./cli/).
 */
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.ts';
import type { Database } from './platform/db/client.ts';
import { connectionOptions, registerClientCommands, withConnectionEnv, type ConnectionOptions } from './clients/cli/index.ts';
import { MCP_DESCRIPTION, MCP_ENV_HELP, McpConfigError } from './clients/mcp/env.ts';
import { VERSION } from './platform/version.ts';

// Only what every start needs is imported above (commander, the settings, the help texts): the
// server, the database and the MCP SDK are loaded by the command that uses them, so `--help` and
// the HTTP client commands start in a fraction of a second.

function config(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

function fail(message: string): never {
  process.stderr.write(`mindprint: ${message}\n`);
  process.exit(1);
}

/** Errors whose message says what to change: printed alone, no stack trace, exit code 1. */
async function isExpected(err: unknown): Promise<boolean> {
  if (err instanceof ConfigError || err instanceof McpConfigError) return true;
  // The other kinds come from modules that are loaded by then when they threw.
  const [{ DatabaseUnavailableError }, { DataDirInUseError }, { ListenError }] = await Promise.all([import('./platform/db/client.ts'), import('./platform/db/lock.ts'), import('./boot/server.ts')]);
  return [DataDirInUseError, ListenError, DatabaseUnavailableError].some((E) => err instanceof E);
}

/**
 * Opens the database for a one-off command. On the embedded database the command holds the data
 * dir's lock while it runs: it refuses while a server holds it, waits while another command does,
 * and a server started meanwhile waits for it.
 */
async function withDatabase<T>(command: string, fn: (database: Database) => Promise<T>): Promise<T> {
  const cfg = config();
  const [{ acquireLock }, { migrate, openDatabase }] = await Promise.all([import('./platform/db/lock.ts'), import('./platform/db/client.ts')]);
  let release = async () => {};
  if (!cfg.databaseUrl) {
    release = await acquireLock(cfg.dataDir, { role: command });
  }
  try {
    const database = await openDatabase({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
    try {
      await migrate(database);
      return await fn(database);
    } finally {
      await database.close();
    }
  } finally {
    await release();
  }
}

const positiveInt = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number of days, at least 1');
  return Number(value);
};

const program = new Command()
  .name('mindprint')
  .description('Mindprint: a self-hostable Mind Simulation Service.\nSettings come from the environment: PORT, HOST, MINDPRINT_DATA_DIR, DATABASE_URL, MINDPRINT_BASE_PATH, LOG_LEVEL, MINDPRINT_BOOTSTRAP_KEY and more; docs/configuration.md in the Mindprint repository describes every one.')
  .version(VERSION);

program
  .command('serve')
  .description('Serve the API (and, on the embedded database, run the job worker in the same process).')
  .action(async () => {
    const { serve } = await import('./boot/server.ts');
    const server = await serve(config());
    const shutdown = (signal: string) => {
      server.app.log.info({ signal }, 'shutting down');
      server.stop().then(
        () => process.exit(0),
        (err) => {
          process.stderr.write(`mindprint: shutdown failed: ${String(err)}\n`);
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });

program
  .command('worker')
  .description('Run job workers only (snapshot processing, background simulations), beside `serve` processes started with MINDPRINT_IN_PROCESS_WORKER=false. Needs DATABASE_URL: on the embedded database the worker runs inside `serve`. SIGTERM stops taking jobs and lets the ones in flight finish.')
  .action(async () => {
    const cfg = config();
    if (!cfg.databaseUrl) fail('`mindprint worker` needs DATABASE_URL (PostgreSQL); on the embedded database, `mindprint serve` runs the worker itself.');
    const { runWorker } = await import('./boot/server.ts');
    const worker = await runWorker(cfg);
    const shutdown = (signal: string) => {
      process.stderr.write(`mindprint worker: ${signal}, finishing jobs in flight\n`);
      worker.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.stderr.write(`mindprint worker: started (pid ${process.pid})\n`);
  });

program
  .command('migrate')
  .description('Apply database migrations and exit (serve also applies them at start).')
  .action(async () => {
    await withDatabase('migrate', async (database) => {
      process.stdout.write(`Migrations applied (${database.kind}).\n`);
    });
  });

connectionOptions(
  program
    .command('mcp')
    .description(MCP_DESCRIPTION)
    .addHelpText('after', `\n${MCP_ENV_HELP}\n`),
).action(async (opts: ConnectionOptions) => {
  const { runMcpServer } = await import('./clients/mcp/server.ts');
  await runMcpServer(withConnectionEnv(opts));
});

registerClientCommands(program);

const keys = program.command('keys').description('Create, list and revoke API keys.');

keys
  .command('create')
  .description('Create an API key (and the organization and user when missing). The secret is printed once.')
  .requiredOption('--org <name>', 'organization name')
  .requiredOption('--user <email>', "the key owner's email")
  .option('--name <label>', 'a label for the key')
  .option('--expires-in-days <n>', 'expire the key after N days', positiveInt)
  .option('--json', 'print {"key","keyId","userId","organizationId"} as JSON')
  .action(async (opts: { org: string; user: string; name?: string; expiresInDays?: number; json?: boolean }) => {
    if (!opts.org.trim()) fail('--org must not be empty');
    if (!/^[^\s@]+@[^\s@]+$/.test(opts.user)) fail('--user must be an email address');
    const { createKeyFor } = await import('./platform/auth/keys.ts');
    const issued = await withDatabase('keys create', (d) => createKeyFor(d.db, { org: opts.org.trim(), user: opts.user, name: opts.name, expiresInDays: opts.expiresInDays }));
    if (opts.json) {
      process.stdout.write(JSON.stringify({ key: issued.key, keyId: issued.keyId, userId: issued.userId, organizationId: issued.organizationId }) + '\n');
    } else {
      process.stdout.write(
        `Created API key ${issued.keyId} for ${opts.user} in "${opts.org}"${issued.expiresAt ? `, expires ${issued.expiresAt.toISOString()}` : ''}.\n\n  ${issued.key}\n\nKeep it: it is not shown again.\n`,
      );
    }
  });

keys
  .command('list')
  .description('List API keys (never their secrets).')
  .option('--org <name>', 'only keys of this organization')
  .option('--json', 'print JSON')
  .action(async (opts: { org?: string; json?: boolean }) => {
    const { listKeysWithOrg } = await import('./platform/auth/keys.ts');
    const rows = await withDatabase('keys list', (d) => listKeysWithOrg(d.db, opts.org));
    if (opts.json) {
      process.stdout.write(JSON.stringify(rows) + '\n');
      return;
    }
    if (!rows.length) {
      process.stdout.write('No API keys.\n');
      return;
    }
    for (const k of rows) {
      const state = k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt < new Date() ? 'expired' : 'active';
      process.stdout.write(
        `${k.id}  ${k.prefix}…  ${state.padEnd(7)}  ${k.organization}  ${k.userEmail}  ${k.name ?? ''}  created ${k.createdAt.toISOString()}${k.lastUsedAt ? `  last used ${k.lastUsedAt.toISOString()}` : ''}\n`,
      );
    }
  });

keys
  .command('revoke')
  .description('Revoke an API key by id. Requests with it are refused from then on.')
  .argument('<keyId>', 'the key id (from `keys list`)')
  .action(async (keyId: string) => {
    if (!/^[0-9a-f-]{36}$/i.test(keyId)) fail('keyId must be a UUID (see `mindprint keys list`)');
    const { revokeKey } = await import('./platform/auth/keys.ts');
    const revoked = await withDatabase('keys revoke', (d) => revokeKey(d.db, keyId));
    if (!revoked) fail(`No API key ${keyId}`);
    process.stdout.write(`Revoked API key ${keyId}.\n`);
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (await isExpected(err)) fail((err as Error).message);
  throw err;
}
