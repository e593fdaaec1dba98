/**
 * The server's log output: human-readable lines (pino-pretty) when stdout is a terminal, JSON
 * lines otherwise (files, pipes, log collectors). Secrets are redacted before either format sees
 * a line: pino applies `redact` when it serializes, and pino-pretty only formats what it gets.
 */
import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config.ts';

/** Paths of a log line that hold a secret; their values become `[redacted]`. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];
export const REDACTED = '[redacted]';

export type LogFormat = 'pretty' | 'json';

/** Pretty on a terminal, JSON anywhere else. */
export function logFormat(stream: { isTTY?: boolean } = process.stdout): LogFormat {
  return stream.isTTY ? 'pretty' : 'json';
}

/** Fastify's `logger` option for `config.logLevel` on `stream` (process.stdout). */
export async function loggerOptions(config: Pick<Config, 'logLevel'>, stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Promise<FastifyServerOptions['logger']> {
  if (config.logLevel === 'silent') return false;
  const base = { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: REDACTED } };
  if (logFormat(stream) === 'json') return stream === process.stdout ? base : { ...base, stream };
  // Formatted in this thread (no transport worker), so a line is on the terminal when the call returns.
  const { default: pretty } = await import('pino-pretty');
  return {
    ...base,
    stream: pretty({ destination: stream, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', colorize: Boolean(stream.isTTY) && process.env.NO_COLOR === undefined }),
  };
}
