/**
 * Where the extractive engine's candidates lose what plain retrieval of whole replies has: the
 * experiment of issue 11 (top 10 whole replies by BM25, by SIF-GloVe and by the two fused; the
 * first and the best of them against the real answer), next to the engine's own candidates
 * (its passages, and the whole replies they are cut from), on the DEVELOPMENT split only.
 *
 *   node --import tsx bench/support/candidate-study.ts
 *
 * Every selection is compared with a length-matched excerpt of the person's own words as long
 * as that selection (mean of LM_DRAWS seeded draws), as bench/fidelity.ts does for the engine.
 */
import { loadConversations, splitOf } from './fidelity-split.ts';
import { pairsOf, wholeReplies, type Pair } from './pairs.ts';
import { lengthMatchedExcerpt, memorySentences, prng } from './length-matched.ts';
import { tokenF1 } from './token-f1.ts';
import { answer } from '../../src/engines/extractive/index.ts';
import { contentStems, words } from '../../src/lib/language/text.ts';
import { passageOf } from '../../src/engines/extractive/passage.ts';
import { Addressees, AlreadySaid, rankMemory, understand } from '../../src/engines/extractive/index.ts';
import { FEATURES, nextPart, rerank, rerankEmbedder, type Candidate } from '../../src/engines/extractive/rerank/index.ts';
import { requireSharedData } from '../../test/support/shared-data.ts';
import { bm25 } from './bm25.ts';

requireSharedData('bench/support/candidate-study.ts');

const LM_DRAWS = 5;
const RRF_K = 60;

const f1 = (a: string, b: string) => tokenF1(words(a), words(b));


/** Indices by descending score (ties: input order). */
const order = (scores: readonly number[]) => scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.i);

function rrf(...orders: number[][]): number[] {
  const n = orders[0]!.length;
  const score = new Array<number>(n).fill(0);
  for (const o of orders) o.forEach((i, r) => (score[i]! += 1 / (RRF_K + r + 1)));
  return order(score);
}

interface Row {
  f1: number[];
  lm: number[];
  /** The bench's baseline: the excerpt as long as the engine's answer to the question (the same for every selection). */
  lmEngine: number[];
  words: number[];
}
/** LM F1 of the current question's engine answer (set before the selections are recorded). */
let lmEngine = 0;
const rows = new Map<string, Row>();

function record(name: string, text: string, gold: string, lmOf: (n: number) => number): void {
  let r = rows.get(name);
  if (!r) rows.set(name, (r = { f1: [], lm: [], lmEngine: [], words: [] }));
  const n = words(text).length;
  r.f1.push(f1(text, gold));
  r.lm.push(lmOf(n));
  r.lmEngine.push(lmEngine);
  r.words.push(n);
}

/** Records the first and the best of `k` of `texts` in `ranking`. */
function selections(name: string, texts: readonly string[], ranking: readonly number[], gold: string, lmOf: (n: number) => number, ks = [10, 50]): void {
  if (ranking.length === 0) return;
  record(`${name}: first`, texts[ranking[0]!]!, gold, lmOf);
  for (const k of ks) {
    const top = ranking.slice(0, k);
    const best = top.reduce((a, b) => (f1(texts[b]!, gold) > f1(texts[a]!, gold) ? b : a));
    record(`${name}: best of ${k}`, texts[best]!, gold, lmOf);
  }
}

async function main(): Promise<void> {
  const convs = (await loadConversations()).filter((c) => splitOf(c.id) === 'development');
  const pairs: Pair[] = pairsOf(convs);
  const embed = await rerankEmbedder();
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
  for (const [qi, p] of pairs.entries()) {
    const sentences = memorySentences(p.memory.map((t) => t.text));
    const rand = prng(1000 + qi);
    const lmOf = (n: number) => {
      let s = 0;
      for (let d = 0; d < LM_DRAWS; d++) s += f1(lengthMatchedExcerpt(sentences, n, rand), p.gold);
      return s / LM_DRAWS;
    };
    const qv = embed(p.message);
    let seen: readonly Candidate[] = [];
    let budget = 0;
    const result = answer({ mindName: p.person, message: p.message, history: [], memory: p.memory, persona: { name: p.person, traits: [], style: {}, topics: [], findings: [] } }, { embed, onCandidates: (c, b) => { if (!seen.length) { seen = c; budget = b; } } });
    lmEngine = lmOf(words(result.text).length);

    // Whole replies ranked by plain BM25, SIF on the reply, SIF on the question it answered.
    const replies = wholeReplies(p.memory);
    const texts = replies.map((r) => r.text);
    const byBm25 = order(bm25(p.message, texts));
    const bySif = order(texts.map((t) => dot(qv, embed(t))));
    const byCtx = order(replies.map((r) => (r.first.context ? dot(qv, embed(r.first.context)) : -1)));
    selections('whole replies, BM25', texts, byBm25, p.gold, lmOf);
    selections('whole replies, SIF', texts, bySif, p.gold, lmOf);
    selections('whole replies, fused BM25+SIF', texts, rrf(byBm25, bySif), p.gold, lmOf);
    selections('whole replies, fused BM25+SIF+question', texts, rrf(byBm25, bySif, byCtx), p.gold, lmOf);
    record('whole replies: oracle (best of all)', texts[order(texts.map((t) => f1(t, p.gold)))[0]!]!, p.gold, lmOf);

    // Parts (turns as stored: long replies cut in parts), fused BM25+SIF.
    const parts = p.memory.map((t) => t.text);
    selections('parts, fused BM25+SIF', parts, rrf(order(bm25(p.message, parts)), order(parts.map((t) => dot(qv, embed(t))))), p.gold, lmOf);

    // The engine's candidates: its passages, and the whole replies they were cut from.
    record('engine answer', result.text, p.gold, lmOf);
    if (seen.length === 0) continue;
    const iRank = FEATURES.indexOf('bm25Rank');
    const iText = FEATURES.indexOf('semText');
    const iCtx = FEATURES.indexOf('semContext');
    const cBm25 = order(seen.map((c) => c.features[iRank]!));
    const cSem = order(seen.map((c) => Math.max(c.features[iText]!, c.features[iCtx]!)));
    const fused = rrf(cBm25, cSem);
    const passages = seen.map((c) => c.passage.used.map((u) => u.span.text).join(' '));
    const replyOf = new Map(replies.flatMap((r) => r.turns.map((t) => [t.turnId, r.text] as const)));
    const whole = seen.map((c) => replyOf.get(c.turn.turnId) ?? c.turn.text);
    selections('engine candidates (passages), fused', passages, fused, p.gold, lmOf, [10]);
    selections('engine candidates (their whole replies), fused', whole, fused, p.gold, lmOf, [10]);
    const picked = rerank(seen)[0]!.c;
    // What a perfect choice by topic would give: the candidate sharing the most content words with the real answer.
    const goldStems = new Set(contentStems(p.gold));
    const jaccard = (t: string) => {
      const a = new Set(contentStems(t));
      let inter = 0;
      for (const x of a) if (goldStems.has(x)) inter++;
      return inter / Math.max(1, a.size + goldStems.size - inter);
    };
    record('engine candidates: topical oracle (most content words shared with the real answer)', passages[order(passages.map(jaccard))[0]!]!, p.gold, lmOf);
    record('engine candidates: semantic oracle (closest in meaning to the real answer)', passages[order(passages.map((t) => dot(embed(t), embed(p.gold))))[0]!]!, p.gold, lmOf);
    record('engine candidates: reranker pick (passage)', passages[seen.indexOf(picked)]!, p.gold, lmOf);
    record('engine candidates: reranker pick (its whole reply)', whole[seen.indexOf(picked)]!, p.gold, lmOf);
    // The same candidates cut to other budgets (the engine's budget × scale).
    const r = rankMemory(p.memory, understand(p.message, []).query);
    const weight = new Map(r.query.map((q) => [q.stem, q.weight * (r.idf.get(q.stem) ?? 0)]));
    const bySeq = new Map(p.memory.map((t) => [`${t.snapshotId}\u0000${t.seq}`, t]));
    for (const scale of [0.5, 0.75, 1, 1.5, 2, 10]) {
      const opts = { budget: Math.round(budget * scale), weight, addressees: new Addressees([], p.person), saidBefore: new AlreadySaid([], p.memory) };
      const cut = seen.map((c) => passageOf(c.turn, opts, nextPart(c.turn, bySeq)).used.map((u) => u.span.text).join(' '));
      selections(`engine candidates cut at budget × ${scale}, fused`, cut, fused, p.gold, lmOf, [10]);
      record(`engine candidates cut at budget × ${scale}: reranker pick`, cut[seen.indexOf(picked)]!, p.gold, lmOf);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`Development split: ${convs.length} conversations, ${pairs.length} questions. LM = length-matched excerpt, mean of ${LM_DRAWS} draws.\n`);
  console.log('| selection | n | F1 | F1 LM (its length) | F1 ÷ LM | F1 ÷ LM of the engine answer | words |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, r] of rows) {
    const a = mean(r.f1);
    const b = mean(r.lm);
    const c = mean(r.lmEngine);
    console.log(`| ${name} | ${r.f1.length} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(a / b).toFixed(2)}× | ${(a / c).toFixed(2)}× | ${Math.round(mean(r.words))} |`);
  }
}

await main();
