/**
 * Settings of `mindprint mcp`, kept apart from the MCP SDK so the CLI can show its help and
 * check the environment without loading the server.
 */
/** The `mindprint mcp` command's description (for its --help). */
export const MCP_DESCRIPTION =
  'Serve a Model Context Protocol server over stdio for AI assistants, backed by a running Mindprint over HTTP: find, build, read and ask minds ' +
  '(get_all_minds, search_minds, create_mind, get_signed_upload_url, upload_file_to_signed_url, create_snapshot, get_snapshot_status, list_snapshots, ' +
  'get_mind_profile, simulate, …). A missing setting or an unreachable server is reported by every tool. Remote assistants use POST /mcp on the server instead.';

/** The service the client commands and `mindprint mcp` use when neither --url nor MINDPRINT_URL names one. */
export const DEFAULT_MINDPRINT_URL = 'http://127.0.0.1:3000';

export const MCP_ENV_HELP = `Environment (--url and --key take precedence):
  MINDPRINT_URL       the Mindprint service (default ${DEFAULT_MINDPRINT_URL}; the base path /api/svc is
                      added unless the URL already ends with it; MINDPRINT_BASE_PATH overrides it)
  MINDPRINT_API_KEY   an API key (mp_…) of the organization whose minds the assistant may use`;

export class McpConfigError extends Error {}

export interface McpSettings {
  url: string;
  apiKey: string;
  basePath?: string;
}

export function mcpSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): McpSettings {
  const url = env.MINDPRINT_URL?.trim() || DEFAULT_MINDPRINT_URL;
  const apiKey = env.MINDPRINT_API_KEY?.trim();
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new McpConfigError(`the Mindprint URL (--url or MINDPRINT_URL) must be an http(s) URL, got "${url}"`);
  }
  if (!apiKey) throw new McpConfigError('MINDPRINT_API_KEY is not set (or pass --key; create a key with `mindprint keys create` or POST /api-keys)');
  return { url, apiKey, basePath: env.MINDPRINT_BASE_PATH?.trim() || undefined };
}

