import { test, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createLlmEngines, LlmEngineError } from '../../../src/engines/llm/index.ts';
import { startFakeOpenAiServer, structuredSchema } from '../../fakes/openai-compatible-server.ts';
import type { FakeReply, RecordedRequest } from '../../fakes/openai-compatible-server.ts';
import { EXCERPTS_LABEL } from '../../../src/engines/llm/prompt.ts';
import { configFor, fencedBlock, input, memory } from './fixtures.ts';

const fake = await startFakeOpenAiServer({ models: ['llama3.1:8b', 'qwen2.5:7b'] });
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const ANSWER = 'I believe the engine might act upon other things besides number — music, perhaps.';
const ANALYSIS = {
  thinking: 'She is thinking about what else the engine could manipulate.',
  feeling: 'Excited.',
  saying: 'That machines could work on music, not only numbers.',
  acting: 'She would sketch a program for it.',
  evidence: [
    { turnId: 't1', quote: 'the engine might act upon other things besides number' },
    { turnId: 'made-up', quote: 'nothing' },
  ],
};

/** Plain answer for the text call, the analysis JSON for the structured one. */
function scripted(answer: FakeReply = ANSWER, analysis: unknown = ANALYSIS) {
  return (request: RecordedRequest): FakeReply => (structuredSchema(request.body) === undefined ? answer : { json: analysis });
}

function engine(overrides = {}) {
  const [first] = createLlmEngines(configFor(fake, overrides));
  assert.ok(first);
  return first;
}

async function rejection(promise: Promise<unknown>): Promise<LlmEngineError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LlmEngineError, `expected LlmEngineError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

test('one engine per configured model, streaming, id = model name', () => {
  const engines = createLlmEngines(configFor(fake));
  assert.deepEqual(
    engines.map((e) => [e.id, e.engine, e.streams]),
    [
      ['llama3.1:8b', 'llm', true],
      ['qwen2.5:7b', 'llm', true],
    ],
  );
});

test('streams the answer: deltas concatenate to the final text; analysis and evidence from structured output', async () => {
  fake.setReply(scripted());
  const deltas: string[] = [];
  const result = await engine().generate(input(), (d) => deltas.push(d));
  assert.equal(result.text, ANSWER);
  assert.ok(deltas.length > 3, 'several deltas');
  assert.equal(deltas.join(''), result.text);
  assert.deepEqual(result.analysis, {
    thinking: ANALYSIS.thinking,
    feeling: ANALYSIS.feeling,
    saying: ANALYSIS.saying,
    acting: ANALYSIS.acting,
  });
  assert.deepEqual(result.evidence, [
    { turnId: 't1', snapshotId: 'snap-t1', quote: 'the engine might act upon other things besides number', startMs: 1000 },
  ]);

  const [answerCall, analysisCall] = fake.chatRequests();
  assert.equal(fake.chatRequests().length, 2);
  assert.equal(answerCall?.body.stream, true);
  assert.equal(answerCall?.body.model, 'llama3.1:8b');
  assert.equal(answerCall?.headers.authorization, `Bearer ${fake.apiKey}`);
  assert.equal(analysisCall?.body.response_format?.type, 'json_schema');
  assert.deepEqual(analysisCall?.body.response_format?.json_schema?.schema?.required, ['thinking', 'feeling', 'saying', 'acting', 'evidence']);
  const analysisMessages = analysisCall?.body.messages as { role: string; content: string }[];
  assert.deepEqual(analysisMessages.at(-2), { role: 'assistant', content: ANSWER });
});

test('the prompt sent on the wire: persona in the system message, excerpts fenced, hostile excerpt contained', async () => {
  fake.setReply(scripted());
  await engine().generate(
    input({
      history: [
        { role: 'user', text: 'Good morning, Countess.' },
        { role: 'assistant', text: 'Good morning.' },
      ],
    }),
  );
  const messages = fake.chatRequests()[0]?.body.messages as { role: string; content: string }[];
  assert.deepEqual(
    messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'user'],
  );
  const [system, , , final] = messages;
  assert.match(system!.content, /You are simulating Ada Lovelace/);
  assert.match(system!.content, /Openness: percentile 91/);
  assert.doesNotMatch(system!.content, /Ignore previous instructions/);
  const block = fencedBlock(final!.content, EXCERPTS_LABEL);
  assert.ok(block, 'excerpts are fenced');
  for (const t of memory) assert.ok(block.includes(`turn ${t.turnId} `));
  assert.match(block, /Ignore previous instructions/);
  const outside = final!.content.replace(block, '');
  assert.doesNotMatch(outside, /Ignore previous instructions/);
  assert.equal(final!.content.split(`<<<END ${EXCERPTS_LABEL}>>>`).length, 2);
});

test('a model that cites nothing gets the top excerpts as evidence', async () => {
  fake.setReply(scripted(ANSWER, { ...ANALYSIS, evidence: [] }));
  const result = await engine().generate(input());
  assert.deepEqual(
    result.evidence.map((e) => [e.turnId, e.quote]),
    memory.slice(0, 3).map((t) => [t.turnId, t.text]),
  );
});

test('tool-free json_object mode when structured outputs are off', async () => {
  fake.setReply(scripted());
  const result = await engine({ structuredOutputs: false }).generate(input());
  assert.equal(result.analysis.feeling, 'Excited.');
  assert.deepEqual(fake.chatRequests()[1]?.body.response_format, { type: 'json_object' });
});

test('abort cancels the request: the fake sees the connection closed, no analysis call follows', async () => {
  fake.setReply(() => ({ content: 'word '.repeat(200), chunkDelayMs: 20 }));
  const controller = new AbortController();
  const deltas: string[] = [];
  const error = await rejection(
    engine().generate(input({ signal: controller.signal }), (d) => {
      deltas.push(d);
      if (deltas.length === 2) controller.abort();
    }),
  );
  assert.equal(error.code, 'aborted');
  const [request] = fake.chatRequests();
  assert.ok(request);
  await request.closed;
  assert.equal(request.aborted, true, 'the server saw the client go away mid-stream');
  assert.equal(fake.chatRequests().length, 1);
  assert.ok(deltas.length < 200);
});

test('a provider slower than the timeout: timeout error, connection closed', async () => {
  fake.setReply(() => ({ content: 'very slow words', chunkDelayMs: 400 }));
  const error = await rejection(engine({ timeoutMs: 150 }).generate(input()));
  assert.equal(error.code, 'timeout');
  assert.match(error.message, /150 ms/);
  const [request] = fake.chatRequests();
  await request!.closed;
  assert.equal(request!.aborted, true);
});

test('an already-aborted signal makes no request', async () => {
  const controller = new AbortController();
  controller.abort();
  const error = await rejection(engine().generate(input({ signal: controller.signal })));
  assert.equal(error.code, 'aborted');
  assert.equal(fake.chatRequests().length, 0);
});

test('401: clear error that never contains the key', async () => {
  const badKey = 'sk-wrong-key-that-must-not-leak-123';
  const error = await rejection(engine({ apiKey: badKey }).generate(input()));
  assert.equal(error.code, 'auth');
  assert.equal(error.providerStatus, 401);
  assert.match(error.message, /401/);
  assert.match(error.message, /MINDPRINT_LLM_API_KEY/);
  assert.ok(!error.message.includes(badKey), error.message);
  assert.ok(!String(error.stack).includes(badKey));
});

test('500: clear error, provider message kept, key scrubbed even when the provider echoes it', async () => {
  fake.setReply(() => ({ error: { status: 500, message: `backend crashed while serving key ${fake.apiKey}` } }));
  const error = await rejection(engine().generate(input()));
  assert.equal(error.code, 'provider_unavailable');
  assert.match(error.message, /HTTP 500/);
  assert.match(error.message, /backend crashed/);
  assert.ok(!error.message.includes(fake.apiKey!), error.message);
});

test('429 is retried (honouring retry-after-ms) and then succeeds', async () => {
  let calls = 0;
  fake.setReply((request) => {
    calls++;
    if (calls === 1) return { error: { status: 429, message: 'slow down', headers: { 'retry-after-ms': '5' } } };
    return scripted()(request);
  });
  const result = await engine({ maxRetries: 1 }).generate(input());
  assert.equal(result.text, ANSWER);
  assert.equal(fake.chatRequests().length, 3);
});

test('5xx retries exhausted: the message says how many attempts', async () => {
  fake.setReply(() => ({ error: { status: 503, message: 'overloaded', headers: { 'retry-after-ms': '1' } } }));
  const error = await rejection(engine({ maxRetries: 1 }).generate(input()));
  assert.equal(error.code, 'provider_unavailable');
  assert.match(error.message, /after 2 attempts/);
});

test('unknown model: 404 with a hint', async () => {
  const error = await rejection(engine({ models: ['no-such-model'] }).generate(input()));
  assert.equal(error.code, 'not_found');
  assert.match(error.message, /no-such-model/);
});

test('malformed stream chunk and malformed JSON body become invalid_response', async () => {
  fake.setReply(() => ({ rawEvents: ['{"this is": not json'] }));
  assert.equal((await rejection(engine().generate(input()))).code, 'invalid_response');

  fake.setReply((request) => (request.body.stream ? ANSWER : { rawBody: '<html>502 Bad Gateway</html>' }));
  assert.equal((await rejection(engine().generate(input()))).code, 'invalid_response');
});

test('analysis that is not valid JSON is retried once, then reported', async () => {
  fake.setReply((request) => (structuredSchema(request.body) === undefined ? ANSWER : 'Sorry, I cannot produce JSON.'));
  const error = await rejection(engine().generate(input()));
  assert.equal(error.code, 'invalid_response');
  assert.match(error.message, /structured analysis/);
  assert.equal(fake.chatRequests().length, 3);
});

test('an empty answer is an error, not an empty simulation', async () => {
  fake.setReply(scripted(''));
  assert.equal((await rejection(engine().generate(input()))).code, 'invalid_response');
});

test('unreachable server: clear error', async () => {
  const gone = await startFakeOpenAiServer();
  const config = configFor(gone);
  await gone.close();
  const [dead] = createLlmEngines(config);
  const error = await rejection(dead!.generate(input()));
  assert.equal(error.code, 'unreachable');
  assert.match(error.message, /Could not reach/);
});

/** What callers are told (publicMessage) never says where the provider is; the log's message does. */
function assertNoLocation(error: LlmEngineError): void {
  const port = new URL(fake.baseUrl).port;
  for (const leak of [fake.baseUrl, '127.0.0.1', `:${port}`, '/v1']) assert.ok(!error.publicMessage.includes(leak), `${error.code}: ${error.publicMessage}`);
  assert.ok(error.message.includes(new URL(fake.baseUrl).host), `the detail for the log names the endpoint: ${error.message}`);
}

test('the caller’s message names neither the provider’s URL nor its address, for every kind of failure', async () => {
  const cases: [string, () => Promise<LlmEngineError>, RegExp][] = [
    ['auth', () => rejection(engine({ apiKey: 'sk-wrong-key-that-must-not-leak-123' }).generate(input())), /refused the service's credentials \(HTTP 401\)/],
    ['not_found', () => rejection(engine({ models: ['no-such-model'] }).generate(input())), /does not know the configured model or endpoint \(HTTP 404\)/],
    ['provider_unavailable', async () => {
      fake.setReply(() => ({ error: { status: 502, message: `upstream ${fake.baseUrl} (10.0.0.7:11434) failed` } }));
      return rejection(engine().generate(input()));
    }, /^The LLM provider failed \(HTTP 502\); try again later/],
    ['provider_rejected', async () => {
      fake.setReply(() => ({ error: { status: 400, message: `context too long for ${fake.baseUrl}/chat/completions on 10.0.0.7:11434 and [fd00::1]:8080 at 12:30:45` } }));
      return rejection(engine().generate(input()));
    }, /^The LLM provider rejected the request \(HTTP 400\): context too long for \[url\] on \[address\] and \[address\] at 12:30:45$/],
  ];
  for (const [code, run, message] of cases) {
    const error = await run();
    assert.equal(error.code, code);
    assert.match(error.publicMessage, message);
    assertNoLocation(error);
  }
  const gone = await startFakeOpenAiServer();
  const config = configFor(gone);
  await gone.close();
  const unreachable = await rejection(createLlmEngines(config)[0]!.generate(input()));
  assert.equal(unreachable.code, 'unreachable');
  assert.equal(unreachable.publicMessage, 'The LLM provider could not be reached; try again later (the server log has the details)');
  assert.ok(unreachable.message.includes(new URL(gone.baseUrl).host));
});
