/**
 * A protocol-faithful fake OpenAI-compatible server for tests (node:http, random loopback port).
 *
 * Wire format as OpenAI sends it and as the AI SDK's @ai-sdk/openai-compatible provider reads it:
 *  - GET  /v1/models → {object: "list", data: [{id, object: "model", created, owned_by}]}
 *  - POST /v1/chat/completions → a chat.completion object, or with `stream: true` an SSE stream of
 *    `data: {chat.completion.chunk}` lines (role first, then `choices[0].delta.content` pieces,
 *    then a chunk with `finish_reason`, then — when `stream_options.include_usage` — a chunk with
 *    `choices: []` and `usage`), ending with `data: [DONE]`.
 *  - Structured output: `response_format` {type: "json_schema" | "json_object"} → JSON in the
 *    message content; `tools` + `tool_choice` naming a function (or "required") → a tool call
 *    whose `arguments` is the JSON string.
 *  - POST /v1/embeddings {model, input: string | string[], encoding_format?, dimensions?} →
 *    {object: "list", data: [{object: "embedding", index, embedding}], model, usage}: each vector
 *    is a deterministic hashed bag of the text's words (`embeddingDimensions`, default 64), so
 *    texts sharing words are close, as with a real model; `encoding_format: "base64"` gives
 *    little-endian float32 bytes in base64, as OpenAI does. Unknown embedding model → 404.
 *  - Errors as OpenAI shapes them: {error: {message, type, param, code}} with the HTTP status.
 *  - Bearer key check (401 with OpenAI's invalid_api_key error otherwise); unknown model → 404.
 *
 * Every request is recorded (parsed body included) so tests can inspect prompts, and whether the
 * client closed the connection before the response was complete (abort tests).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { recordRequest, type RecordedRequest } from './recording.ts';

export type { RecordedRequest } from './recording.ts';

export interface FakeError {
  status: number;
  message?: string;
  type?: string;
  code?: string | null;
  headers?: Record<string, string>;
  /** Send this exact body instead of an OpenAI error object (e.g. HTML from a proxy). */
  rawBody?: string;
}

export interface FakeCompletion {
  /** Assistant text. Streamed in `chunks` if given, else split into word-sized pieces. */
  content?: string;
  chunks?: string[];
  /** Structured output: placed in a tool call when the request forces a tool, else as JSON content. */
  json?: unknown;
  finishReason?: string;
  /** Delay before each streamed chunk (slow-stream mode). */
  chunkDelayMs?: number;
  /** Send a 200 with this exact body (non-stream) or these exact SSE data payloads (stream): malformed-response tests. */
  rawBody?: string;
  rawEvents?: string[];
}

export type FakeReply = string | FakeCompletion | { error: FakeError };
export type ReplyFn = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

export interface FakeServerOptions {
  /** Required Bearer key; null disables the check (like Ollama or llama.cpp without --api-key). */
  apiKey?: string | null;
  models?: string[];
  reply?: ReplyFn;
  /** Default delay between streamed chunks. */
  chunkDelayMs?: number;
  /** Models POST /v1/embeddings accepts (default: ['fake-embedding']). */
  embeddingModels?: string[];
  embeddingDimensions?: number;
  /** Answer embedding requests with an error instead (return undefined to answer normally). */
  embeddingError?: (request: RecordedRequest) => FakeError | undefined;
}

export interface FakeOpenAiServer {
  /** Base URL including /v1, as MINDPRINT_LLM_BASE_URL expects it. */
  baseUrl: string;
  apiKey: string | null;
  models: string[];
  requests: RecordedRequest[];
  /** Only the POST /v1/chat/completions requests, in order. */
  chatRequests(): RecordedRequest[];
  /** Only the POST /v1/embeddings requests, in order. */
  embeddingRequests(): RecordedRequest[];
  setReply(fn: ReplyFn): void;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(opts: FakeServerOptions = {}): Promise<FakeOpenAiServer> {
  const apiKey = opts.apiKey === undefined ? `sk-fake-${randomBytes(12).toString('hex')}` : opts.apiKey;
  const models = opts.models ?? ['fake-model'];
  const requests: RecordedRequest[] = [];
  let reply: ReplyFn = opts.reply ?? defaultReply;
  let counter = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, openAiError(String(error), 'server_error', null));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record = await recordRequest(req, res, requests);
    const body = record.body;

    if (apiKey !== null && req.headers.authorization !== `Bearer ${apiKey}`) {
      const given = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      // Real providers echo (part of) the key they were given; echo all of it so tests prove it is scrubbed.
      const message = given ? `Incorrect API key provided: ${given}.` : 'You did not provide an API key.';
      return sendJson(res, 401, openAiError(message, 'invalid_request_error', 'invalid_api_key'));
    }

    if (record.method === 'GET' && record.path === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })),
      });
    }
    if (record.method === 'POST' && record.path === '/v1/embeddings') {
      return sendEmbeddings(res, record, opts);
    }
    if (record.method !== 'POST' || record.path !== '/v1/chat/completions') {
      return sendJson(res, 404, openAiError(`Unknown request URL: ${record.method} ${record.path}`, 'invalid_request_error', 'unknown_url'));
    }
    if (body === null || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      return sendJson(res, 400, openAiError('Invalid request body: expected JSON with model and messages', 'invalid_request_error', null));
    }
    if (!models.includes(body.model)) {
      return sendJson(res, 404, openAiError(`The model \`${body.model}\` does not exist`, 'invalid_request_error', 'model_not_found'));
    }

    const answer = await reply(record);
    if (typeof answer === 'object' && 'error' in answer) return sendError(res, answer.error);
    const completion: FakeCompletion = typeof answer === 'string' ? { content: answer } : answer;
    const id = `chatcmpl-fake-${++counter}`;
    if (body.stream === true) {
      await streamCompletion(res, body, id, completion, completion.chunkDelayMs ?? opts.chunkDelayMs ?? 0);
    } else {
      sendCompletion(res, body, id, completion);
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    models,
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions'),
    embeddingRequests: () => requests.filter((r) => r.path === '/v1/embeddings'),
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

/** Text for plain requests; a schema-shaped sample for structured ones. */
/** The service's settings for an LLM served by `fake` (no retries, so a scripted failure shows at once). */
export function llmEnv(fake: FakeOpenAiServer, model: string): Record<string, string> {
  return { MINDPRINT_LLM_BASE_URL: fake.baseUrl, MINDPRINT_LLM_MODEL: model, ...(fake.apiKey ? { MINDPRINT_LLM_API_KEY: fake.apiKey } : {}), MINDPRINT_LLM_MAX_RETRIES: '0' };
}

export function defaultReply(request: RecordedRequest): FakeReply {
  const wanted = structuredSchema(request.body);
  if (wanted !== undefined) return { json: sampleFromSchema(wanted) };
  return 'This is a reply from the fake model.';
}

/** The JSON schema the request asks the model to follow, `{}` for json_object, undefined for plain text. */
export function structuredSchema(body: any): any {
  const format = body?.response_format;
  if (format?.type === 'json_schema') return format.json_schema?.schema ?? {};
  if (format?.type === 'json_object') return {};
  const tool = forcedTool(body);
  if (tool) return tool.function?.parameters ?? {};
  return undefined;
}

/** A minimal value satisfying a JSON schema: empty strings, zeros, empty arrays, required properties filled. */
export function sampleFromSchema(schema: any): unknown {
  if (schema === null || typeof schema !== 'object') return {};
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return sampleFromSchema(variants[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'null':
      return null;
    default: {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) out[key] = sampleFromSchema(value);
      return out;
    }
  }
}

/** The tool the request forces the model to call, if any (tool_choice naming a function, or "required"). */
function forcedTool(body: any): any {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  if (tools.length === 0) return undefined;
  const choice = body.tool_choice;
  if (choice?.type === 'function') return tools.find((t) => t.function?.name === choice.function?.name);
  if (choice === 'required') return tools[0];
  return undefined;
}

interface Message {
  content: string | null;
  toolCall: { name: string; arguments: string } | null;
  finishReason: string;
}

function messageFor(body: any, completion: FakeCompletion): Message {
  if (completion.json !== undefined) {
    const json = JSON.stringify(completion.json);
    const tool = forcedTool(body);
    if (tool) return { content: null, toolCall: { name: tool.function.name, arguments: json }, finishReason: completion.finishReason ?? 'tool_calls' };
    return { content: json, toolCall: null, finishReason: completion.finishReason ?? 'stop' };
  }
  const content = completion.content ?? completion.chunks?.join('') ?? '';
  return { content, toolCall: null, finishReason: completion.finishReason ?? 'stop' };
}

function usageFor(body: any, message: Message): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const promptText = JSON.stringify(body.messages);
  const prompt_tokens = Math.ceil(promptText.length / 4);
  const completion_tokens = Math.ceil(((message.content ?? '') + (message.toolCall?.arguments ?? '')).length / 4);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function sendCompletion(res: ServerResponse, body: any, id: string, completion: FakeCompletion): void {
  if (completion.rawBody !== undefined) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(completion.rawBody);
    return;
  }
  const message = messageFor(body, completion);
  sendJson(res, 200, {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: message.content,
          refusal: null,
          ...(message.toolCall
            ? { tool_calls: [{ id: 'call_fake_1', type: 'function', function: message.toolCall }] }
            : {}),
        },
        logprobs: null,
        finish_reason: message.finishReason,
      },
    ],
    usage: usageFor(body, message),
  });
}

async function streamCompletion(res: ServerResponse, body: any, id: string, completion: FakeCompletion, delayMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = async (payload: string): Promise<boolean> => {
    if (delayMs > 0) await sleep(delayMs);
    if (res.destroyed || res.writableEnded) return false;
    res.write(`data: ${payload}\n\n`);
    return true;
  };
  if (completion.rawEvents !== undefined) {
    for (const event of completion.rawEvents) if (!(await send(event))) return;
    res.end();
    return;
  }

  const message = messageFor(body, completion);
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model, system_fingerprint: 'fp_fake' };
  const chunk = (delta: object, finishReason: string | null = null) =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });

  if (!(await send(chunk({ role: 'assistant', content: '' })))) return;
  if (message.toolCall) {
    const call = message.toolCall;
    if (!(await send(chunk({ tool_calls: [{ index: 0, id: 'call_fake_1', type: 'function', function: { name: call.name, arguments: '' } }] })))) return;
    for (const piece of splitPieces(call.arguments)) {
      if (!(await send(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })))) return;
    }
  } else {
    const pieces = completion.chunks ?? splitPieces(message.content ?? '');
    for (const piece of pieces) if (!(await send(chunk({ content: piece })))) return;
  }
  if (!(await send(chunk({}, message.finishReason)))) return;
  if (body.stream_options?.include_usage === true) {
    if (!(await send(JSON.stringify({ ...base, choices: [], usage: usageFor(body, message) })))) return;
  }
  if (!(await send('[DONE]'))) return;
  res.end();
}

/** Word-sized pieces that concatenate back to the text (whitespace kept at the start of each piece, as tokenisers do). */
function splitPieces(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? (text === '' ? [] : [text]);
}

function sendEmbeddings(res: ServerResponse, record: RecordedRequest, opts: FakeServerOptions): void {
  const body = record.body;
  const models = opts.embeddingModels ?? ['fake-embedding'];
  const inputs: unknown = body?.input;
  const texts = typeof inputs === 'string' ? [inputs] : inputs;
  if (body === null || typeof body.model !== 'string' || !Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
    return sendJson(res, 400, openAiError("Invalid request body: expected JSON with model and input (a string or an array of strings)", 'invalid_request_error', null));
  }
  if (!models.includes(body.model)) {
    return sendJson(res, 404, openAiError(`The model \`${body.model}\` does not exist`, 'invalid_request_error', 'model_not_found'));
  }
  const error = opts.embeddingError?.(record);
  if (error) return sendError(res, error);
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : (opts.embeddingDimensions ?? 64);
  const data = (texts as string[]).map((text, index) => {
    const vector = hashedBagOfWords(text, dimensions);
    const embedding = body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = (texts as string[]).reduce((n, t) => n + Math.ceil(t.length / 4), 0);
  sendJson(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

/** A unit vector: each lower-cased word adds ±1 at a position its hash picks. */
function hashedBagOfWords(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
    v[h % dimensions]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

function sendError(res: ServerResponse, error: FakeError): void {
  if (error.rawBody !== undefined) {
    res.writeHead(error.status, { 'content-type': 'text/html', ...error.headers });
    res.end(error.rawBody);
    return;
  }
  const type = error.type ?? (error.status >= 500 ? 'server_error' : 'invalid_request_error');
  const message = error.message ?? `Fake error ${error.status}`;
  sendJson(res, error.status, openAiError(message, type, error.code ?? null), error.headers);
}

function openAiError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}


function sleep(ms: number): Promise<void> {
  // Unref'd: a slow stream the client abandoned must not keep the test process alive.
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
