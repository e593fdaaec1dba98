/** Helpers for simulation tests: SSE parsing, polling a message until it ends. */
import assert from 'node:assert/strict';
import type { TestServer } from '../support/server.ts';

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
