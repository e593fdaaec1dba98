/**
 * The API's JSON body parser. Before anything reaches a service or a database it refuses, naming
 * the problem:
 *
 * - bytes that are not UTF-8 (they would otherwise be decoded to U+FFFD and stored as such);
 * - bodies nested deeper than MAX_JSON_DEPTH objects/arrays, found by an iterative scan of the
 *   text before it is parsed (a deep body would otherwise overflow a recursive walk somewhere
 *   later: the validator, `JSON.stringify`, or the embedded database's jsonb parser, whose WASM
 *   stack overflow broke the database for every caller);
 * - strings and keys with an unpaired UTF-16 surrogate (`"\ud800"`), which PostgreSQL cannot
 *   store as jsonb or text: "body.scenario.message contains an unpaired UTF-16 surrogate";
 * - `__proto__` and `constructor.prototype` keys (prototype pollution). Fastify's default parser
 *   refuses those with the same "not valid JSON" error as a syntax error; that misleads a client
 *   whose JSON is fine, so the key is named.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.ts';

type Done = (err: Error | null, body?: unknown) => void;

/** Objects and arrays nested deeper than this are refused (`{"a":{"b":1}}` is 2 levels). */
export const MAX_JSON_DEPTH = 32;

/**
 * True when `text` nests objects/arrays deeper than `max`. An iterative scan of the raw text
 * (strings skipped, escapes honoured): no recursion, one pass, stops at the first level too deep.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: to the next quote that is not escaped.
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** String.prototype.isWellFormed (Node 20+; the TypeScript lib in use predates ES2024): no unpaired surrogate. */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** "body.a.0.b" for a path of keys and indexes. */
const dotted = (path: string, key: string | number) => `${path}.${key}`;

/**
 * Where in `value` (a parsed JSON body, already known to be shallow) a string or a key holds an
 * unpaired UTF-16 surrogate: `{ field, inKey }`, or null. Iterative, like the depth scan.
 */
export function findUnpairedSurrogate(value: unknown, root = 'body'): { field: string; inKey: boolean } | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!wellFormed(v)) return { field: path, inKey: false };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], dotted(path, i)]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (const k of keys) if (!wellFormed(k)) return { field: path, inKey: true };
      for (let i = keys.length - 1; i >= 0; i--) stack.push([(v as Record<string, unknown>)[keys[i]!], dotted(path, keys[i]!)]);
    }
  }
  return null;
}

/** A `\uD800`–`\uDFFF` escape: the only way a surrogate gets into parsed JSON (raw bytes are UTF-8). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Where in `value` a key that could pollute prototypes sits ("body.socialMedia.__proto__"), if anywhere. */
export function forbiddenKeyPath(value: unknown, root = 'body'): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const entries = Object.entries(v);
    for (const [key, child] of entries) {
      if (key === '__proto__') return `${path}.__proto__`;
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return `${path}.constructor.prototype`;
    }
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${path}.${entries[i]![0]}`]);
  }
  return null;
}

/** A content-type parser for application/json: an empty body is no body; depth, surrogates and forbidden keys are named. */
export function jsonBodyParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (req: FastifyRequest, body: string | Buffer, done: Done) => {
    // An empty JSON body is no body (curl -X POST with only a content-type, a DELETE from a client
    // that always sends one): routes whose body is all optional accept it, others answer 400.
    if (body.length === 0) return done(null, undefined);
    // Read as bytes (parseAs: 'buffer'): decoding them as a string would turn bytes that are not
    // UTF-8 into U+FFFD silently, and store that instead of what the client meant.
    if (typeof body !== 'string' && !isUtf8(body)) {
      return done(new DomainError('VALIDATION_FAILED', 'The JSON body is not valid UTF-8: send JSON encoded as UTF-8 (RFC 8259)', { field: 'body' }));
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new DomainError('VALIDATION_FAILED', `The JSON body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels; send a flatter body`, { field: 'body' }));
    }
    parseJson(req, text, (err, value) => {
      if (!err) {
        const bad = SURROGATE_ESCAPE.test(text) ? findUnpairedSurrogate(value) : null;
        if (!bad) return done(null, value);
        const message = bad.inKey
          ? `${bad.field} has a key that contains an unpaired UTF-16 surrogate (a lone \\ud800–\\udfff escape); send well-formed Unicode`
          : `${bad.field} contains an unpaired UTF-16 surrogate (a lone \\ud800–\\udfff escape); send well-formed Unicode`;
        return done(new DomainError('VALIDATION_FAILED', message, { field: bad.field }));
      }
      const field = forbiddenKeyPath(parseOrNull(text));
      if (!field) return done(err);
      done(new DomainError('VALIDATION_FAILED', `${field} is refused: "__proto__" and "constructor.prototype" keys are not accepted in JSON bodies`, { field }));
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
