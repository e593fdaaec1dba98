import { createHash } from 'node:crypto';
import { PayloadTooLargeError } from './errors.ts';
import type { StoredObject } from './types.ts';

/**
 * Counts and hashes a body while it passes through, and stops it past a size limit.
 * Both stores pipe the caller's body through `chunks()`, so the limit is enforced on the bytes
 * actually read rather than on a Content-Length that a client may lie about.
 */
export class MeteredBody {
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private exceeded = false;

  constructor(
    private readonly body: Body,
    private readonly maxBytes: number,
  ) {}

  /** True once the body went past maxBytes (stays true even if a consumer swallowed the error). */
  get tooLarge(): boolean {
    return this.exceeded;
  }

  /**
   * Yields the body as Buffers. Throws PayloadTooLargeError on the chunk that crosses the limit
   * and reads no further. A Node stream is left paused, not destroyed: the caller owns it, and an
   * HTTP route whose request stream was destroyed could no longer answer 413.
   */
  async *chunks(): AsyncGenerator<Buffer> {
    for await (const chunk of sourceIterable(this.body)) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      this.bytes += buf.length;
      if (this.bytes > this.maxBytes) {
        this.exceeded = true;
        throw new PayloadTooLargeError(this.maxBytes);
      }
      this.hash.update(buf);
      yield buf;
    }
  }

  /** Size and digest; call only after chunks() has been read to the end. */
  result(): StoredObject {
    return { size: this.bytes, sha256: this.hash.digest('hex') };
  }
}

type Body = NodeJS.ReadableStream | AsyncIterable<Uint8Array | string>;

/** Iterate a body; stream.Readable's own iterator would destroy the stream when we stop early. */
function sourceIterable(body: Body): AsyncIterable<Uint8Array | string> {
  const readable = body as { iterator?: (opts: { destroyOnReturn: boolean }) => AsyncIterable<Uint8Array | string> };
  if (typeof readable.iterator === 'function') return readable.iterator({ destroyOnReturn: false });
  return body as AsyncIterable<Uint8Array | string>;
}
