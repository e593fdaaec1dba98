/**
 * Headers every response gets (hooked at the root, so the API's errors — a failed
 * authentication, an unknown route — get them too; the router's own errors and Node's, which no
 * hook sees, send ERROR_HEADERS themselves):
 *
 * - `X-Content-Type-Options: nosniff` on everything: a JSON error that echoes input, or an
 *   uploaded transcript, is never sniffed into HTML or script by a browser;
 * - `Cache-Control: no-store` unless the route chose its own caching (the dashboard's hashed
 *   assets are immutable, its pages `no-cache`): API answers are per key and change with every
 *   write, and must not be kept by a browser or a shared cache in front of the service.
 */
import type { FastifyInstance } from 'fastify';

/** The headers of an answer no route made (errors of the router and of Node's HTTP parser, ./errors.ts), which no hook sees. */
export const ERROR_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

export function registerResponseHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
