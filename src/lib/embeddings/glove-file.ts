/**
 * The file format of the pruned, int8-quantized GloVe vectors (`models/*.bin`), written by
 * `scripts/build-embeddings.ts` and read by the GloVe-SIF embedder:
 *
 *   "MPGLOVE1" | u32 header length | header JSON (utf-8)
 *   | u32 words length | words, utf-8, "\n"-separated (vocabulary order)
 *   | u32[count] frequency rank of each word in the original vocabulary
 *   | f32[count] per-word scale | i8[count × dimensions] vector = i8 × scale
 *
 * Little-endian throughout. Quantizing each word's vector by its own largest component keeps
 * cosine similarities within about 0.002 of the float vectors, at a quarter of the size.
 */

const MAGIC = 'MPGLOVE1';

export interface GloveHeader {
  /** Where the vectors come from (package, version, tarball integrity), for the licence notes. */
  source: string;
  dimensions: number;
  count: number;
  /** Size of the vocabulary the ranks refer to: word probabilities follow Zipf's law over it. */
  sourceVocabulary: number;
  /** SIF's smoothing constant a in a / (a + p(w)) (Arora, Liang & Ma 2017). */
  sifA: number;
  /** The common component removed from every sentence vector (unit length). */
  commonComponent: number[];
}

export interface GloveVectors {
  header: GloveHeader;
  words: string[];
  ranks: Uint32Array;
  scales: Float32Array;
  /** Row-major, `count × dimensions`. */
  values: Int8Array;
}

export function encodeGloveFile(v: GloveVectors): Buffer {
  const header = Buffer.from(JSON.stringify(v.header), 'utf8');
  const words = Buffer.from(v.words.join('\n'), 'utf8');
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  return Buffer.concat([
    Buffer.from(MAGIC, 'ascii'),
    u32(header.length),
    header,
    u32(words.length),
    words,
    Buffer.from(v.ranks.buffer, v.ranks.byteOffset, v.ranks.byteLength),
    Buffer.from(v.scales.buffer, v.scales.byteOffset, v.scales.byteLength),
    Buffer.from(v.values.buffer, v.values.byteOffset, v.values.byteLength),
  ]);
}

export function decodeGloveFile(buf: Uint8Array): GloveVectors {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.toString('ascii', 0, 8) !== MAGIC) throw new Error('not a Mindprint GloVe vector file');
  let at = 8;
  const headerLength = b.readUInt32LE(at);
  at += 4;
  const header = JSON.parse(b.toString('utf8', at, at + headerLength)) as GloveHeader;
  at += headerLength;
  const wordsLength = b.readUInt32LE(at);
  at += 4;
  const words = b.toString('utf8', at, at + wordsLength).split('\n');
  at += wordsLength;
  const { count, dimensions } = header;
  if (words.length !== count) throw new Error(`vector file holds ${words.length} words, header says ${count}`);
  // Copies: typed arrays need aligned offsets, and the file buffer may be released.
  const ranks = new Uint32Array(b.buffer.slice(b.byteOffset + at, b.byteOffset + at + count * 4));
  at += count * 4;
  const scales = new Float32Array(b.buffer.slice(b.byteOffset + at, b.byteOffset + at + count * 4));
  at += count * 4;
  const values = new Int8Array(b.buffer.slice(b.byteOffset + at, b.byteOffset + at + count * dimensions));
  at += count * dimensions;
  if (at !== b.length) throw new Error('vector file has trailing bytes');
  return { header, words, ranks, scales, values };
}
