/**
 * The API's JSON body parser. Fastify's default parser refuses `__proto__` and
 * `constructor.prototype` keys (prototype pollution) with the same "not valid JSON" error as a
 * syntax error; that misleads a client whose JSON is fine. When the default parser refuses a body
 * that is valid JSON, this says which key was refused and why.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';

type Done = (err: Error | null, body?: unknown) => void;

/** Where in `value` a key that could pollute prototypes sits ("body.socialMedia.__proto__"), if anywhere. */
export function forbiddenKeyPath(value: unknown, path = 'body'): string | null {
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') return `${path}.__proto__`;
    if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return `${path}.constructor.prototype`;
    const found = forbiddenKeyPath(child, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/** A content-type parser for application/json: an empty body is no body; forbidden keys are named. */
export function jsonBodyParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (req: FastifyRequest, body: string | Buffer, done: Done) => {
    // An empty JSON body is no body (curl -X POST with only a content-type, a DELETE from a client
    // that always sends one): routes whose body is all optional accept it, others answer 400.
    if (body === '') return done(null, undefined);
    parseJson(req, body as string, (err, value) => {
      if (!err) return done(null, value);
      const field = forbiddenKeyPath(parseOrNull(body as string));
      if (!field) return done(err);
      done(new AppError('VALIDATION_FAILED', `${field} is refused: "__proto__" and "constructor.prototype" keys are not accepted in JSON bodies`, { field }));
    });
  };
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
