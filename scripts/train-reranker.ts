/**
 * Trains the extractive engine's reranker (src/simulation/extractive/models/reranker.json) on
 * question → answer pairs of real conversations in ../shared/data/transcripts — the development
 * split only (bench/support/fidelity-split.ts) — deterministically, and prints how well it
 * chooses: leave-one-conversation-out on the development split, and on the evaluation split
 * (never trained on) for the report.
 *
 *   node --import tsx scripts/train-reranker.ts [--check]
 *
 * --check: train and compare with the committed file instead of writing it (exit 1 if different).
 *
 * Pairs. For each conversation and person interviewed in it, each question an interviewer asked
 * ("?", ≥ 4 words; the answer ≥ 8 words) is put to a memory holding the person's turns of the
 * other conversations of the same split and of the other half of this one (leave one half out:
 * most guests have one conversation). The engine runs as it does in the service (the same
 * understanding, BM25F ranking, budget and candidate features: `answer` with `onCandidates`),
 * and each candidate's passage is scored by token F1 against the person's real answer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadConversations, splitOf, type Conversation } from '../bench/support/fidelity-split.ts';
import { pairsOf } from '../bench/support/pairs.ts';
import { answer, type AnswerOptions } from '../src/simulation/extractive/index.ts';
import { words } from '../src/simulation/extractive/text.ts';
import { FEATURE_VERSION, FEATURES, fit, rerankEmbedder, RERANKER_URL, scoreRow, checkModel, type Candidate, type Group, type RerankModel } from '../src/simulation/rerank/index.ts';
import { tokenF1 as tokenF1Of } from '../bench/support/token-f1.ts';
import { requireSharedData } from '../test/support/shared-data.ts';

requireSharedData('scripts/train-reranker.ts');

/** "Top 10" of the report: the first ten candidates by reciprocal-rank fusion of BM25F and meaning. */
const TOP = 10;
const RRF_K = 60;
/** Chosen on the development split (leave one conversation out): longer training or less L2 overfits. */
const TRAIN = { temperature: 0.03, l2: 0.01, iterations: 150, learningRate: 0.5 };

export const tokenF1 = (pred: string, gold: string): number => tokenF1Of(words(pred), words(gold));

interface Question {
  conversation: string;
  person: string;
  group: Group & { rrf: number[]; texts: string[] };
}

async function collect(convs: Conversation[]): Promise<Question[]> {
  const embed = await rerankEmbedder();
  // The features do not depend on the model: any model of the right shape lets `answer` run.
  const zero: RerankModel = { version: FEATURE_VERSION, features: [...FEATURES], mean: FEATURES.map(() => 0), scale: FEATURES.map(() => 1), weights: FEATURES.map(() => 0) };
  const out: Question[] = [];
  for (const { conversation, person, message, gold, memory } of pairsOf(convs)) {
    let seen: readonly Candidate[] | null = null;
    const options: AnswerOptions = { embed, model: zero, onCandidates: (c) => (seen ??= c) };
    answer({ mindName: person, message, history: [], memory, persona: { name: person, traits: [], style: {}, topics: [], findings: [] } }, options);
    const cands: readonly Candidate[] = seen ?? [];
    if (cands.length < 2) continue;
    const texts = cands.map((c) => c.passage.used.map((u) => u.span.text).join(' '));
    const y = texts.map((x) => tokenF1(x, gold));
    // Fusion rank: BM25F rank (from the feature 1/rank) and rank by meaning (best of text and question similarity).
    const iText = FEATURES.indexOf('semText');
    const iCtx = FEATURES.indexOf('semContext');
    const iRank = FEATURES.indexOf('bm25Rank');
    const sem = cands.map((c, k) => ({ k, s: Math.max(c.features[iText]!, c.features[iCtx]!) })).sort((a, b) => b.s - a.s || a.k - b.k);
    const semRank = new Map(sem.map((x, r) => [x.k, r + 1]));
    const rrf = cands.map((c, k) => (c.features[iRank]! > 0 ? 1 / (RRF_K + 1 / c.features[iRank]!) : 0) + 1 / (RRF_K + semRank.get(k)!));
    out.push({ conversation, person, group: { x: cands.map((c) => c.features), y, rrf, texts } });
  }
  return out;
}

interface Choice {
  /** Picked the best of the top 10 (ties count). */
  best: number;
  f1: number;
  fusedTop: number;
  bm25Top: number;
  oracle: number;
  n: number;
}

/** How `model` chooses among the top 10 by fusion, against the fused and BM25F first and the oracle. */
function evaluate(model: RerankModel, qs: readonly Question[]): Choice {
  const r: Choice = { best: 0, f1: 0, fusedTop: 0, bm25Top: 0, oracle: 0, n: 0 };
  const iRank = FEATURES.indexOf('bm25Rank');
  for (const { group: g } of qs) {
    const top = g.x.map((_, k) => k).sort((a, b) => g.rrf[b]! - g.rrf[a]! || a - b).slice(0, TOP);
    const pick = top.reduce((a, b) => (scoreRow(model, g.x[b]!) > scoreRow(model, g.x[a]!) ? b : a));
    const best = Math.max(...top.map((k) => g.y[k]!));
    const bm25 = top.reduce((a, b) => (g.x[b]![iRank]! > g.x[a]![iRank]! ? b : a));
    r.best += g.y[pick]! >= best - 1e-12 ? 1 : 0;
    r.f1 += g.y[pick]!;
    r.fusedTop += g.y[top[0]!]!;
    r.bm25Top += g.y[bm25]!;
    r.oracle += best;
    r.n++;
  }
  const n = Math.max(1, r.n);
  return { best: r.best / n, f1: r.f1 / n, fusedTop: r.fusedTop / n, bm25Top: r.bm25Top / n, oracle: r.oracle / n, n: r.n };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number) => x.toFixed(3);
const line = (name: string, c: Choice) =>
  `| ${name} | ${c.n} | ${pct(c.best)} | ${pct(1 / TOP)} | ${f3(c.f1)} | ${f3(c.fusedTop)} | ${f3(c.bm25Top)} | ${f3(c.oracle)} |`;

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const all = await loadConversations();
  const dev = all.filter((c) => splitOf(c.id) === 'development');
  const evalConvs = all.filter((c) => splitOf(c.id) === 'evaluation');
  const devQs = await collect(dev);
  const groups = devQs.map((q) => q.group);
  const model = fit(FEATURE_VERSION, FEATURES, groups, TRAIN);

  // Leave one conversation out, on the development split.
  const ids = [...new Set(devQs.map((q) => q.conversation))];
  const loco: Question[] = [];
  const locoModels = new Map<string, RerankModel>();
  for (const id of ids) locoModels.set(id, fit(FEATURE_VERSION, FEATURES, devQs.filter((q) => q.conversation !== id).map((q) => q.group), TRAIN));
  let acc: Choice = { best: 0, f1: 0, fusedTop: 0, bm25Top: 0, oracle: 0, n: 0 };
  for (const id of ids) {
    const qs = devQs.filter((q) => q.conversation === id);
    loco.push(...qs);
    const c = evaluate(locoModels.get(id)!, qs);
    acc = { best: acc.best + c.best * c.n, f1: acc.f1 + c.f1 * c.n, fusedTop: acc.fusedTop + c.fusedTop * c.n, bm25Top: acc.bm25Top + c.bm25Top * c.n, oracle: acc.oracle + c.oracle * c.n, n: acc.n + c.n };
  }
  const locoChoice: Choice = { best: acc.best / acc.n, f1: acc.f1 / acc.n, fusedTop: acc.fusedTop / acc.n, bm25Top: acc.bm25Top / acc.n, oracle: acc.oracle / acc.n, n: acc.n };
  const evalQs = await collect(evalConvs);
  const heldOut = evaluate(model, evalQs);

  const report = [
    `Reranker: ${FEATURES.length} features, ListNet, ${groups.length} development questions (${dev.length} conversations).`,
    '',
    '| questions | n | picks the best of the top 10 | chance | F1 of its pick | F1 fused first | F1 BM25F first | F1 best of top 10 (oracle) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    line('development, leave one conversation out', locoChoice),
    line(`evaluation (${evalConvs.length} conversations, never trained on)`, heldOut),
    '',
    'Weights (standardized features):',
    ...FEATURES.map((f, i) => `  ${f.padEnd(18)} ${model.weights[i]!.toFixed(4)}`),
  ].join('\n');
  console.log(report);

  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const file: RerankModel = {
    ...model,
    trainedOn: {
      script: 'scripts/train-reranker.ts',
      data: '../shared/data/transcripts, development split of bench/support/fidelity-split.ts',
      conversations: dev.map((c) => c.id),
      questions: groups.length,
      embedder: 'glove-6b-100d-sif@1 (src/embeddings)',
      developmentLeaveOneConversationOut: { picksBestOfTop10: round(locoChoice.best), f1: round(locoChoice.f1), fusedFirstF1: round(locoChoice.fusedTop), oracleF1: round(locoChoice.oracle) },
    },
  };
  const text = `${JSON.stringify(file, null, 2)}\n`;
  if (check) {
    const committed = checkModel(JSON.parse(readFileSync(RERANKER_URL, 'utf8')), FEATURE_VERSION, FEATURES);
    const same = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 1e-3);
    if (!same(committed.weights, model.weights) || !same(committed.mean, model.mean) || !same(committed.scale, model.scale)) {
      console.error('reranker.json differs from what scripts/train-reranker.ts trains: run it without --check and commit the file');
      process.exit(1);
    }
    console.log('reranker.json is what this script trains.');
    return;
  }
  writeFileSync(RERANKER_URL, text);
  console.log(`wrote ${RERANKER_URL.pathname}`);
}

await main();
