/**
 * Every tool failure is a tool result with `isError: true` and one message the assistant can act
 * on (the API's status, code and message, or why the service cannot be used), never a protocol
 * error: an assistant shows a tool error to the model, while a protocol error ends in "-32000".
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MindprintApiError, MindprintConnectionError } from '@mindprint/client';
import { McpConfigError } from './env.ts';

/** A failure whose message is already what the assistant should read (bad combination of arguments, a refused upload…). */
export class ToolError extends Error {}

/** Where to look when an id is unknown, by the kind of id the path names. */
const NOT_FOUND_HINT = ' Check the ids: get_all_minds or search_minds give mind ids, list_snapshots snapshot ids.';

export function toolErrorMessage(err: unknown, baseUrl: string | null): string {
  if (err instanceof ToolError) return err.message;
  if (err instanceof McpConfigError) return `Mindprint is not configured: ${err.message}. Set it in the MCP server's environment (the assistant's MCP settings) and restart the server.`;
  if (err instanceof MindprintApiError) {
    const hint = err.code === 'NOT_FOUND' ? NOT_FOUND_HINT : err.code === 'AUTH_FAILED' ? ' Check the API key (MINDPRINT_API_KEY, or the Authorization header of the MCP connection).' : '';
    return `Mindprint answered ${err.status} ${err.code}: ${err.message.replace(/\.$/, '')}.${hint}`;
  }
  if (err instanceof MindprintConnectionError) return `Could not reach Mindprint at ${baseUrl ?? 'MINDPRINT_URL'}: ${err.reason}. Is the service running and MINDPRINT_URL right?`;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return 'The request to Mindprint was cancelled or timed out.';
  return `Mindprint tool failed: ${err instanceof Error ? err.message : String(err)}`;
}

export function toolError(err: unknown, baseUrl: string | null): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: toolErrorMessage(err, baseUrl) }] };
}
