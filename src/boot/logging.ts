/**
 * The server's log output: human-readable lines (pino-pretty) when stdout is a terminal, JSON
 * lines otherwise (files, pipes, log collectors). Secrets are redacted before either format sees
 * a line, at every level: pino runs the `log` formatter (censorSecrets) and applies `redact` when
 * it serializes, and pino-pretty only formats what it gets.
 */
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';

/**
 * Header names (any case) whose values are secrets: the API key (Authorization; X-Api-Key, which
 * clients and proxies may add), credentials of a proxy, cookies.
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie']);
/** Paths pino's own redaction censors after the serializers have run (theirs keep no headers, but a custom one might). */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]'];
export const REDACTED = '[redacted]';
/** Deeper than this a logged object is not searched (and a cyclic one ends). */
const MAX_DEPTH = 10;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `value` with every property named in SECRET_KEYS, at any depth of its plain objects and arrays,
 * replaced by `[redacted]`; copied only where something is censored, never changed in place (a
 * logged object may be the live request headers). Libraries log whatever they hold — at trace,
 * @fastify/multipart logs its busboy options, the request's headers among them — so the
 * censoring follows the names, not a list of paths. Instances of classes (a raw request, an
 * Error) are left to their serializers.
 *
 * Pino's wildcard redaction could name these too, but a path per name and depth cost some 80 µs a
 * line (measured, 30 paths) against about 1 µs for this walk.
 */
export function censorSecrets<T>(value: T, depth = 0): T {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item, i) => {
      const censored = censorSecrets(item, depth + 1);
      if (censored !== item) (copy ??= value.slice())[i] = censored;
    });
    return (copy ?? value) as T;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const item = value[key];
    const censored = item !== undefined && SECRET_KEYS.has(key.toLowerCase()) ? REDACTED : censorSecrets(item, depth + 1);
    if (censored !== item) (copy ??= { ...value })[key] = censored;
  }
  return (copy ?? value) as T;
}

export type LogFormat = 'pretty' | 'json';

/** Pretty on a terminal, JSON anywhere else. */
export function logFormat(stream: { isTTY?: boolean } = process.stdout): LogFormat {
  return stream.isTTY ? 'pretty' : 'json';
}

/** Fastify's `logger` option for `config.logLevel` on `stream` (process.stdout). */
export async function loggerOptions(config: Pick<Config, 'logLevel'>, stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Promise<FastifyServerOptions['logger']> {
  if (config.logLevel === 'silent') return false;
  const base = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    // Every level, every logger: what a line carries (log) and what a child logger binds to all of its lines (bindings).
    formatters: { log: censorSecrets, bindings: censorSecrets },
  };
  if (logFormat(stream) === 'json') return stream === process.stdout ? base : { ...base, stream };
  // Formatted in this thread (no transport worker), so a line is on the terminal when the call returns.
  const { default: pretty } = await import('pino-pretty');
  return {
    ...base,
    stream: pretty({ destination: stream, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', colorize: Boolean(stream.isTTY) && process.env.NO_COLOR === undefined }),
  };
}
