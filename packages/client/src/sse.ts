/**
 * Server-sent events from a fetch body, as an async iterator. The parsing is eventsource-parser's
 * (the WHATWG event-stream rules: CRLF, LF or CR line ends, comments, multi-line data, a line or a
 * CRLF split across chunks); this adds the decoding, the iteration, a cap on what one event may
 * buffer, and cancelling the body when the consumer stops.
 */
import { createParser, type ParseError } from 'eventsource-parser';

export interface SseMessage {
  /** `message` when the event named none. */
  event: string;
  data: string;
  /** The event's own `id:` field, when it had one. */
  id?: string;
}

/** What one event (its unterminated lines and data) may buffer before the stream is refused: 64 MiB of text. */
export const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Yields each complete event of `body` (an event left without its blank line when the stream
 * ends is discarded, as the standard says); events without data are skipped. Leaving the loop
 * early, or `signal` aborting, cancels the body.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  // Decoding as a stream keeps a character split across chunks whole; the UTF-8 BOM is dropped.
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  let failure: ParseError | undefined;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent: (m) => ready.push({ event: m.event ?? 'message', data: m.data, ...(m.id !== undefined ? { id: m.id } : {}) }),
    // Unknown fields and bad `retry` values are ignored, as a browser does; only the size cap stops the stream.
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') failure = err;
    },
  });
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw new Error(`The event stream sent an event over ${MAX_EVENT_CHARS} characters`, { cause: failure });
      while (ready.length) yield ready.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
