/**
 * One way to declare a Mindprint tool: zod input and output shapes (the SDK publishes them as the
 * tool's inputSchema and outputSchema and checks both), a handler returning the structured result
 * and a short text for people, and every failure turned into a tool error.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { MindprintClient } from '@mindprint/client';
import { UUID_RE } from '../../../lib/uuid.ts';
import { toolError } from '../errors.ts';

/** What the tools act through; one implementation for both transports. */
export interface ToolContext {
  /**
   * The client bound to the caller: over stdio, the service named by MINDPRINT_URL with
   * MINDPRINT_API_KEY; over HTTP, this server itself with the request's own API key. Throws
   * McpConfigError when the stdio server has no settings (reported as a tool error).
   */
  client(): MindprintClient;
  /** stdio runs on the user's machine and may read its files; HTTP runs on the server and may not. */
  transport: 'stdio' | 'http';
  /**
   * Signed URLs handed out by get_signed_upload_url in this server process. The upload tools PUT
   * only to these or to the service's own /uploads/ path, so an assistant cannot be steered into
   * sending a local file to some other host.
   */
  issuedUploadUrls: Set<string>;
}

type Shape = Record<string, z.ZodType>;

export interface ToolSpec<I extends Shape, O extends Shape> {
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
}

export interface ToolAnswer<O extends Shape> {
  /** A few lines for people (and for clients that ignore structuredContent). */
  text: string;
  data: z.infer<z.ZodObject<O>>;
}

export type Handler<I extends Shape, O extends Shape> = (args: z.infer<z.ZodObject<I>>, signal: AbortSignal) => Promise<ToolAnswer<O>>;

export function defineTool<I extends Shape, O extends Shape>(server: McpServer, ctx: ToolContext, name: string, spec: ToolSpec<I, O>, handler: Handler<I, O>): void {
  const run = async (args: unknown, signal: AbortSignal): Promise<CallToolResult> => {
    try {
      const { text, data } = await handler(args as z.infer<z.ZodObject<I>>, signal);
      return { content: [{ type: 'text', text }], structuredContent: data as Record<string, unknown> };
    } catch (err) {
      let baseUrl: string | null = null;
      try {
        baseUrl = ctx.client().baseUrl;
      } catch {
        /* not configured: the error says so */
      }
      return toolError(err, baseUrl);
    }
  };
  server.registerTool(
    name,
    { title: spec.title, description: spec.description, inputSchema: spec.input, outputSchema: spec.output, annotations: spec.annotations },
    // The SDK's callback type is generic over zod 3 and 4 shapes; the handler's own type is checked above.
    ((args: unknown, extra: { signal: AbortSignal }) => run(args, extra.signal)) as never,
  );
}

// ── shapes shared by several tools ─────────────────────────────────────────

/** The service's own uuid check (any version): a typo is a clear input error before any request. */
export const uuid = (what: string) => z.string().regex(UUID_RE, 'must be a UUID').describe(what);

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Creates something; calling it twice creates two. */
export const CREATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** "3 snapshots", "1 snapshot". */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A quote on one line, cut at a word near `max` characters. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20)).trimEnd()}…`;
}
