/**
 * Plain BM25 over content stems, for the benchmark studies (a baseline to compare the engine's
 * rankers with; the service's own full-text ranking is features/memory/lexical-index.ts).
 */
import { contentStems } from '../../src/lib/language/text.ts';
import * as parts from '../../src/lib/retrieval/bm25.ts';

/** Plain BM25 (the service's one definition: src/lib/retrieval/bm25.ts) of content stems over `docs`. */
export function bm25(query: string, docs: readonly string[]): number[] {
  const q = [...new Set(contentStems(query))];
  const tfs = docs.map((d) => {
    const m = new Map<string, number>();
    for (const s of contentStems(d)) m.set(s, (m.get(s) ?? 0) + 1);
    return m;
  });
  const lens = tfs.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  const avg = lens.reduce((a, b) => a + b, 0) / Math.max(1, lens.length);
  const df = new Map(q.map((s) => [s, tfs.filter((m) => m.has(s)).length]));
  return tfs.map((m, i) => {
    let s = 0;
    for (const t of q) {
      const tf = m.get(t) ?? 0;
      if (!tf) continue;
      s += parts.idf(df.get(t)!, docs.length) * parts.saturate(parts.normalisedTf(tf, lens[i]!, avg));
    }
    return s;
  });
}
