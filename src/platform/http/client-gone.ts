/**
 * An AbortSignal that fires when the client goes away before its response is complete. Attach it
 * as the handler starts: a client that leaves while the request is validated or stored (before a
 * listener added later could hear the socket close) is then noticed too.
 */
import type { FastifyReply } from 'fastify';

export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  if (res.destroyed || res.socket?.destroyed) {
    controller.abort();
  } else {
    // 'close' also follows a response that finished normally; only an unfinished one means the client left.
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  }
  return controller.signal;
}
