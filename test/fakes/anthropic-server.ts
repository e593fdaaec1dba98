/**
 * A fake Anthropic Messages API for tests (node:http, random loopback port), in the wire format
 * the real API uses and @ai-sdk/anthropic reads:
 *  - POST /v1/messages with the `x-api-key` header (401 authentication_error otherwise);
 *  - a `message` object, or with `stream: true` SSE events `message_start`, `content_block_start`,
 *    `ping`, `content_block_delta` (text_delta / input_json_delta), `content_block_stop`,
 *    `message_delta` (stop_reason, usage), `message_stop`;
 *  - structured output: `output_config.format` json_schema → JSON text; a forced tool
 *    (`tool_choice` {type: "tool", name}) → a tool_use block;
 *  - errors as {type: "error", error: {type, message}}.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { sampleFromSchema } from './openai-compatible-server.ts';
import { recordRequest, type RecordedRequest } from './recording.ts';

export interface FakeAnthropicCompletion {
  content?: string;
  chunks?: string[];
  json?: unknown;
  chunkDelayMs?: number;
}
export type FakeAnthropicReply = string | FakeAnthropicCompletion | { error: { status: number; message?: string } };
export type AnthropicReplyFn = (request: RecordedRequest) => FakeAnthropicReply | Promise<FakeAnthropicReply>;

export interface FakeAnthropicServer {
  /** Base URL including /v1, as @ai-sdk/anthropic's baseURL expects it. */
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  setReply(fn: AnthropicReplyFn): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

export async function startFakeAnthropicServer(opts: { apiKey?: string; reply?: AnthropicReplyFn } = {}): Promise<FakeAnthropicServer> {
  const apiKey = opts.apiKey ?? `sk-ant-fake-${randomBytes(12).toString('hex')}`;
  const requests: RecordedRequest[] = [];
  let reply: AnthropicReplyFn = opts.reply ?? defaultAnthropicReply;
  let counter = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record = await recordRequest(req, res, requests);
    const body = record.body;

    if (req.headers['x-api-key'] !== apiKey) return sendError(res, 401, 'invalid x-api-key');
    if (record.method !== 'POST' || record.path !== '/v1/messages') return sendError(res, 404, `Not found: ${record.path}`);
    if (body === null || typeof body.model !== 'string' || !Array.isArray(body.messages) || typeof body.max_tokens !== 'number') {
      return sendError(res, 400, 'model, messages and max_tokens are required');
    }

    const answer = await reply(record);
    if (typeof answer === 'object' && 'error' in answer) return sendError(res, answer.error.status, answer.error.message ?? 'fake error');
    const completion: FakeAnthropicCompletion = typeof answer === 'string' ? { content: answer } : answer;
    const block = contentBlock(body, completion);
    const id = `msg_fake_${++counter}`;
    const usage = { input_tokens: Math.ceil(JSON.stringify(body.messages).length / 4), output_tokens: 0 };
    const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';

    if (body.stream !== true) {
      usage.output_tokens = Math.ceil(JSON.stringify(block).length / 4);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content: [block], stop_reason: stopReason, stop_sequence: null, usage }));
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const delay = completion.chunkDelayMs ?? 0;
    const send = async (event: string, data: object): Promise<boolean> => {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay).unref());
      if (res.destroyed || res.writableEnded) return false;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      return true;
    };
    const message = { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } };
    if (!(await send('message_start', { type: 'message_start', message }))) return;
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    if (!(await send('content_block_start', { type: 'content_block_start', index: 0, content_block: start }))) return;
    if (!(await send('ping', { type: 'ping' }))) return;
    const pieces =
      block.type === 'tool_use' ? split(JSON.stringify(block.input)) : (completion.chunks ?? split(block.text));
    for (const piece of pieces) {
      const delta = block.type === 'tool_use' ? { type: 'input_json_delta', partial_json: piece } : { type: 'text_delta', text: piece };
      if (!(await send('content_block_delta', { type: 'content_block_delta', index: 0, delta }))) return;
    }
    if (!(await send('content_block_stop', { type: 'content_block_stop', index: 0 }))) return;
    const outputTokens = Math.ceil(pieces.join('').length / 4);
    if (!(await send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }))) return;
    if (!(await send('message_stop', { type: 'message_stop' }))) return;
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    setReply(fn) {
      reply = fn;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The JSON schema an Anthropic request asks for (native output format or forced tool), else undefined. */
export function anthropicStructuredSchema(body: any): any {
  const format = body?.output_config?.format ?? body?.output_format;
  if (format?.type === 'json_schema') return format.schema ?? {};
  const tool = forcedTool(body);
  return tool ? (tool.input_schema ?? {}) : undefined;
}

export function defaultAnthropicReply(request: RecordedRequest): FakeAnthropicReply {
  const schema = anthropicStructuredSchema(request.body);
  return schema === undefined ? 'This is a reply from the fake Claude.' : { json: sampleFromSchema(schema) };
}

function forcedTool(body: any): any {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const choice = body?.tool_choice;
  if (choice?.type === 'tool') return tools.find((t) => t.name === choice.name);
  if (choice?.type === 'any') return tools[0];
  return undefined;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

function contentBlock(body: any, completion: FakeAnthropicCompletion): Block {
  if (completion.json !== undefined) {
    const tool = forcedTool(body);
    if (tool) return { type: 'tool_use', id: 'toolu_fake_1', name: tool.name, input: completion.json };
    return { type: 'text', text: JSON.stringify(completion.json) };
  }
  return { type: 'text', text: completion.content ?? completion.chunks?.join('') ?? '' };
}

function split(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? (text === '' ? [] : [text]);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }));
}
