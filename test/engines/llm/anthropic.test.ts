/** The same engine over the Anthropic provider, against the fake Messages API. */
import { test, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createLlmEngines, LlmEngineError } from '../../../src/engines/llm/index.ts';
import type { LlmConfig } from '../../../src/engines/llm/index.ts';
import { anthropicStructuredSchema, startFakeAnthropicServer } from '../../fakes/anthropic-server.ts';
import type { FakeAnthropicReply } from '../../fakes/anthropic-server.ts';
import type { RecordedRequest } from '../../fakes/openai-compatible-server.ts';
import { input } from './fixtures.ts';

const fake = await startFakeAnthropicServer();
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const ANALYSIS = { thinking: 'T', feeling: 'F', saying: 'S', acting: 'A', evidence: [{ turnId: 't2', quote: 'poetical science' }] };
const reply = (request: RecordedRequest): FakeAnthropicReply =>
  anthropicStructuredSchema(request.body) === undefined ? 'Imagination is what I call poetical science.' : { json: ANALYSIS };

function engine(model: string, apiKey = fake.apiKey) {
  const config: LlmConfig = { provider: 'anthropic', baseUrl: fake.baseUrl, apiKey, models: [model], structuredOutputs: true, maxRetries: 0, timeoutMs: 10_000 };
  return createLlmEngines(config)[0]!;
}

for (const model of ['claude-sonnet-4-5', 'claude-fake-1']) {
  test(`anthropic ${model}: streamed answer, structured analysis, key in x-api-key`, async () => {
    fake.setReply(reply);
    const deltas: string[] = [];
    const result = await engine(model).generate(input(), (d) => deltas.push(d));
    assert.equal(result.text, 'Imagination is what I call poetical science.');
    assert.equal(deltas.join(''), result.text);
    assert.deepEqual(result.analysis, { thinking: 'T', feeling: 'F', saying: 'S', acting: 'A' });
    assert.deepEqual(result.evidence.map((e) => [e.turnId, e.quote]), [['t2', 'poetical science']]);
    const [answerCall, analysisCall] = fake.requests;
    assert.equal(answerCall?.headers['x-api-key'], fake.apiKey);
    assert.equal(answerCall?.body.stream, true);
    assert.match(JSON.stringify(answerCall?.body.system), /You are simulating Ada Lovelace/);
    assert.ok(anthropicStructuredSchema(analysisCall?.body), 'the analysis call asks for structured output');
  });
}

test('anthropic 401: clear error without the key', async () => {
  const badKey = 'sk-ant-wrong-must-not-leak';
  const error = await engine('claude-sonnet-4-5', badKey).generate(input()).then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof LlmEngineError);
  assert.equal(error.code, 'auth');
  assert.ok(!error.message.includes(badKey));
});
