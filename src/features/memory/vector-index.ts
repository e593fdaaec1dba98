/**
 * Exact semantic search in process, for databases without pgvector (Debian's PostgreSQL 15): the
 * vectors of a mind's turns in scope, int8-quantized per vector (a quarter of float32's memory;
 * cosines within about 0.01 of the float ones), scanned in full for each query. At 100
 * transcripts (≈ 5.6k turns, 100 dimensions) a scan is ≈ 0.6 M multiply-adds per space: well
 * under a millisecond, and exact, so no recall is lost to an approximate index.
 *
 * Indexes are cached per (mind, fingerprint of its embedded snapshots in scope): a new or
 * re-embedded snapshot changes the fingerprint, so a stale index is never used again and ages out
 * of the LRU. Safe across replicas without invalidation messages, like the persona cache.
 */

export interface IndexedTurn {
  turnId: string;
  embedding: Float32Array;
  contextEmbedding: Float32Array | null;
}

export interface VectorHit {
  turnId: string;
  /** 1-based. */
  rank: number;
  /** Cosine similarity (dequantized). */
  similarity: number;
}

/** One space's quantized rows: `count × dimensions` int8 values, a scale per row. */
class QuantizedMatrix {
  readonly values: Int8Array;
  readonly scales: Float32Array;
  /** Row → position in the index's turn list. */
  readonly rows: Int32Array;
  /** Position in the index's turn list → row (-1: no vector). */
  readonly rowOf: Int32Array;

  constructor(vectors: (Float32Array | null)[], readonly dimensions: number) {
    const present: number[] = [];
    vectors.forEach((v, i) => v && v.length === dimensions && present.push(i));
    this.rows = Int32Array.from(present);
    this.rowOf = new Int32Array(vectors.length).fill(-1);
    present.forEach((i, r) => (this.rowOf[i] = r));
    this.values = new Int8Array(present.length * dimensions);
    this.scales = new Float32Array(present.length);
    present.forEach((i, r) => {
      const v = vectors[i]!;
      let max = 0;
      for (let k = 0; k < dimensions; k++) max = Math.max(max, Math.abs(v[k]!));
      if (max === 0) return; // a zero vector matches nothing: scale 0
      const scale = max / 127;
      this.scales[r] = scale;
      const base = r * dimensions;
      for (let k = 0; k < dimensions; k++) this.values[base + k] = Math.round(v[k]! / scale);
    });
  }

  get byteLength(): number {
    return this.values.byteLength + this.scales.byteLength + this.rows.byteLength + this.rowOf.byteLength;
  }

  /** Similarity of unit vector `q` to the vector at list position `position` (null: none there). */
  similarity(position: number, q: Float32Array): number | null {
    const r = this.rowOf[position] ?? -1;
    if (r < 0 || q.length !== this.dimensions) return null;
    const base = r * this.dimensions;
    let s = 0;
    for (let j = 0; j < this.dimensions; j++) s += this.values[base + j]! * q[j]!;
    return s * this.scales[r]!;
  }

  /** The best `k` rows for unit vector `q` (similarity > `floor`), best first. */
  search(q: Float32Array, k: number, floor: number): { row: number; similarity: number }[] {
    const d = this.dimensions;
    const n = this.scales.length;
    if (k <= 0 || n === 0 || q.length !== d) return [];
    // A bounded min-heap of the best k: O(n log k), no sort of all n.
    const heapSim = new Float64Array(k);
    const heapRow = new Int32Array(k);
    let size = 0;
    const values = this.values;
    for (let r = 0; r < n; r++) {
      const scale = this.scales[r]!;
      if (scale === 0) continue;
      let s = 0;
      const base = r * d;
      for (let j = 0; j < d; j++) s += values[base + j]! * q[j]!;
      s *= scale;
      if (s <= floor) continue;
      if (size < k) {
        let i = size++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (heapSim[p]! <= s) break;
          heapSim[i] = heapSim[p]!;
          heapRow[i] = heapRow[p]!;
          i = p;
        }
        heapSim[i] = s;
        heapRow[i] = r;
      } else if (s > heapSim[0]!) {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= size) break;
          const c = l + 1 < size && heapSim[l + 1]! < heapSim[l]! ? l + 1 : l;
          if (heapSim[c]! >= s) break;
          heapSim[i] = heapSim[c]!;
          heapRow[i] = heapRow[c]!;
          i = c;
        }
        heapSim[i] = s;
        heapRow[i] = r;
      }
    }
    const out: { row: number; similarity: number }[] = [];
    for (let i = 0; i < size; i++) out.push({ row: this.rows[heapRow[i]!]!, similarity: heapSim[i]! });
    // Ties (duplicate turns of replicated transcripts) in turn order, so the result is deterministic.
    return out.sort((a, b) => b.similarity - a.similarity || a.row - b.row);
  }
}

export class VectorIndex {
  readonly size: number;
  private readonly ids: string[];
  private readonly positions: Map<string, number>;
  private readonly text: QuantizedMatrix;
  private readonly context: QuantizedMatrix;

  constructor(turns: readonly IndexedTurn[], readonly dimensions: number) {
    // Sorted by id: the order (and so tie-breaking) does not depend on how the rows were read.
    const sorted = [...turns].sort((a, b) => (a.turnId < b.turnId ? -1 : a.turnId > b.turnId ? 1 : 0));
    this.ids = sorted.map((t) => t.turnId);
    this.positions = new Map(this.ids.map((id, i) => [id, i]));
    this.size = sorted.length;
    this.text = new QuantizedMatrix(sorted.map((t) => t.embedding), dimensions);
    this.context = new QuantizedMatrix(sorted.map((t) => t.contextEmbedding), dimensions);
  }

  get byteLength(): number {
    return this.text.byteLength + this.context.byteLength + this.ids.length * 100;
  }

  /** Turns whose text is nearest to `q`. */
  searchText(q: Float32Array, k: number, floor = 0): VectorHit[] {
    return this.text.search(q, k, floor).map((h, i) => ({ turnId: this.ids[h.row]!, rank: i + 1, similarity: h.similarity }));
  }

  /** Similarity of `q` to a turn's text and to its question (dequantized; null where the index has no vector). */
  similarity(turnId: string, q: Float32Array): { text: number | null; context: number | null } {
    const at = this.positions.get(turnId);
    if (at === undefined) return { text: null, context: null };
    return { text: this.text.similarity(at, q), context: this.context.similarity(at, q) };
  }

  /** Turns whose question (context) is nearest to `q`. */
  searchContext(q: Float32Array, k: number, floor = 0): VectorHit[] {
    return this.context.search(q, k, floor).map((h, i) => ({ turnId: this.ids[h.row]!, rank: i + 1, similarity: h.similarity }));
  }
}
