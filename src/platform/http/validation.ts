/**
 * Validation compilers. JSON bodies are validated strictly (no type coercion: a number where a
 * string is required is a 400), while path and query strings are coerced, since they are text.
 *
 * Every part is also checked for the NUL character: PostgreSQL cannot store it in text or jsonb
 * (it would fail deep in a query as a 500), so it is refused here, naming the field, for every
 * route at once. And a missing body is an empty object when the body schema requires nothing.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(options: Options) {
  const ajv = new Ajv({ allErrors: false, removeAdditional: false, useDefaults: true, strict: false, ...options });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  // OpenAPI annotations that Ajv does not know.
  ajv.addKeyword('example');
  return ajv;
}

const strict = makeAjv({ coerceTypes: false });
const coercing = makeAjv({ coerceTypes: 'array' });

/** The JSON-pointer path of the first string (value or object key) holding a NUL character, or null. */
export function findNul(value: unknown): { path: string; inKey: boolean } | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { path, inKey: false };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (const k of keys) if (k.includes('\u0000')) return { path, inKey: true };
      for (let i = keys.length - 1; i >= 0; i--) stack.push([(v as Record<string, unknown>)[keys[i]!], `${path}/${keys[i]!.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    }
  }
  return null;
}

const nulError = (nul: { path: string; inKey: boolean }): ErrorObject => ({
  keyword: 'nul',
  instancePath: nul.path,
  schemaPath: '#',
  params: {},
  message: nul.inKey ? 'must not have a key containing the NUL character (\\u0000)' : 'must not contain the NUL character (\\u0000)',
});

/** True for an object schema none of whose properties is required: an absent body means `{}`. */
const bodyMayBeEmpty = (schema: any) => schema?.type === 'object' && !(schema.required?.length > 0) && !(schema.minProperties > 0);

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strict : coercing).compile(schema);
  const defaultEmpty = httpPart === 'body' && bodyMayBeEmpty(schema);
  const wrapped = (data: unknown, ctx?: unknown): boolean | { value: unknown } => {
    if (defaultEmpty && (data === null || data === undefined)) {
      const empty = {};
      wrapped.errors = null;
      return validate(empty) ? { value: empty } : ((wrapped.errors = validate.errors ?? null), false);
    }
    const nul = findNul(data);
    if (nul) {
      wrapped.errors = [nulError(nul)];
      return false;
    }
    const ok = validate(data, ctx as any) as boolean;
    wrapped.errors = validate.errors ?? null;
    return ok;
  };
  wrapped.errors = null as ErrorObject[] | null | undefined;
  // Fastify passes the parent object to validators that have one, so Ajv can replace root values.
  (wrapped as any).schemaEnv = (validate as any).schemaEnv;
  return wrapped as any;
};
