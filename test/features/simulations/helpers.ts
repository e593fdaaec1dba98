/** Helpers for simulation tests: SSE parsing, polling a message until it ends. */
import assert from 'node:assert/strict';
import type { TestServer } from '../../support/server.ts';

export interface SseEvent {
  event: string;
  data: any;
}

/** Parses a text/event-stream body into events (one JSON `data:` line per event). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    events.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return events;
}

/** POST /simulate with stream: true; returns the response and its parsed events. */
export async function simulateStream(s: TestServer, body: object, key = s.key): Promise<{ status: number; contentType: string | null; events: SseEvent[] }> {
  const res = await fetch(`${s.base}/simulate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), events: res.ok ? parseSse(text) : [] };
}

/** Polls GET /simulations/{id} until `messageId` is no longer pending/streaming (or the time runs out). */
export async function waitForMessage(s: TestServer, simulationId: string, messageId: string, key = s.key, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api('GET', `/simulations/${simulationId}`, undefined, key);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const message = res.body.messages.find((m: any) => m.id === messageId);
    assert.ok(message, 'the message is listed');
    if (message.status !== 'pending' && message.status !== 'streaming') return message;
    if (Date.now() > deadline) assert.fail(`message still ${message.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface OpenStream {
  /** The `start` event: the ids of the stored messages. */
  start: SseEvent;
  /** Leaves: aborts the request and cancels the body. */
  leave(): Promise<void>;
  /** Reads the rest of the stream to its end. */
  drain(): Promise<void>;
}

/** POST /simulate with stream: true, read until the first delta: the run is then under way. */
export async function openStream(s: TestServer, body: object, key = s.key): Promise<OpenStream> {
  const controller = new AbortController();
  const res = await fetch(`${s.base}/simulate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
    signal: controller.signal,
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!/event: delta/.test(text)) {
    const { value, done } = await reader.read();
    assert.ok(!done, 'the stream did not end before the first delta');
    text += decoder.decode(value, { stream: true });
  }
  const start = parseSse(text.slice(0, text.indexOf('\n\n') + 2))[0]!;
  assert.equal(start.event, 'start');
  return {
    start,
    async leave() {
      controller.abort();
      await reader.cancel().catch(() => {});
    },
    async drain() {
      for (;;) if ((await reader.read()).done) return;
    },
  };
}
