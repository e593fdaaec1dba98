/**
 * How the route schemas become the OpenAPI document (issue 10's machine-checkable contract),
 * applied by @fastify/swagger's `transform` and `transformObject` in app.ts. Documentation only:
 * validation and serialization keep using the route schemas as they are.
 *
 * - Named schemas: a TypeBox object registered with `named('Mind', …)` (./schemas.ts) appears once
 *   under `components.schemas.Mind`, and every place a route schema holds that very object (by
 *   identity, so two look-alike schemas are never merged by accident) becomes a `$ref` to it.
 * - Error answers: the shared error body is `components.schemas.Error`, each status with its
 *   own description and headers (Retry-After on 429/503, RateLimit-* on 429, WWW-Authenticate on 401).
 * - Statuses the framework layer answers for every operation of the API: 414 for a path
 *   parameter over the router's limit, 413/415 for a body that is too large or not JSON on any
 *   operation that is not a GET (Fastify reads a body on those, even on DELETE).
 * - Request bodies that no validator reads (multipart snapshot uploads, raw signed uploads) are
 *   declared with `requestBodyDoc` in the route schema.
 */
import type { TSchema } from 'typebox';
import { ErrorResponse, nullableBase, schemaName } from './schemas.ts';

declare module 'fastify' {
  interface FastifySchema {
    /** The request body as the document shows it, for routes whose body no schema validates (multipart, raw uploads). */
    requestBodyDoc?: { description?: string; content: Record<string, { schema: TSchema | Record<string, unknown> }> };
    /** Servers of this operation, when it is not under the document's base path. */
    servers?: readonly { url: string; description?: string }[];
  }
}

export const COMPONENT_PREFIX = '#/components/schemas/';

/** Keywords whose value maps names to schemas: their keys are names, never keywords. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data, not a schema: copied as they are. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples', 'required']);

/**
 * A deep copy of a schema in which every named subschema is a `$ref` (its name added to `used`),
 * and `const` is an `enum` of one (as @fastify/swagger writes it elsewhere in the document, for
 * swagger-ui). `root` is never replaced: it is the component being written.
 */
export function refSchema(node: unknown, used: Set<string>, root?: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => refSchema(n, used));
  if (node === null || typeof node !== 'object') return node;
  const name = node === root ? undefined : schemaName(node);
  if (name) {
    used.add(name);
    return { $ref: COMPONENT_PREFIX + name };
  }
  const baseName = node === root ? undefined : schemaName(nullableBase(node));
  if (baseName) {
    used.add(baseName);
    return { anyOf: [{ $ref: COMPONENT_PREFIX + baseName }, { type: 'null' }] };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'const') out.enum = [value];
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, refSchema(v, used)]));
    } else out[key] = refSchema(value, used);
  }
  return literalUnionAsEnum(out);
}

/** TypeBox's union of literals (`anyOf` of one-value enums of one type) as one `enum`: what clients and generators expect. */
function literalUnionAsEnum(schema: Record<string, unknown>): Record<string, unknown> {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length === 0) return schema;
  const type = (members[0] as { type?: unknown }).type;
  const literal = (m: Record<string, unknown>) => typeof m.type === 'string' && m.type === type && Array.isArray(m.enum) && m.enum.length === 1 && Object.keys(m).every((k) => k === 'type' || k === 'enum');
  if (!members.every(literal)) return schema;
  const { anyOf: _anyOf, ...rest } = schema;
  return { ...rest, type, enum: members.map((m) => (m as { enum: unknown[] }).enum[0]) };
}

const TEXT_HEADER = (description: string) => ({ type: 'string', description });
const SECONDS_HEADER = (description: string) => ({ type: 'integer', minimum: 0, description });

/** What each error status means, and the headers that come with it. */
const ERROR_STATUSES: Record<number, { description: string; headers?: Record<string, Record<string, unknown>> }> = {
  400: { description: 'VALIDATION_FAILED: a parameter or body field is invalid (the message names it, e.g. `body.name`), or the body is malformed' },
  401: {
    description: 'AUTH_FAILED: no API key, or a key that is unknown, revoked or expired',
    headers: { 'WWW-Authenticate': TEXT_HEADER('The RFC 6750 challenge: `Bearer realm="mindprint"`, with `error="invalid_token"` when a key was sent') },
  },
  403: { description: 'FORBIDDEN: the resource exists but is not yours to use (a simulation neither yours nor shared with you; a signed URL that is tampered with, expired or used)' },
  404: { description: "NOT_FOUND: no such resource in the caller's organization (another organization's resource answers 404 too)" },
  409: { description: 'CONFLICT: the resource is in a state that does not allow this now (the message says which)' },
  413: { description: 'PAYLOAD_TOO_LARGE: the body is over the limit (1 MB for JSON; MINDPRINT_MAX_UPLOAD_MB, default 50, for files)' },
  408: { description: 'REQUEST_TIMEOUT: the request was not received in full within 120 seconds; the connection is closed' },
  414: { description: 'URI_TOO_LONG: a path parameter is longer than 4,096 characters' },
  415: { description: 'UNSUPPORTED_MEDIA_TYPE: the body is not `application/json` (snapshot uploads: `multipart/form-data`)' },
  429: {
    description: 'RATE_LIMITED: too many requests with this API key, or too many failed authentications from this client address; wait `Retry-After` seconds',
    headers: {
      'Retry-After': SECONDS_HEADER('Seconds until a request may be sent again'),
      'RateLimit-Limit': SECONDS_HEADER('Requests allowed in the window'),
      'RateLimit-Remaining': SECONDS_HEADER('Requests left in the window (0)'),
      'RateLimit-Reset': SECONDS_HEADER('Seconds until the window resets'),
    },
  },
  431: { description: "HEADERS_TOO_LARGE: the request line and headers together are over Node's 16 KB limit (a very long query string); the connection is closed" },
  502: { description: 'UPSTREAM_FAILED: the LLM provider failed; the body carries `engineCode`, `simulationId` and `messageId`' },
  503: {
    description: 'UNAVAILABLE: the database (or the file store) is unavailable for the moment; nothing was changed, send the same request again after `Retry-After` seconds',
    headers: { 'Retry-After': SECONDS_HEADER('Seconds to wait before sending the request again') },
  },
};

function errorResponse(status: number, used: Set<string>) {
  const meta = ERROR_STATUSES[status] ?? { description: 'Error' };
  used.add('Error');
  return { description: meta.description, ...(meta.headers ? { headers: meta.headers } : {}), content: { 'application/json': { schema: { $ref: COMPONENT_PREFIX + 'Error' } } } };
}

/** Statuses Fastify's own layer can answer for an operation under the API base path. */
function frameworkStatuses(method: string, path: string): number[] {
  const statuses = [];
  if (path.includes('{')) statuses.push(414);
  if (method !== 'GET' && method !== 'HEAD') statuses.push(413, 415);
  return statuses;
}

export interface DocumentOptions {
  method: string;
  /** The path as the document writes it. */
  path: string;
  /** Under the authenticated API base path (where the framework statuses apply). */
  underApi: boolean;
}

/**
 * The route schema as the document shows it: named schemas referenced, errors described, the
 * framework's statuses added, `requestBodyDoc` as the request body. `used` collects the names.
 */
export function documentRouteSchema(schema: Record<string, any>, opts: DocumentOptions, used: Set<string>): Record<string, any> {
  const { requestBodyDoc, ...out } = schema;
  if (out.body) out.body = refSchema(out.body, used);
  if (requestBodyDoc) {
    out.body = { content: Object.fromEntries(Object.entries(requestBodyDoc.content as Record<string, { schema: unknown }>).map(([type, media]) => [type, { schema: refSchema(media.schema, used) }])) };
    if (requestBodyDoc.description) out.body.description = requestBodyDoc.description;
  }
  if (out.response) {
    const responses: Record<string, unknown> = {};
    // Node's HTTP parser answers 408 and 431 for any request, before it reaches a route (./errors.ts, clientErrorHandler).
    const extra = [...(opts.underApi ? frameworkStatuses(opts.method, opts.path) : []), 408, 431];
    const statuses = [...new Set([...Object.keys(out.response).map(Number), ...extra])].sort((a, b) => a - b);
    for (const status of statuses) {
      const r = out.response[status];
      if (r === undefined || r === ErrorResponse) responses[status] = errorResponse(status, used);
      else if (r.content) {
        responses[status] = { ...r, content: Object.fromEntries(Object.entries(r.content as Record<string, { schema: unknown }>).map(([type, media]) => [type, { ...media, schema: refSchema(media.schema, used) }])) };
      } else {
        const documented = refSchema(r, used) as Record<string, unknown>;
        responses[status] = { description: typeof r.description === 'string' ? r.description : 'OK', content: { 'application/json': { schema: documented } } };
      }
    }
    out.response = responses;
  }
  return out;
}

/**
 * `components.schemas` for the names used, and for the names those use in turn (Mind → Tag).
 * Written by name order, so the document is the same from run to run.
 */
export function componentSchemas(used: Set<string>, schemasByName: ReadonlyMap<string, TSchema>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const pending = [...used];
  while (pending.length) {
    const name = pending.pop()!;
    if (out[name]) continue;
    const schema = schemasByName.get(name);
    if (!schema) throw new Error(`OpenAPI: no schema is named ${name}`);
    const inner = new Set<string>();
    out[name] = refSchema(schema, inner, schema);
    for (const n of inner) if (!out[n]) pending.push(n);
  }
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}
