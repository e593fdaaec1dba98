/**
 * When should a mind say "I haven't talked about that"? On the DEVELOPMENT split only, in memory:
 * each memory of bench/support/pairs.ts is asked its own held-out questions (their topic is in
 * memory: never decline) and questions of people of other fields (topics it mostly never
 * discussed: decline). For each signal of how much memory is about the question, the separation
 * (AUC) of the two, and the threshold that declines the most off-field questions while declining
 * at most MAX_FALSE_DECLINE of the own ones.
 *
 *   node --import tsx bench/support/abstention-study.ts
 */
import { loadConversations, splitOf } from './fidelity-split.ts';
import { pairsOf, type Pair } from './pairs.ts';
import { rerankEmbedder } from '../../src/engines/extractive/rerank/index.ts';
import { cosine, tfidfSpace, vectorOf } from '../../src/lib/fidelity/measure.ts';
import { contentStems } from '../../src/lib/language/text.ts';
import { requireSharedData } from '../../test/support/shared-data.ts';

requireSharedData('bench/support/abstention-study.ts');

const MAX_FALSE_DECLINE = 0.02;
const field = (conversation: string) => conversation.split(' ')[0]!;

async function main(): Promise<void> {
  const all = await loadConversations();
  const convs = all.filter((c) => splitOf(c.id) === 'development');
  const pairs: Pair[] = pairsOf(convs);
  const foreignPool = pairsOf(all);
  const embed = await rerankEmbedder();
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
  const byMemory = new Map<Pair['memory'], Pair[]>();
  for (const p of pairs) byMemory.set(p.memory, [...(byMemory.get(p.memory) ?? []), p]);
  const signals: Record<string, { own: number[]; off: number[] }> = {};
  const put = (name: string, own: boolean, x: number) => {
    signals[name] ??= { own: [], off: [] };
    signals[name][own ? 'own' : 'off'].push(x);
  };
  for (const [memory, ps] of byMemory) {
    const space = tfidfSpace(memory.map((t) => t.text), contentStems);
    const tv = memory.map((t) => vectorOf(space, t.text));
    const cv = memory.map((t) => vectorOf(space, t.context ?? ''));
    const te = memory.map((t) => embed(t.text));
    const off = foreignPool.filter((o) => field(o.conversation) !== field(ps[0]!.conversation)).filter((_, k) => k % 8 === 0);
    for (const [q, own] of [...ps.map((p) => [p.message, true] as const), ...off.map((o) => [o.message, false] as const)]) {
      const qv = vectorOf(space, q);
      const qe = embed(q);
      const t = tv.map((v) => cosine(qv, v));
      const c = cv.map((v) => cosine(qv, v));
      const e = te.map((v) => dot(qe, v));
      const max = (xs: number[]) => Math.max(0, ...xs);
      put('tfidf text (max)', own, max(t));
      put('tfidf context (max)', own, max(c));
      put('tfidf text or context (max)', own, max(t.map((x, i) => Math.max(x, c[i]!))));
      put('sif text (max)', own, max(e));
      put('tfidf + sif (max)', own, max(t.map((x, i) => x + e[i]!)));
      // Known words: the share of the question's IDF mass that memory uses at all.
      const stems = [...qv.keys()];
      const known = stems.filter((s) => space.idf.has(s)).length / Math.max(1, stems.length);
      put('share of question stems memory uses', own, known);
    }
  }
  console.log(`| signal | own questions | off-field | AUC (own above off-field) | threshold (≤ ${MAX_FALSE_DECLINE * 100}% own declined) | own declined | off-field declined (recall) | precision |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, { own, off }] of Object.entries(signals)) {
    let auc = 0;
    for (const a of own) for (const b of off) auc += a > b ? 1 : a === b ? 0.5 : 0;
    auc /= own.length * off.length;
    const sorted = [...own].sort((a, b) => a - b);
    const thr = sorted[Math.floor(MAX_FALSE_DECLINE * sorted.length)]!; // decline below this
    const fp = own.filter((x) => x < thr).length;
    const tp = off.filter((x) => x < thr).length;
    console.log(`| ${name} | ${own.length} | ${off.length} | ${auc.toFixed(3)} | ${thr.toFixed(3)} | ${fp} | ${tp} (${(tp / off.length).toFixed(3)}) | ${(tp / Math.max(1, tp + fp)).toFixed(3)} |`);
  }
}

await main();
