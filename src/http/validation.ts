/**
 * Validation compilers. JSON bodies are validated strictly (no type coercion: a number where a
 * string is required is a 400), while path and query strings are coerced, since they are text.
 */
import { Ajv, type Options } from 'ajv';
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

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  return ajv.compile(schema) as any;
};
