/**
 * How vectors are stored: float32 little-endian in a bytea (every database), and as pgvector's
 * text form for the `vector` columns where the extension exists.
 */

/** float32 little-endian bytes of `v`. */
export function encodeVector(v: Float32Array): Buffer {
  const out = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i]!, i * 4);
  return out;
}

/** The vector of `encodeVector` bytes (a bytea as either driver returns it). */
export function decodeVector(bytes: Uint8Array | string): Float32Array {
  const b = typeof bytes === 'string' ? hexBytes(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(b.length >>> 2);
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}

/** A bytea in PostgreSQL's hex text output (`\x…`), as raw SQL results may carry it. */
function hexBytes(s: string): Buffer {
  return Buffer.from(s.startsWith('\\x') ? s.slice(2) : s, 'hex');
}

/** pgvector's input form: `[0.1,0.2,…]`. */
export function vectorLiteral(v: Float32Array): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + (Number.isFinite(v[i]!) ? v[i]! : 0);
  return `${s}]`;
}

/** Whether `v` is the zero vector (a text with no word the embedder knows): it matches nothing. */
export function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}
