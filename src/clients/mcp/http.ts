/**
 * The MCP tools over Streamable HTTP at /mcp, for remote assistants, authenticated with the same
 * Bearer API keys and failed-key limit as the API (a missing or revoked key is the API's 401
 * JSON), and refusing browser pages from foreign origins (checkOrigin).
 *
 * Stateless: every POST gets a fresh MCP server and transport and answers with JSON, so no
 * session lives in a process and any replica can serve any request behind a plain load balancer
 * (no sticky sessions, nothing lost on a restart). The tools keep no state between calls anyway:
 * a conversation continues through its conversationId, stored in the database. GET (a stream of
 * server-initiated messages) and DELETE (ending a session) have nothing to serve: 405.
 *
 * The tools are the stdio server's, acting through a MindprintClient bound to the caller: it sends
 * the request's own API key into this app in-process (./inject-fetch.ts), so each tool call is
 * exactly the API call a remote client would make, with the caller's organization.
 *
 * The MCP SDK is loaded on the first /mcp request, not when the API starts.
 */
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { forbidden } from '../../platform/errors.ts';

/** JSON-RPC bodies; a transcript sent as text (upload_text_to_signed_url) is the largest. */
export const MCP_BODY_LIMIT = 8 * 1024 * 1024;

const FORWARDED = ['host', 'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'user-agent'];

const loadMcp = (() => {
  let loading: Promise<[typeof import('./server.ts'), typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), typeof import('@mindprint/client'), typeof import('./inject-fetch.ts')]> | null = null;
  return () =>
    (loading ??= Promise.all([import('./server.ts'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('@mindprint/client'), import('./inject-fetch.ts')]).catch((err: unknown) => {
      loading = null;
      throw err;
    }));
})();

/**
 * The Streamable HTTP transport requires the server to validate Origin (a page the user opened
 * must not drive the tools, DNS rebinding included). A request without Origin is not from a
 * browser page (assistants, the SDK client, curl) and goes on. One with Origin must be one of
 * MINDPRINT_CORS_ORIGINS or the server's own origin: MINDPRINT_PUBLIC_URL's when set; otherwise
 * the origin the request reached, but only at an IP address or localhost, since a DNS name can be
 * rebound to this server by whoever owns it.
 *
 * The SDK's own check (allowedOrigins, enableDnsRebindingProtection) runs after our
 * authentication, on POST only, and answers a JSON-RPC body: not our 403 {error, code}.
 */
export function checkOrigin(req: FastifyRequest, config: Pick<Config, 'corsOrigins' | 'publicUrl'>): void {
  const origin = req.headers.origin;
  if (origin === undefined || config.corsOrigins.includes(origin)) return;
  const own = ownOrigin(req, config.publicUrl);
  if (own !== null && origin.toLowerCase() === own.toLowerCase()) return;
  throw forbidden(
    `Origin "${origin.slice(0, 200)}" may not call /mcp: only the server's own origin${config.publicUrl ? ` (${own})` : ''} and those in MINDPRINT_CORS_ORIGINS may`,
  );
}

/** The server's own origin for `req`, or null when it cannot be told from a rebound name. */
function ownOrigin(req: FastifyRequest, publicUrl: string | null): string | null {
  if (publicUrl) return new URL(publicUrl).origin;
  const host = req.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) || host === 'localhost' ? `${req.protocol}://${req.host}` : null;
}

const methodNotAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
  reply
    .status(405)
    .header('allow', 'POST')
    .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.' }, id: null });

export const mcpRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // The MCP transport reads the JSON-RPC body itself, so malformed JSON or a wrong content type
  // gets the protocol's own error (-32700, 415) rather than an API error.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT }, (_req, body, done) => done(null, body));
  app.addHook('onRequest', async (req) => {
    // Before the key: a page on a foreign origin is refused whatever it sends, and counts for nothing.
    checkOrigin(req, deps.config);
    // The API's authentication step, failed-key limit included: /mcp is no side door for guessing keys.
    req.caller = await app.authenticateCaller(req);
  });

  app.post('/mcp', { schema: { hide: true }, bodyLimit: MCP_BODY_LIMIT }, async (req, reply) => {
    const [{ createMindprintMcpServer }, { WebStandardStreamableHTTPServerTransport }, { MindprintClient }, { injectFetch }] = await loadMcp();
    const publicBase = deps.config.publicUrl ?? `${req.protocol}://${req.headers.host}`;
    const forwarded: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = req.headers[name];
      if (typeof value === 'string') forwarded[name] = value;
    }
    const client = new MindprintClient({
      baseUrl: publicBase,
      basePath: deps.config.basePath,
      // The caller's own key (the hook above checked it): the tools act as the caller, in their organization.
      apiKey: /^Bearer\s+(\S+)/i.exec(req.headers.authorization!)![1]!,
      fetch: injectFetch(app, { publicBase, headers: forwarded, remoteAddress: req.ip }),
    });
    const server = createMindprintMcpServer({ client: () => client, transport: 'http', issuedUploadUrls: new Set() });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const res = await transport.handleRequest(new Request(new URL(req.url, publicBase), { method: 'POST', headers, body: typeof req.body === 'string' ? req.body : '' }));
      reply.status(res.status);
      res.headers.forEach((value, name) => void reply.header(name, value));
      return reply.send(res.body ? Buffer.from(await res.arrayBuffer()) : null);
    } finally {
      await server.close();
    }
  });
  app.get('/mcp', { schema: { hide: true } }, methodNotAllowed);
  app.delete('/mcp', { schema: { hide: true } }, methodNotAllowed);
};
