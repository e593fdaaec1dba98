/** The fake OpenAI-compatible server speaks the wire format real clients expect. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText, tool } from 'ai';
import { z } from 'zod';
import { sampleFromSchema, startFakeOpenAiServer } from '../../fakes/openai-compatible-server.ts';

const fake = await startFakeOpenAiServer();
after(() => fake.close());
const auth = { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' };

function post(body: unknown, headers: Record<string, string> = auth) {
  return fetch(`${fake.baseUrl}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
}

test('GET /v1/models lists the models; a missing or wrong key is a 401 in OpenAI error shape', async () => {
  const res = await fetch(`${fake.baseUrl}/models`, { headers: auth });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    object: 'list',
    data: [{ id: 'fake-model', object: 'model', created: 1_700_000_000, owned_by: 'fake' }],
  });
  const denied = await fetch(`${fake.baseUrl}/models`);
  assert.equal(denied.status, 401);
  const body = (await denied.json()) as { error: { code: string; type: string } };
  assert.equal(body.error.code, 'invalid_api_key');
  assert.equal(body.error.type, 'invalid_request_error');
});

test('non-streaming completion', async () => {
  fake.setReply(() => 'Hello there.');
  const res = await post({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }] });
  const body = (await res.json()) as any;
  assert.equal(body.object, 'chat.completion');
  assert.deepEqual(body.choices[0].message, { role: 'assistant', content: 'Hello there.', refusal: null });
  assert.equal(body.choices[0].finish_reason, 'stop');
  assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
  assert.deepEqual(fake.requests.at(-1)?.body.messages, [{ role: 'user', content: 'Hi' }]);
});

test('streaming: SSE data lines with deltas, a finish chunk, a usage chunk when asked, then [DONE]', async () => {
  fake.setReply(() => ({ chunks: ['Hel', 'lo', '!'] }));
  const res = await post({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } });
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = (await res.text()).split('\n\n').filter(Boolean);
  assert.ok(events.every((e) => e.startsWith('data: ')));
  assert.equal(events.at(-1), 'data: [DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)));
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id));
  assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
  assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Hello!');
  assert.equal(chunks.at(-2).choices[0].finish_reason, 'stop');
  assert.deepEqual(chunks.at(-1).choices, []);
  assert.ok(chunks.at(-1).usage.completion_tokens > 0);
});

test('unknown model → 404; errors and raw bodies are scriptable', async () => {
  assert.equal((await post({ model: 'nope', messages: [] })).status, 404);
  fake.setReply(() => ({ error: { status: 429, message: 'slow down', headers: { 'retry-after': '1' } } }));
  const limited = await post({ model: 'fake-model', messages: [] });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  assert.deepEqual(await limited.json(), { error: { message: 'slow down', type: 'invalid_request_error', param: null, code: null } });
});

test('the AI SDK reads its text stream and forced tool calls (streamed and not) from the fake', async () => {
  const model = createOpenAICompatible({ name: 'fake', baseURL: fake.baseUrl, apiKey: fake.apiKey ?? undefined, includeUsage: true }).chatModel('fake-model');
  fake.setReply(() => 'Streaming works fine.');
  const streamed = streamText({ model, prompt: 'Hi', maxRetries: 0 });
  assert.equal(await streamed.text, 'Streaming works fine.');
  assert.equal((await streamed.usage).outputTokens !== undefined, true);

  const weather = tool({ description: 'Weather', inputSchema: z.object({ city: z.string(), days: z.number() }) });
  fake.setReply(() => ({ json: { city: 'Paris', days: 3 } }));
  const called = await generateText({ model, prompt: 'Weather?', tools: { weather }, toolChoice: { type: 'tool', toolName: 'weather' }, maxRetries: 0 });
  assert.deepEqual(called.toolCalls.map((c) => [c.toolName, c.input]), [['weather', { city: 'Paris', days: 3 }]]);
  assert.deepEqual(fake.requests.at(-1)?.body.tool_choice, { type: 'function', function: { name: 'weather' } });

  const streamedTool = streamText({ model, prompt: 'Weather?', tools: { weather }, toolChoice: 'required', maxRetries: 0 });
  assert.deepEqual((await streamedTool.toolCalls).map((c) => c.input), [{ city: 'Paris', days: 3 }]);
});

test('default replies: text for plain requests, a schema-shaped sample for structured ones', async () => {
  assert.deepEqual(
    sampleFromSchema({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'array' }, c: { type: ['integer', 'null'] }, d: { enum: ['x', 'y'] } },
    }),
    { a: '', b: [], c: 0, d: 'x' },
  );
  const other = await startFakeOpenAiServer({ apiKey: null });
  try {
    const res = await fetch(`${other.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'fake-model',
        messages: [],
        response_format: { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object', properties: { n: { type: 'number' } } } } },
      }),
    });
    const body = (await res.json()) as any;
    assert.deepEqual(JSON.parse(body.choices[0].message.content), { n: 0 });
  } finally {
    await other.close();
  }
});
