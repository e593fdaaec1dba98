/**
 * Mindprint's Model Context Protocol server: the tools an assistant uses to find minds, build one
 * from transcripts, read its profile and simulate what the person would say. One implementation
 * for both transports: the tools act through a MindprintClient, which over stdio talks to a
 * running Mindprint (MINDPRINT_URL, MINDPRINT_API_KEY) and over HTTP is bound to the caller
 * (./http.ts).
 *
 * This module and its imports stay light (the MCP SDK, zod, the HTTP client; no database, no
 * storage SDK): `mindprint mcp` must answer `initialize` well under a second.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MindprintClient } from '@mindprint/client';
import { VERSION } from '../../platform/version.ts';
import { McpConfigError, mcpSettingsFromEnv } from './env.ts';
import type { ToolContext } from './tools/define.ts';
import { registerMindTools } from './tools/minds.ts';
import { registerFidelityTool } from './tools/fidelity.ts';
import { registerProfileTool } from './tools/profile.ts';
import { registerSimulateTool } from './tools/simulate.ts';
import { registerSnapshotTools } from './tools/snapshots.ts';
import { registerUploadTools } from './tools/uploads.ts';

export { MCP_ENV_HELP, McpConfigError, mcpSettingsFromEnv, type McpSettings } from './env.ts';
export type { ToolContext } from './tools/define.ts';

/** Sent with `initialize`: how the tools fit together. */
const INSTRUCTIONS = `Mindprint holds "minds": profiles of real people built from transcripts of what they said, and simulates how a person would answer, quoting their own words.
Find a mind with get_all_minds or search_minds. Build one: create_mind, get_signed_upload_url, upload_file_to_signed_url (a local file) or upload_text_to_signed_url (text), create_snapshot, then get_snapshot_status until completed.
Read it with get_mind_profile and list_snapshots; a file that names no speakers is flagged (every voice in it counts as the mind), and set_snapshot_speaker picks another speaker of a file.
Ask it with simulate; pass the conversationId back to continue the conversation.`;

export function createMindprintMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer({ name: 'mindprint', title: 'Mindprint', version: VERSION }, { instructions: INSTRUCTIONS });
  registerMindTools(server, ctx);
  registerUploadTools(server, ctx);
  registerSnapshotTools(server, ctx);
  registerProfileTool(server, ctx);
  registerFidelityTool(server, ctx);
  registerSimulateTool(server, ctx);
  return server;
}

/**
 * `mindprint mcp`: serves the tools over stdio until stdin closes. A missing or bad setting does
 * not stop the server (the assistant would only see "Connection closed"): every tool answers
 * with what to set instead.
 */
export async function runMcpServer(env: NodeJS.ProcessEnv = process.env): Promise<McpServer> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  let client: MindprintClient | McpConfigError;
  try {
    const settings = mcpSettingsFromEnv(env);
    client = new MindprintClient({ baseUrl: settings.url, apiKey: settings.apiKey, basePath: settings.basePath });
  } catch (err) {
    if (!(err instanceof McpConfigError)) throw err;
    client = err;
  }
  const server = createMindprintMcpServer({
    client: () => {
      if (client instanceof McpConfigError) throw client;
      return client;
    },
    transport: 'stdio',
    issuedUploadUrls: new Set(),
  });
  await server.connect(new StdioServerTransport());
  // The client closing our stdin ends the session: close the server and let the process exit.
  process.stdin.once('end', () => void server.close());
  // stdout carries the protocol: anything else goes to stderr.
  process.stderr.write(
    client instanceof McpConfigError
      ? `mindprint mcp: not configured (${client.message}); every tool will say so until it is set\n`
      : `mindprint mcp: serving tools over stdio for ${client.baseUrl}\n`,
  );
  return server;
}
