/** The event-stream parser on awkward framing: split chunks, CRLF/CR, comments, multi-line data. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventStream, type SseMessage } from '../src/sse.ts';

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(typeof ch === 'string' ? enc.encode(ch) : ch);
      c.close();
    },
  });
}

async function collect(chunks: (string | Uint8Array)[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of parseEventStream(streamOf(chunks))) out.push(m);
  return out;
}

test('events split anywhere, with any line ending, parse the same', async () => {
  const text = '\ufeff: a comment\r\nevent: start\r\ndata: {"a":1}\r\n\r\nevent:delta\rdata:  two spaces\r\rdata: line one\ndata: line two\nid: 7\n\nevent: done\ndata: {}\n\n';
  const expected: SseMessage[] = [
    { event: 'start', data: '{"a":1}' },
    { event: 'delta', data: ' two spaces' },
    { event: 'message', data: 'line one\nline two', id: '7' },
    { event: 'done', data: '{}' },
  ];
  assert.deepEqual(await collect([text]), expected);
  // Every split point, including between CR and LF and inside the BOM's UTF-8 bytes.
  const bytes = new TextEncoder().encode(text);
  for (let i = 1; i < bytes.length; i++) assert.deepEqual(await collect([bytes.slice(0, i), bytes.slice(i)]), expected, `split at ${i}`);
  // One byte at a time.
  assert.deepEqual(await collect([...bytes].map((b) => new Uint8Array([b]))), expected);
});

test('multi-byte characters across chunks, events without data, and an unterminated last event', async () => {
  const bytes = new TextEncoder().encode('data: {"text":"naïve — ok"}\n\nevent: ping\n\ndata: cut off');
  const out = await collect([bytes.slice(0, 17), bytes.slice(17)]);
  assert.deepEqual(out, [{ event: 'message', data: '{"text":"naïve — ok"}' }]);
});
