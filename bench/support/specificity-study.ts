/**
 * Which representation chooses the reply that is about the question (issue 22)? On the
 * DEVELOPMENT split only, in memory (no database): every question → answer pair of
 * bench/support/pairs.ts (each half of a conversation asked against the other half and the
 * person's other conversations), and for each, the person's whole replies in that memory ranked
 * by one representation; the first is scored by the specificity AUC of src/lib/fidelity/measure.ts
 * against the other real answers of the same memory (and beyond the question's words).
 *
 *   node --import tsx bench/support/specificity-study.ts
 *
 * Representations: TF-IDF and BM25 of content stems, over what the person said and over the
 * question the reply answered (the turn before it, as ingest stores it), GloVe-SIF sentence
 * embeddings (src/embeddings) of both; and their fusions (reciprocal rank; sums of scores).
 * Issue 22, third round: Universal Sentence Encoder lite (bench/support/use-lite.ts; vectors cached
 * in ~/.cache/mindprint/use/) of the reply — in ~60-word chunks, their mean vector or the best
 * chunk — and of the question it answered, alone and fused with the words and GloVe-SIF.
 */
import { loadConversations, splitOf } from './fidelity-split.ts';
import { pairsOf, wholeReplies, type Pair } from './pairs.ts';
import { contentStems, spokenSentences, words } from '../../src/lib/language/text.ts';
import { rerankEmbedder } from '../../src/engines/extractive/rerank/index.ts';
import { tfidfSpace, vectorOf, cosine } from '../../src/lib/fidelity/measure.ts';
import { requireSharedData } from '../../test/support/shared-data.ts';
import { bm25 } from './bm25.ts';
import { argmax, rrf } from './rank-fusion.ts';
import { printTally, record, type Tally } from './study-table.ts';
import { chunkVectors, dot as udot, embedStats, embedTexts, loadStats, meanOf } from './use-lite.ts';

requireSharedData('bench/support/specificity-study.ts');


async function main(): Promise<void> {
  const convs = (await loadConversations()).filter((c) => splitOf(c.id) === 'development');
  const pairs: Pair[] = pairsOf(convs);
  const embed = await rerankEmbedder();
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
  const byMemory = new Map<Pair['memory'], Pair[]>();
  for (const p of pairs) byMemory.set(p.memory, [...(byMemory.get(p.memory) ?? []), p]);
  const results: Tally = new Map();
  for (const [memory, ps] of byMemory) {
    if (ps.length < 2) continue;
    const replies = wholeReplies(memory).filter((r) => words(r.text).length >= 8);
    const texts = replies.map((r) => r.text);
    const contexts = replies.map((r) => r.first.context ?? '');
    const space = tfidfSpace(memory.map((t) => t.text), contentStems);
    const tv = texts.map((t) => vectorOf(space, t));
    const cv = contexts.map((t) => vectorOf(space, t));
    const te = texts.map((t) => embed(t));
    const ce = contexts.map((t) => (t ? embed(t) : null));
    const uChunks = await chunkVectors(texts);
    const ut = uChunks.map(meanOf);
    const uc = (await chunkVectors(contexts)).map((cs, i) => (contexts[i] ? meanOf(cs) : null));
    const uq = await embedTexts(ps.map((p) => p.message));
    for (const [pi, p] of ps.entries()) {
      const others = ps.filter((o) => o !== p).map((o) => o.gold);
      const qv = vectorOf(space, p.message);
      const qe = embed(p.message);
      const s: Record<string, number[]> = {};
      s.tfidfText = tv.map((v) => cosine(qv, v));
      s.tfidfContext = cv.map((v) => cosine(qv, v));
      s.bm25Text = bm25(p.message, texts);
      s.bm25Context = bm25(p.message, contexts);
      s.sifText = te.map((v) => dot(qe, v));
      s.sifContext = ce.map((v) => (v ? dot(qe, v) : 0));
      const q = uq[pi]!;
      s.useText = ut.map((v) => udot(q, v));
      s.useTextMax = uChunks.map((cs) => Math.max(...cs.map((v) => udot(q, v))));
      s.useContext = uc.map((v) => (v ? udot(q, v) : 0));
      const useBoth = s.useText.map((x, i) => x + s.useContext[i]!);
      const useBothMax = s.useTextMax.map((x, i) => x + s.useContext[i]!);
      const extra: Record<string, string> = {};
      const combos: Record<string, number[]> = {
        ...s,
        'tfidf text+context': s.tfidfText.map((x, i) => x + s.tfidfContext[i]!),
        'tfidf text+½context': s.tfidfText.map((x, i) => x + 0.5 * s.tfidfContext[i]!),
        'rrf bm25 text, bm25 context': rrf(s.bm25Text, s.bm25Context),
        'rrf tfidf text, sif text': rrf(s.tfidfText, s.sifText),
        'rrf tfidf text+ctx, sif text+ctx': rrf(s.tfidfText, s.tfidfContext, s.sifText, s.sifContext),
        'rrf bm25 text+ctx, sif text+ctx': rrf(s.bm25Text, s.bm25Context, s.sifText, s.sifContext),
        'rrf tfidf (text+ctx), sif (text+ctx)': rrf(s.tfidfText.map((x, i) => x + s.tfidfContext[i]!), s.sifText.map((x, i) => x + s.sifContext[i]!)),
        'use text+ctx': useBoth,
        'use max text+ctx': useBothMax,
        'rrf use text, use ctx': rrf(s.useText, s.useContext),
        'rrf tfidf text, use text': rrf(s.tfidfText, s.useText),
        'rrf tfidf text+ctx, use text+ctx': rrf(s.tfidfText, s.tfidfContext, s.useText, s.useContext),
        'rrf tfidf text+ctx, use max text+ctx': rrf(s.tfidfText, s.tfidfContext, s.useTextMax, s.useContext),
        'rrf bm25 text+ctx, use text+ctx': rrf(s.bm25Text, s.bm25Context, s.useText, s.useContext),
        'rrf bm25 text+ctx, use max text+ctx': rrf(s.bm25Text, s.bm25Context, s.useTextMax, s.useContext),
        'rrf tfidf text+ctx, sif text+ctx, use text+ctx': rrf(s.tfidfText, s.tfidfContext, s.sifText, s.sifContext, s.useText, s.useContext),
        'rrf bm25 text+ctx, sif text+ctx, use text+ctx': rrf(s.bm25Text, s.bm25Context, s.sifText, s.sifContext, s.useText, s.useContext),
        'rrf sif text+ctx, use text+ctx': rrf(s.sifText, s.sifContext, s.useText, s.useContext),
        'tfidf text + use text': s.tfidfText.map((x, i) => x + s.useText[i]!),
        'tfidf text+ctx + use text+ctx': s.tfidfText.map((x, i) => x + s.tfidfContext[i]! + useBoth[i]!),
      };
      // Pseudo-relevance feedback: the question widened by the top replies' words (RM3-like), then TF-IDF again.
      for (const k of [3, 10]) {
        const top = s.tfidfText.map((x, i) => ({ x, i })).sort((a, b) => b.x - a.x).slice(0, k);
        const fb = new Map<string, number>();
        for (const { x, i } of top) for (const [st, w] of tv[i]!) fb.set(st, (fb.get(st) ?? 0) + x * w);
        const q2 = new Map(qv);
        let norm = 0;
        for (const w of fb.values()) norm += w * w;
        for (const [st, w] of fb) q2.set(st, (q2.get(st) ?? 0) + (0.5 * w) / Math.sqrt(norm || 1));
        combos[`prf ${k}`] = tv.map((v) => cosine(q2, v));
      }
      // The memory's own question → answer pairs: replies whose question is like this one, and the
      // replies most like those answers (a relevance model learned from what the person was asked).
      for (const k of [3, 10]) {
        const top = s.tfidfContext.map((x, i) => ({ x, i })).sort((a, b) => b.x - a.x).slice(0, k);
        const fb = new Map<string, number>();
        for (const { x, i } of top) for (const [st, w] of tv[i]!) fb.set(st, (fb.get(st) ?? 0) + x * w);
        let norm = 0;
        for (const w of fb.values()) norm += w * w;
        const fbn = new Map([...fb].map(([st, w]) => [st, w / Math.sqrt(norm || 1)]));
        for (const lam of [0.3, 1]) combos[`ctx feedback ${k} λ${lam}`] = tv.map((v, i) => s.tfidfText[i]! + lam * cosine(fbn, v));
        combos[`ctx feedback ${k} + sif`] = tv.map((v, i) => s.tfidfText[i]! + 0.3 * cosine(fbn, v) + s.sifText[i]!);
      }
      combos['tfidf + sif'] = s.tfidfText.map((x, i) => x + s.sifText[i]!);
      combos['tfidf + 0.5 sif'] = s.tfidfText.map((x, i) => x + 0.5 * s.sifText[i]!);
      // Windows of whole sentences within a reply (≥ W words), the one most like the question.
      for (const W of [30, 60, 120]) {
        let best = '';
        let bestSim = -1;
        let bestSif = '';
        let bestSifSim = -1;
        const topReplies = s.tfidfText.map((x, i) => ({ x, i })).sort((a, b) => b.x - a.x).slice(0, 20);
        for (const { i } of topReplies) {
          const ss = spokenSentences(texts[i]!).map((x) => x.text);
          for (let a = 0; a < ss.length; a++) {
            let w = '';
            for (let b = a; b < ss.length; b++) {
              w = w ? `${w} ${ss[b]}` : ss[b]!;
              if (words(w).length >= W || b === ss.length - 1) break;
            }
            const c = cosine(qv, vectorOf(space, w));
            if (c > bestSim) [best, bestSim] = [w, c];
            const c2 = c + dot(qe, embed(w));
            if (c2 > bestSifSim) [bestSif, bestSifSim] = [w, c2];
          }
        }
        extra[`window ${W} tfidf`] = best;
        extra[`window ${W} tfidf+sif`] = bestSif;
      }
      for (const [name, pick] of Object.entries(extra)) {
        record(results, name, pick, space, p, others);
      }
      for (const [name, sc] of Object.entries(combos)) {
        const pick = texts[argmax(sc)]!;
        record(results, name, pick, space, p, others);
      }
    }
  }
  printTally(results);
  console.log(`\nUSE-lite: model load ${Math.round(loadStats.ms)} ms (rss ${Math.round(loadStats.rssMb)} MB after load; 0 when every vector came from the cache); embedded this run ${embedStats.chunks} chunks, ${embedStats.words} words in ${(embedStats.ms / 1000).toFixed(1)} s (${embedStats.chunks ? (embedStats.ms / embedStats.chunks).toFixed(1) : '–'} ms per chunk, batches of 32).`);
}

await main();
