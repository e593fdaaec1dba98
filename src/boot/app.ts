/**
 * Builds the Fastify app from the modules: schemas and validation, error handling, OpenAPI,
 * health probes, and the authenticated API under the base path. Listening is the caller's job.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Deps, Module } from '../deps.ts';
import { registerCors } from '../platform/http/cors.ts';
import { clientErrorHandler, frameworkErrors, MAX_PATH_PARAM_LENGTH, registerErrorHandling } from '../platform/http/errors.ts';
import { jsonBodyParser } from '../platform/http/json-body.ts';
import { componentSchemas, documentRouteSchema } from '../platform/http/openapi.ts';
import { documentPath, operationIdFor } from '../platform/http/operation-ids.ts';
import { namedSchemas } from '../platform/http/schemas.ts';
import { registerRateLimits } from '../platform/http/rate-limit.ts';
import { registerResponseHeaders } from '../platform/http/response-headers.ts';
import { registerUrlChecks } from '../platform/http/url-encoding.ts';
import { validatorCompiler } from '../platform/http/validation.ts';
import { loggerOptions } from './logging.ts';
import { VERSION } from '../platform/version.ts';

export interface AppOptions {
  /** Feature modules: their routes go under the authenticated base path, public routes at the root. */
  modules?: Module[];
  logger?: boolean;
}

/** "/api/svc/minds/:mindId" → "GET /minds/{mindId}": the operation name usage is counted under. */
function operationName(method: string, routeUrl: string | undefined, basePath: string): string {
  const path = (routeUrl ?? 'unknown').replace(basePath, '').replace(/:(\w+)/g, '{$1}') || '/';
  return `${method} ${path}`;
}

export async function buildApp(ctx: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const app = Fastify({
    // JSON lines, or readable ones on a terminal (./logging.ts); secrets redacted in both.
    logger: opts.logger === false ? false : await loggerOptions(config),
    bodyLimit: 1024 * 1024,
    // Signed upload tokens travel in the path; a longer parameter is a 414 URI_TOO_LONG.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors,
    // Errors of Node's HTTP parser (headers over its limit: 431) answer with our JSON error too.
    clientErrorHandler,
    // The client address (rate limits on failed authentication) behind proxies: MINDPRINT_TRUST_PROXY.
    // (A number is a hop count, which Fastify takes though its types do not say so.)
    trustProxy: config.trustProxy as boolean,
    // Long simulations stream for a while; a stuck client must not hold a socket forever.
    requestTimeout: 120_000,
    // Start-up compiles the OpenAPI document and its UI; on a busy machine that outlasts Fastify's
    // 10 s default, and a slow start is better than one that gives up.
    pluginTimeout: 120_000,
    ajv: { customOptions: { coerceTypes: false } },
    // Per-request log lines only when debugging: at info they would cost more than the request.
    logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandling(app);
  registerResponseHeaders(app);
  registerUrlChecks(app);
  // Browser pages on other origins (MINDPRINT_CORS_ORIGINS; off by default): preflights answered before authentication.
  await registerCors(app, config);

  await registerApiDocument(app, config);
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  app.get(`${config.basePath}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
  registerProbes(app, ctx);

  // Before any authenticated route: /mcp (a public module) shares the API's failed-key limit.
  const limits = await registerRateLimits(app, ctx);
  for (const m of opts.modules ?? []) if (m.publicRoutes) await app.register(m.publicRoutes, { deps: ctx });

  await app.register(
    async (api) => {
      // The API takes JSON (and multipart uploads, registered by the snapshots module): without
      // this, Fastify's built-in text/plain parser would hand a string to the JSON schemas (400
      // instead of 415). Signed uploads are outside this scope, with their own raw parser.
      api.removeContentTypeParser('text/plain');
      api.removeContentTypeParser('application/json');
      api.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonBodyParser(app));
      await limits.limitKeys(api);
      api.addHook('onRequest', async (req) => {
        req.caller = await limits.authenticate(req);
      });
      // Any write may change minds (their tags, counts, …): drop the organization's cached minds
      // before the response leaves, so the client's next read cannot see the old state.
      api.addHook('onSend', async (req, _reply, payload) => {
        if (req.method !== 'GET' && req.method !== 'HEAD' && req.caller) ctx.mindCache?.invalidate(req.caller.organizationId);
        return payload;
      });
      api.addHook('onResponse', async (req, reply) => {
        if (req.caller) ctx.usage.record(req.caller.apiKeyId, operationName(req.method, req.routeOptions.url, config.basePath), reply.statusCode, reply.elapsedTime);
      });
      // Each module's routes in a scope of their own, in the order of boot/modules.ts.
      for (const m of opts.modules ?? []) if (m.routes) await api.register(m.routes, { deps: ctx });
      // Unknown routes under the base path still need a key: no probing the API without one.
      api.setNotFoundHandler(async (req, reply) => {
        req.caller = await limits.authenticate(req);
        return reply.status(404).send({ error: 'Not Found', message: `No route ${req.method} ${req.url.split('?')[0]}`, code: 'NOT_FOUND' });
      });
    },
    { prefix: config.basePath },
  );
  return app;
}

/**
 * The OpenAPI document: built from the routes' TypeBox schemas as they register, with paths relative
 * to the base path, an operationId on every operation and the shared schemas as named components.
 */
async function registerApiDocument(app: FastifyInstance, config: Deps['config']): Promise<void> {
  // Names of the component schemas the operations refer to (./http/openapi.ts), filled as the document is built.
  const usedSchemas = new Set<string>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mindprint — Mind Simulation Service API',
        version: VERSION,
        description:
          'Minds, memory bank snapshots built from transcripts, and simulations grounded in what the person really said. ' +
          'Every endpoint under the base path needs `Authorization: Bearer <API key>`. Errors are JSON `{error, message, code}` (the `Error` schema); ' +
          'every status an operation can answer is listed with it. Rate limits answer 429 with `Retry-After`; a database outage answers 503 with `Retry-After`. ' +
          'Browser pages on other origins may call the API when the server lists them in `MINDPRINT_CORS_ORIGINS` (CORS is off by default); preflights need no key.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: config.basePath }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: mp_…' } } },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'Minds', description: 'Profiles of people: name, contact, social media, tags, and counts of what was learnt about them' },
        { name: 'Tags', description: "Labels on minds, unique per organization without regard to case" },
        { name: 'Snapshots', description: 'Memory bank snapshots: a transcript uploaded for a mind and processed in the background' },
        { name: 'Analysis', description: 'What the snapshots say about a mind: psychometrics, topics, findings, the profile, the semantic index' },
        { name: 'Simulations', description: 'Conversations with a mind, answered from what the person really said' },
        { name: 'Users', description: "The caller's organization's users" },
        { name: 'API keys', description: "The calling user's API keys" },
        { name: 'Usage', description: 'Requests and latencies of the calling key' },
        { name: 'Webhooks', description: "Endpoints the organization's events are POSTed to, signed per Standard Webhooks, and their deliveries" },
      ],
    },
    // Paths in the document are relative to the server URL (the base path); every operation gets
    // its operationId (./http/operation-ids.ts), and its schemas refer to the named components.
    transform: ({ schema, url, route }) => {
      const underApi = url.startsWith(config.basePath);
      const path = underApi ? url.slice(config.basePath.length) || '/' : url;
      const method = Array.isArray(route.method) ? route.method[0]! : route.method;
      if (!schema || (schema as { hide?: boolean }).hide) return { schema, url: path };
      const operationId = (schema as { operationId?: string }).operationId ?? operationIdFor(method, path);
      const documented = documentRouteSchema(schema as Record<string, unknown>, { method, path: documentPath(path), underApi }, usedSchemas);
      return { schema: (operationId ? { ...documented, operationId } : documented) as any, url: path };
    },
    transformObject: (documentObject) => {
      const { openapiObject } = documentObject as { openapiObject: { components?: { schemas?: Record<string, unknown> } } };
      openapiObject.components = { ...openapiObject.components, schemas: { ...openapiObject.components?.schemas, ...componentSchemas(usedSchemas, namedSchemas()) } };
      return openapiObject as any;
    },
  });
}

/** The health probes, outside the API and without a key (orchestrators call them). */
function registerProbes(app: FastifyInstance, ctx: Deps): void {
  // Liveness: fails once the embedded database has failed for good (the process then exits, or
  // its supervisor restarts it on this answer); a PostgreSQL outage passes and is /readyz's business.
  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) => {
    const failure = ctx.database.failure();
    if (failure) return reply.status(503).send({ status: 'failed', database: ctx.database.kind, reason: failure.message });
    return { status: 'ok' };
  });
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await ctx.db.execute(sql`select 1`);
      return { status: 'ready', database: ctx.database.kind };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: ctx.database.kind });
    }
  });
}
