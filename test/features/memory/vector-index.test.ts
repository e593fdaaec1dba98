/** The in-process exact search (databases without pgvector): int8 quantization keeps the ranking of float cosines. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IndexCache } from '../../../src/features/memory/index-cache.ts';
import { VectorIndex } from '../../../src/features/memory/vector-index.ts';
import { decodeVector, encodeVector, vectorLiteral } from '../../../src/features/memory/vectors.ts';

/** A deterministic pseudo-random unit vector (xorshift). */
function unit(seed: number, d: number): Float32Array {
  let x = seed * 2654435761 || 1;
  const v = new Float32Array(d);
  for (let i = 0; i < d; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    v[i] = ((x >>> 0) / 2 ** 32) * 2 - 1;
  }
  const n = Math.hypot(...v);
  return v.map((c) => c / n);
}
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, c, i) => s + c * b[i]!, 0);

test('the best k by quantized similarity are the best k by exact cosine, in order, with close similarities', () => {
  const d = 100;
  const turns = Array.from({ length: 2000 }, (_, i) => ({ turnId: `t${String(i).padStart(5, '0')}`, embedding: unit(i + 1, d), contextEmbedding: i % 3 ? unit(10_000 + i, d) : null }));
  const index = new VectorIndex(turns, d);
  for (const seed of [7, 99, 12345]) {
    const q = unit(seed * 31 + 5, d);
    const exact = turns.map((t) => ({ id: t.turnId, s: dot(q, t.embedding) })).sort((a, b) => b.s - a.s);
    const got = index.searchText(q, 20);
    assert.equal(got.length, 20);
    got.forEach((h, i) => assert.equal(h.rank, i + 1));
    // Recall of the exact top 20 (quantization may swap near ties only).
    const top = new Set(exact.slice(0, 20).map((e) => e.id));
    assert.ok(got.filter((h) => top.has(h.turnId)).length >= 18);
    for (const h of got) assert.ok(Math.abs(h.similarity - dot(q, turns[Number(h.turnId.slice(1))]!.embedding)) < 0.02);
    // A turn's similarities by id: the ones the search reports, null where there is no vector.
    for (const h of got.slice(0, 5)) assert.ok(Math.abs(index.similarity(h.turnId, q).text! - h.similarity) < 1e-6);
    assert.equal(index.similarity('t00000', q).context, null);
    assert.ok(Math.abs(index.similarity('t00001', q).context! - dot(q, turns[1]!.contextEmbedding!)) < 0.02);
    assert.deepEqual(index.similarity('nope', q), { text: null, context: null });
    // Questions: only turns that have one are searched.
    const ctx = index.searchContext(q, 50);
    assert.ok(ctx.every((h) => Number(h.turnId.slice(1)) % 3 !== 0));
  }
});

test('a floor, a zero vector and k larger than the index', () => {
  const d = 8;
  const index = new VectorIndex([{ turnId: 'a', embedding: unit(1, d), contextEmbedding: null }, { turnId: 'b', embedding: new Float32Array(d), contextEmbedding: null }], d);
  const q = unit(1, d);
  const all = index.searchText(q, 10);
  assert.deepEqual(all.map((h) => h.turnId), ['a'], 'a zero vector matches nothing');
  assert.ok(all[0]!.similarity > 0.99);
  const other = unit(2, d);
  const s = dot(other, unit(1, d));
  assert.deepEqual(index.searchText(other, 10, s + 0.05), [], 'nothing above the floor');
  assert.equal(index.searchText(other, 10, s - 0.05).length, 1);
  assert.deepEqual(index.searchText(new Float32Array(3), 10), [], 'a query of another dimension finds nothing');
});

test('vectors survive the bytea and pgvector encodings', () => {
  const v = unit(3, 100);
  assert.deepEqual(decodeVector(encodeVector(v)), v);
  assert.deepEqual(decodeVector(`\\x${encodeVector(v).toString('hex')}`), v);
  assert.deepEqual(Float32Array.from(JSON.parse(vectorLiteral(v)) as number[]), v);
});

test('the cache keeps indexes by key, evicts the least recently used, and forgets failed loads', async () => {
  const cache = new IndexCache<VectorIndex>(2);
  let loads = 0;
  const load = () => {
    loads++;
    return Promise.resolve(new VectorIndex([], 4));
  };
  await cache.get('a', load);
  await cache.get('b', load);
  await cache.get('a', load);
  await cache.get('c', load); // evicts b
  assert.equal(loads, 3);
  await cache.get('a', load);
  assert.equal(loads, 3);
  await cache.get('b', load);
  assert.equal(loads, 4);
  await assert.rejects(cache.get('x', () => Promise.reject(new Error('db down'))));
  await cache.get('x', load);
  assert.equal(loads, 5);
});
