/**
 * Server-sent events for a streamed simulation. The reply body is a PassThrough that Fastify
 * pipes to the socket, so the request keeps its normal lifecycle (usage, logging); a closed
 * socket is noticed on the raw response and turned into an AbortSignal for the engine.
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

export function openSse(reply: FastifyReply): SseChannel {
  const stream = new PassThrough();
  // Writes after the client left are dropped; an error here has nowhere to go.
  stream.on('error', () => {});
  const controller = new AbortController();
  let ended = false;
  reply.raw.on('close', () => {
    if (!ended || !reply.raw.writableFinished) controller.abort();
  });
  reply
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache, no-transform')
    .header('x-accel-buffering', 'no');
  const writable = () => !stream.destroyed && !stream.writableEnded;
  return {
    stream,
    signal: controller.signal,
    send(event, data) {
      if (writable()) stream.write(sseFrame(event, data));
    },
    end(event, data) {
      ended = true;
      if (writable()) stream.end(sseFrame(event, data));
    },
  };
}
