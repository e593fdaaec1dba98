/**
 * CORS (@fastify/cors) for browser pages on other origins that call the API or /mcp with a key:
 * off unless MINDPRINT_CORS_ORIGINS lists origins. Preflights are answered in the root's
 * onRequest hook, before any authentication, so a browser's OPTIONS never needs a key and never
 * counts against the failed-key limit (./rate-limit.ts).
 *
 * Keys travel in the Authorization header, never in cookies, so credentials stay off (no
 * Access-Control-Allow-Credentials) and only the listed origins are reflected.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';

/** Request headers a page may send: the key, JSON bodies, and the MCP Streamable HTTP transport's own. */
const ALLOWED_HEADERS = ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
/** Response headers a page may read: rate limits, the 401 challenge, downloads' names, MCP sessions. */
const EXPOSED_HEADERS = ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'www-authenticate', 'content-disposition', 'location', 'mcp-session-id'];

export async function registerCors(app: FastifyInstance, config: Pick<Config, 'corsOrigins'>): Promise<void> {
  if (config.corsOrigins.length === 0) return;
  await app.register(cors, {
    origin: config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    // A browser caches the preflight's answer this long (seconds): one OPTIONS per route and 10 minutes, not per call.
    maxAge: 600,
    // The plugin's strict mode answers a malformed preflight with a text/plain 400, outside our
    // error contract; without it such an OPTIONS simply gets the CORS headers (or none).
    strictPreflight: false,
  });
}
