/**
 * A Model Context Protocol server (stdio) that lets an assistant use a running Mindprint over
 * HTTP, through the typed SDK: find minds, read a mind's profile and snapshots, and simulate
 * what the person would say (with the quotes the answer rests on).
 *
 * Configured by MINDPRINT_URL (e.g. http://127.0.0.1:3000, or with the base path) and
 * MINDPRINT_API_KEY. stdout carries the protocol: anything else goes to stderr.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MindprintApiError, MindprintClient, type Mind, type SimulateResult, type Snapshot } from '@mindprint/client';
import { VERSION } from '../version.ts';
import { UUID_RE } from '../uuid.ts';
import { mcpSettingsFromEnv } from './env.ts';

export { MCP_ENV_HELP, McpConfigError, mcpSettingsFromEnv, type McpSettings } from './env.ts';

// The service's own uuid check (any version): ids pass through unchanged, a typo is a clear input error.
const uuid = (what: string) => z.string().regex(UUID_RE, 'must be a UUID').describe(what);

function text(body: string): CallToolResult {
  return { content: [{ type: 'text', text: body }] };
}

/** A tool failure the assistant can act on: the API's code and message, or why the service is unreachable. */
function toolError(err: unknown, baseUrl: string): CallToolResult {
  let message: string;
  if (err instanceof MindprintApiError) {
    const hint =
      err.code === 'NOT_FOUND' ? ' Check the id (list_minds or search_minds give mind ids, list_snapshots snapshot ids).' : err.code === 'AUTH_FAILED' ? ' Check MINDPRINT_API_KEY.' : '';
    message = `Mindprint answered ${err.status} ${err.code}: ${err.message}.${hint}`;
  } else if (err instanceof TypeError && /fetch failed/i.test(err.message)) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    message = `Could not reach Mindprint at ${baseUrl}: ${cause?.code ?? cause?.message ?? err.message}. Is the service running and MINDPRINT_URL right?`;
  } else {
    message = `Mindprint tool failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  return { isError: true, content: [{ type: 'text', text: message }] };
}

const mindSummary = (m: Mind) => ({
  id: m.id,
  name: m.name,
  email: m.email,
  tags: m.tags.map((t) => t.name),
  snapshotCount: m.snapshotCount,
  createdAt: m.createdAt,
});

const snapshotSummary = (s: Snapshot) => ({
  id: s.id,
  status: s.status,
  mindsetDate: s.mindsetDate,
  linked: s.linked,
  error: s.error,
  psychometricCount: s.psychometricCount,
  keyTopicCount: s.keyTopicCount,
  findingCount: s.findingCount,
});

export function formatSimulation(r: SimulateResult): string {
  const lines = [r.message, ''];
  if (r.evidence.length) {
    lines.push('Evidence (the person’s own words the answer rests on):');
    r.evidence.forEach((e, i) => lines.push(`${i + 1}. "${e.quote.replace(/\s+/g, ' ').trim()}" (snapshot ${e.snapshotId})`));
  } else {
    lines.push('Evidence: none (no turn of this person matched the message).');
  }
  lines.push('', `conversationId: ${r.conversationId} (pass it to continue this conversation)`, `simulationId: ${r.simulationId}`, `model: ${r.model}`);
  return lines.join('\n');
}

/** The MCP server with Mindprint's tools, talking to the service through `client`. */
export function createMindprintMcpServer(client: MindprintClient): McpServer {
  const server = new McpServer({ name: 'mindprint', version: VERSION });
  const run = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await fn();
    } catch (err) {
      return toolError(err, client.baseUrl);
    }
  };
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    'list_minds',
    {
      title: 'List minds',
      description: 'Lists the minds (profiles of real people) of the organization, newest first: id, name, tags and how many transcript snapshots each has.',
      inputSchema: { tagNames: z.string().min(1).max(5000).optional().describe('Comma-separated tag names: only minds carrying any of them') },
      annotations: readOnly,
    },
    ({ tagNames }) =>
      run(async () => {
        const { minds } = await client.listMinds(tagNames ? { tagNames } : {});
        return text(minds.length ? JSON.stringify(minds.map(mindSummary), null, 2) : 'No minds.');
      }),
  );

  server.registerTool(
    'search_minds',
    {
      title: 'Search minds',
      description: 'Finds minds by a partial, case-insensitive match on name, email, slug, tag names or social-media values; exact matches first.',
      inputSchema: { query: z.string().trim().min(1).max(200).describe('What to look for, e.g. part of a name') },
      annotations: readOnly,
    },
    ({ query }) =>
      run(async () => {
        const { minds } = await client.searchMinds(query);
        return text(minds.length ? JSON.stringify(minds.map(mindSummary), null, 2) : `No mind matches "${query}".`);
      }),
  );

  server.registerTool(
    'get_mind_profile',
    {
      title: 'Get a mind’s profile',
      description: 'The profile of a mind from its completed, linked snapshots: Big Five traits, communication style, top topics and findings (with quotes), and how traits changed across snapshots.',
      inputSchema: { mindId: uuid('The mind id (from list_minds or search_minds)') },
      annotations: readOnly,
    },
    ({ mindId }) =>
      run(async () => {
        const profile = await client.getProfile(mindId);
        return text(JSON.stringify(profile, null, 2));
      }),
  );

  server.registerTool(
    'list_snapshots',
    {
      title: 'List a mind’s snapshots',
      description: 'The memory-bank snapshots (one per uploaded transcript) of a mind, newest mindsetDate first, with their processing status. Only completed, linked snapshots feed simulations.',
      inputSchema: { mindId: uuid('The mind id (from list_minds or search_minds)') },
      annotations: readOnly,
    },
    ({ mindId }) =>
      run(async () => {
        const { snapshots } = await client.listSnapshots(mindId);
        return text(snapshots.length ? JSON.stringify(snapshots.map(snapshotSummary), null, 2) : 'This mind has no snapshots yet.');
      }),
  );

  server.registerTool(
    'simulate',
    {
      title: 'Simulate what a person would say',
      description:
        'Asks a mind a question or tells it a scenario; answers in the first person the way that person would, grounded in what they really said, followed by the verbatim quotes (evidence) it rests on. ' +
        'Pass the returned conversationId to continue the same conversation. The mind needs at least one completed snapshot.',
      inputSchema: {
        mindId: uuid('The mind id (from list_minds or search_minds)'),
        message: z.string().trim().min(1).max(8000).describe('What the person is asked or told'),
        conversationId: uuid('Continue this conversation (from an earlier simulate answer)').optional(),
        snapshotId: uuid('Answer as of this snapshot: only it and earlier snapshots are used (from list_snapshots)').optional(),
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    ({ mindId, message, conversationId, snapshotId }) =>
      run(async () => {
        const result = await client.simulate({ mindId, scenario: { message }, ...(conversationId ? { conversationId } : {}), ...(snapshotId ? { snapshotId } : {}) });
        return text(formatSimulation(result));
      }),
  );

  return server;
}

/** `mindprint mcp`: serves the tools over stdio until stdin closes. */
export async function runMcpServer(env: NodeJS.ProcessEnv = process.env): Promise<McpServer> {
  const settings = mcpSettingsFromEnv(env);
  const client = new MindprintClient({ baseUrl: settings.url, apiKey: settings.apiKey, basePath: settings.basePath });
  const server = createMindprintMcpServer(client);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  // The client closing our stdin ends the session: close the server and let the process exit.
  process.stdin.once('end', () => void server.close());
  process.stderr.write(`mindprint mcp: serving tools over stdio for ${client.baseUrl}\n`);
  return server;
}
