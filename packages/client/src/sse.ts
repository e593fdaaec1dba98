/**
 * A server-sent events parser (the WHATWG "event stream interpretation"): lines end in CRLF, LF
 * or CR; `:` starts a comment; `data:` lines of one event are joined with LF; a blank line
 * dispatches the event; one space after the colon is dropped; a leading BOM is ignored; an
 * event left without its blank line when the stream ends is discarded.
 */
export interface SseMessage {
  /** `message` when the event named none. */
  event: string;
  data: string;
  id?: string;
}

export async function* parseEventStream(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let first = true;
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  // A CR at the end of a chunk may be the first half of a CRLF split across chunks.
  let pendingCr = false;
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const { value, done } = await reader.read();
      if (done) return;
      let chunk = decoder.decode(value, { stream: true });
      if (first && chunk.length) {
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
        first = false;
      }
      if (pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
      pendingCr = false;
      buffer += chunk;
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buffer);
        if (!m) break;
        // A lone CR at the very end could still become CRLF with the next chunk.
        if (m[0] === '\r' && m.index === buffer.length - 1) pendingCr = true;
        const line = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        if (line === '') {
          if (data.length) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? '' : line.slice(colon + 1);
        if (val.startsWith(' ')) val = val.slice(1);
        if (field === 'event') event = val;
        else if (field === 'data') data.push(val);
        else if (field === 'id' && !val.includes('\0')) id = val;
        // `retry` and unknown fields mean nothing to a one-shot stream.
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
