/**
 * Child process of outage.test.ts: serves on a fresh embedded database, then breaks the database
 * with a WASM trap (injected: test/support/pglite-crash.ts says why), so the test can watch the default reaction: a fatal
 * log line and exit status 1. Prints "ready <url>" once serving.
 */
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/boot/server.ts';
import { injectWasmTrap } from '../support/pglite-crash.ts';

const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', MINDPRINT_DATA_DIR: process.argv[2]!, LOG_LEVEL: 'error' });
const server = await serve(config, { printBootstrapKey: false });
process.stdout.write(`ready ${server.url}\n`);
injectWasmTrap(server.ctx.database);
await server.ctx.database.execute('select 1').catch((err: Error) => process.stdout.write(`query failed: ${err.message}\n`));
// The server now stops and exits on its own; if it did not, this would keep the process alive until the test times out.
setInterval(() => {}, 1_000);
