/**
 * Server-sent events for a streamed simulation. The reply body is a PassThrough that Fastify
 * pipes to the socket, so the request keeps its normal lifecycle (usage, logging); a client that
 * leaves aborts the engine through the request's clientGoneSignal (src/platform/http/client-gone.ts).
 */
import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';

export function sseFrame(event: string, data: unknown): string {
  // JSON has no raw newlines, so one `data:` line per event is enough.
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface SseChannel {
  stream: PassThrough;
  /** Aborted when the client goes away before the stream has ended. */
  signal: AbortSignal;
  send(event: string, data: unknown): void;
  end(event: string, data: unknown): void;
}

/** Opens the event stream of `reply`; `signal` is the request's clientGoneSignal. */
export function openSse(reply: FastifyReply, signal: AbortSignal): SseChannel {
  const stream = new PassThrough();
  // Writes after the client left are dropped; an error here has nowhere to go.
  stream.on('error', () => {});
  reply
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache, no-transform')
    .header('x-accel-buffering', 'no');
  const writable = () => !stream.destroyed && !stream.writableEnded;
  return {
    stream,
    signal,
    send(event, data) {
      if (writable()) stream.write(sseFrame(event, data));
    },
    end(event, data) {
      if (writable()) stream.end(sseFrame(event, data));
    },
  };
}
