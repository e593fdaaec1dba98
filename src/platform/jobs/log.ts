/**
 * Log lines of background work (job handlers, sweepers), which runs outside any request and so
 * has no Fastify logger: one JSON object per line on stdout in pino's shape (numeric level,
 * time, pid, msg), like the API's own log, filtered by LOG_LEVEL.
 */
import type { Config } from '../../config.ts';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

export type JobLogger = Record<Level, (fields: Record<string, unknown>, msg: string) => void>;

/** Errors as pino serialises them (type, message, stack, code), causes included. */
export function serializeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const out: Record<string, unknown> = { type: err.name, message: err.message, stack: err.stack };
  const code = (err as { code?: unknown }).code;
  if (code !== undefined) out.code = code;
  if (err.cause !== undefined) out.cause = serializeError(err.cause);
  return out;
}

export function jobLogger(config: Pick<Config, 'logLevel'>, write: (line: string) => void = (l) => process.stdout.write(l)): JobLogger {
  const threshold = LEVELS[config.logLevel];
  const at = (level: Level) => (fields: Record<string, unknown>, msg: string) => {
    if (LEVELS[level] < threshold) return;
    const { err, ...rest } = fields;
    const line = { level: LEVELS[level], time: Date.now(), pid: process.pid, ...rest, ...(err === undefined ? {} : { err: serializeError(err) }), msg };
    write(`${JSON.stringify(line)}\n`);
  };
  return { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal') };
}
