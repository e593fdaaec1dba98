/** Schema pieces shared by every resource: ids, timestamps, nullability, error bodies. */
import { Type, type Static, type TSchema } from 'typebox';

/** Schemas by OpenAPI component name, and names by schema object (./openapi.ts). */
const byName = new Map<string, TSchema>();
const names = new WeakMap<object, string>();

/**
 * Names a schema for the OpenAPI document: it is written once as `components.schemas.<name>`,
 * and every route schema that holds this very object refers to it with `$ref`. Returns the
 * schema unchanged (validation, serialization and types do not see the name).
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  const existing = byName.get(name);
  if (existing && existing !== schema) throw new Error(`Two schemas are named ${name} in the OpenAPI document`);
  byName.set(name, schema);
  names.set(schema, name);
  return schema;
}

/** The component name of a schema object, if it has one. */
export const schemaName = (schema: unknown): string | undefined => (schema !== null && typeof schema === 'object' ? names.get(schema) : undefined);

/** Every named schema, by name. */
export const namedSchemas = (): ReadonlyMap<string, TSchema> => byName;

/** The schema a `Nullable` copy was made from: the document shows a nullable named schema as `$ref` or null. */
const nullableOf = new WeakMap<object, TSchema>();
export const nullableBase = (schema: unknown): TSchema | undefined => (schema !== null && typeof schema === 'object' ? nullableOf.get(schema) : undefined);

/**
 * `T | null` as a JSON-schema type array (`type: ['string', 'null']`) rather than `anyOf`: the
 * response serializer then writes the value directly instead of running a validator per field
 * to pick a branch, which was a measurable share of list responses.
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const s = schema as TSchema & { type?: unknown; enum?: unknown[] };
  if (typeof s.type !== 'string') return Type.Union([schema, Type.Null()]);
  const nullable: Record<string, unknown> = { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.enum)) nullable.enum = [...s.enum, null];
  const result = Type.Unsafe<Static<T> | null>(nullable);
  nullableOf.set(result, schema);
  return result;
};


/** Messages for `pattern`s whose regular expression would tell a client little (./errors.ts words the 400 with them). */
const patternMessages = new Map<string, string>();

/** A `pattern` whose failure reads `<field> <message>` rather than `must match pattern "…"`. */
export function describedPattern(pattern: string, message: string): string {
  patternMessages.set(pattern, message);
  return pattern;
}

export const patternMessage = (pattern: unknown): string | undefined => (typeof pattern === 'string' ? patternMessages.get(pattern) : undefined);

export const Uuid = Type.String({ format: 'uuid', example: '6f1c2a8e-8d4b-4c1e-9a53-2f0a4f1e7c11' });
export const Timestamp = Type.String({ format: 'date-time', example: '2026-11-22T13:00:00.000Z' });

export const ErrorResponse = named('Error', Type.Object(
  {
    error: Type.String({ description: 'Short human-readable error title', example: 'Bad Request' }),
    message: Type.String({ description: 'What went wrong; for 400 it names the field', example: 'body.name must NOT have fewer than 1 characters' }),
    code: Type.String({
      description: 'Machine-readable code',
      enum: ['VALIDATION_FAILED', 'AUTH_FAILED', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'URI_TOO_LONG', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE', 'RATE_LIMITED', 'UPSTREAM_FAILED', 'UNAVAILABLE', 'INTERNAL'],
      example: 'VALIDATION_FAILED',
    }),
  },
  { additionalProperties: true, description: 'Every error answer: `{error, message, code}`, plus fields some errors add (`field`, `retryAfterSeconds`, `engineCode`, …)' },
));

/**
 * Error responses every authenticated route can give, merged into each route's `response`:
 * 400, 401, 429 (rate limits) and 503 (the database unavailable), plus the route's own.
 */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries([400, 401, ...statuses, 429, 503].sort((a, b) => a - b).map((s) => [s, ErrorResponse]));

export const SuccessResponse = named('Success', Type.Object({ success: Type.Boolean({ example: true }) }));

export const iso = (d: Date | string | null | undefined): string | null =>
  d === null || d === undefined ? null : (d instanceof Date ? d : new Date(d)).toISOString();
