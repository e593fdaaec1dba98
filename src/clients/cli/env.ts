/**
 * The client subcommands (`upload`, `ask`) talk to a running Mindprint over HTTP, configured by
 * the same variables as `mindprint mcp` (parsed by ../mcp/env.ts), and report failures as one
 * clear line: the service's status, code and message, or why it could not be reached.
 */
import { MindprintApiError, MindprintClient, MindprintConnectionError, type MindprintClientOptions } from '@mindprint/client';
import { McpConfigError, mcpSettingsFromEnv } from '../mcp/env.ts';

export const CLIENT_ENV_HELP = `Environment (--url and --key take precedence):
  MINDPRINT_URL       the Mindprint service (default http://127.0.0.1:3000; the base path /api/svc is
                      added unless the URL already ends with it; MINDPRINT_BASE_PATH overrides it)
  MINDPRINT_API_KEY   an API key (mp_…, from \`mindprint keys create\` or POST /api-keys); minds are
                      looked up in its organization
  NO_COLOR            set to any value to print no colours on a terminal`;

/** A failure to report as `mindprint: <message>` with exit code 1 (no stack trace). */
export class CliError extends Error {}

/** A client for the service named by the environment; a missing or bad setting is a CliError. */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env, fetchImpl?: MindprintClientOptions['fetch']): MindprintClient {
  try {
    const settings = mcpSettingsFromEnv(env);
    return new MindprintClient({ baseUrl: settings.url, apiKey: settings.apiKey, basePath: settings.basePath, fetch: fetchImpl });
  } catch (err) {
    if (err instanceof McpConfigError) throw new CliError(err.message);
    throw err;
  }
}

/** One line saying what went wrong: the API's answer, or why the service is unreachable. */
export function describeError(err: unknown, baseUrl: string): string {
  if (err instanceof MindprintApiError) {
    const hint = err.code === 'AUTH_FAILED' ? ' (check --key or MINDPRINT_API_KEY)' : '';
    return `${err.status} ${err.code}: ${err.message}${hint}`;
  }
  if (err instanceof MindprintConnectionError) return `could not reach Mindprint at ${baseUrl}: ${err.reason} (is it running, and --url or MINDPRINT_URL right?)`;
  return err instanceof Error ? err.message : String(err);
}

/** Whether to colour output written to `stream`. */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

export { UUID_RE } from '../../lib/uuid.ts';
