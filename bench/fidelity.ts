/**
 * Fidelity benchmark for the extractive engine: does the simulated answer resemble what the
 * person really answered?
 *
 * For every person interviewed in the real transcripts (../shared/data/transcripts), a mind is
 * built the way the service builds one: the transcripts are parsed by the service's parser
 * (src/lib/ingest), stored as completed snapshots with the real analysis of their turns (so the
 * persona comes from the memory part only), in the real database (embedded PGlite). Memory is
 * the first half of a conversation plus all the person's other conversations. Each question an
 * interviewer really asked in the second half is then answered through the service's own path
 * (engineInput with the service's memory: hybrid retrieval, persona, other speakers; then the engine), and the answer is
 * compared with the person's real answer (token F1, ROUGE-L, content-word Jaccard). Baselines in
 * the same run, from the same memory: a random turn of the same person of answer length (≥ 8
 * words, as the real answers are), the person's single most generic turn, and a length-matched
 * random excerpt: for each question, consecutive whole sentences of the person's own words from a
 * random point in memory, as many words as the engine's answer to that question has (the engine
 * chooses its length from the person's usual answer length, and token F1 depends on length).
 *
 * The development split (bench/support/fidelity-split.ts) was fixed before the engine of issue 11
 * was tuned; the engine and its reranker were tuned on it only, and the evaluation split is what
 * is reported. "Before" in the same run is the engine without sentence embeddings and reranker
 * (`answer(input)` without options: the sentence-stitching composer of earlier versions).
 *
 * Run: node --import tsx bench/fidelity.ts   (writes bench/results/fidelity.md; sections added
 * by hand after the generated ones — "## Before: …" and the like — are kept)
 *      node --import tsx bench/fidelity.ts --development   (development split only, printed: for tuning)
 *      FIDELITY_DUMP=file.json …   also writes every question's answer and scores (to compare two versions question by question)
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { analyseTurns, type AnalysisResult } from '../src/lib/analysis/index.ts';
import { answer, createExtractiveEngine } from '../src/engines/extractive/index.ts';
import { rerankEmbedder } from '../src/engines/extractive/rerank/index.ts';
import type { EngineResult } from '../src/engines/types.ts';
import { loadConversations, MIN_GUEST_TURNS, splitOf, wholeReply, type Conversation, type Split } from './support/fidelity-split.ts';
import { contentStems, words } from '../src/engines/extractive/text.ts';
import { engineInput } from '../src/features/simulations/run.ts';
import { embedSnapshot, loadMindScope } from '../src/features/memory/index.ts';
import { startTestServer } from '../test/support/server.ts';
import { seedSnapshot, type SeedTurn } from '../test/features/simulations/seed.ts';
import { tokenF1 } from './support/token-f1.ts';
import { lengthMatchedExcerpt, memorySentences, prng } from './support/length-matched.ts';
import { requireSharedData } from '../test/support/shared-data.ts';
import { PersonaCache } from '../src/features/profile/index.ts';

requireSharedData('bench/fidelity.ts');
const RESULTS = new URL('./results/fidelity.md', import.meta.url);
/** Questions shorter than this (words) are back-channel ("Really?"), not questions. */
const MIN_QUESTION_WORDS = 4;
/** Answers shorter than this (words) are interjections, not answers; the random baseline draws from turns as long. */
const MIN_ANSWER_WORDS = 8;
/** A person needs at least this many turns in memory to be simulated at all. */
const MIN_MEMORY_TURNS = 10;
/** Seeds of the random baselines (separate streams, so adding one does not move another). */
const RANDOM_SEED = 20240601;
const LENGTH_MATCHED_SEED = 20250101;
const LENGTH_MATCHED_BEFORE_SEED = 20250202;
const SILENT = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
const EMBED_JOB = { id: 'bench', retryCount: 0, retryLimit: 0, isLastAttempt: true };

// ─── minds (one per held-out conversation and person) and their questions ───────────────

interface Item {
  question: string;
  answer: string;
}

interface Case {
  person: string;
  split: Split;
  conversation: Conversation;
  /** The snapshots of the mind: the person's other conversations, whole, and the first half of this one. */
  snapshots: { conversation: Conversation; turns: SeedTurn[]; whole: boolean }[];
  items: Item[];
  /** The person's turns in memory (for the baselines). */
  memory: string[];
}

function buildCases(convs: Conversation[]): Case[] {
  const cases: Case[] = [];
  for (const conv of convs) {
    const half = Math.floor(conv.turns.length / 2);
    for (const person of conv.subjects) {
      const others = convs.filter((c) => c !== conv && c.subjects.includes(person));
      const snapshots = [...others.map((c) => ({ conversation: c, turns: c.turns, whole: true })), { conversation: conv, turns: conv.turns.slice(0, half), whole: false }];
      const memory = snapshots.flatMap((s) => s.turns.filter((t) => t.speaker === person).map((t) => t.text));
      if (memory.length < MIN_MEMORY_TURNS) continue; // e.g. a guest who only joins in the second half
      const items: Item[] = [];
      for (let i = Math.max(1, half); i < conv.turns.length; i++) {
        const t = conv.turns[i]!;
        const q = conv.turns[i - 1]!;
        if (t.speaker !== person || conv.subjects.includes(q.speaker)) continue; // asked by an interviewer, not an opponent
        if (!q.text.includes('?') || words(q.text).length < MIN_QUESTION_WORDS || words(t.text).length < MIN_ANSWER_WORDS) continue;
        items.push({ question: q.text, answer: wholeReply(conv.turns, i) });
      }
      if (items.length > 0) cases.push({ person, split: splitOf(conv.id), conversation: conv, snapshots, items, memory });
    }
  }
  return cases;
}

// ─── metrics ─────────────────────────────────────────────────────────────────────────────

interface Scores {
  f1: number;
  rougeL: number;
  jaccard: number;
}

/** ROUGE-L F1: longest common subsequence of tokens. */
function rougeL(pred: string[], gold: string[]): number {
  if (!pred.length || !gold.length) return 0;
  let prev = new Uint16Array(gold.length + 1);
  let cur = new Uint16Array(gold.length + 1);
  for (let i = 1; i <= pred.length; i++) {
    for (let j = 1; j <= gold.length; j++) {
      cur[j] = pred[i - 1] === gold[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  const lcs = prev[gold.length]!;
  if (lcs === 0) return 0;
  const p = lcs / pred.length;
  const r = lcs / gold.length;
  return (2 * p * r) / (p + r);
}

function contentJaccard(pred: string, gold: string): number {
  const a = new Set(contentStems(pred));
  const b = new Set(contentStems(gold));
  if (!a.size || !b.size) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

function score(pred: string, gold: string): Scores {
  const p = words(pred);
  const g = words(gold);
  return { f1: tokenF1(p, g), rougeL: rougeL(p, g), jaccard: contentJaccard(pred, gold) };
}

// ─── baselines ───────────────────────────────────────────────────────────────────────────

/** The turn most similar (cosine of content-stem counts) to all the person's other turns. */
function mostGenericTurn(memory: string[]): string {
  const vectors = memory.map((t) => {
    const v = new Map<string, number>();
    for (const s of contentStems(t)) v.set(s, (v.get(s) ?? 0) + 1);
    return v;
  });
  const total = new Map<string, number>();
  for (const v of vectors) for (const [k, n] of v) total.set(k, (total.get(k) ?? 0) + n);
  let best = 0;
  let bestSim = -1;
  vectors.forEach((v, i) => {
    let dot = 0;
    let nv = 0;
    let nr = 0;
    for (const [k, n] of v) {
      dot += n * (total.get(k)! - n);
      nv += n * n;
    }
    for (const [k, n] of total) {
      const rest = n - (v.get(k) ?? 0);
      nr += rest * rest;
    }
    const sim = nv && nr ? dot / Math.sqrt(nv * nr) : 0;
    if (sim > bestSim) {
      bestSim = sim;
      best = i;
    }
  });
  return memory[best]!;
}

// ─── running ─────────────────────────────────────────────────────────────────────────────

interface Record {
  person: string;
  split: Split;
  question: string;
  gold: string;
  after: EngineResult;
  before: EngineResult;
  s: { after: Scores; before: Scores; matched: Scores; matchedBefore: Scores; random: Scores; generic: Scores };
  /** Cosine (GloVe-SIF, glove-6b-100d-sif@1) of each answer with the real answer. */
  sim: { after: number; before: number; matched: number };
  words: { after: number; before: number; gold: number };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sourceTurns = (r: EngineResult) => new Set(r.evidence.map((e) => e.turnId)).size;

async function fidelity(cases: Case[]): Promise<{ records: Record[]; times: number[]; seedSeconds: number }> {
  // MINDPRINT_LEXICAL_SEARCH=database measures the database's full-text ranking instead of the in-process one (the default here, on PGlite).
  const s = await startTestServer(process.env.MINDPRINT_LEXICAL_SEARCH ? { MINDPRINT_LEXICAL_SEARCH: process.env.MINDPRINT_LEXICAL_SEARCH } : {});
  try {
    const engine = createExtractiveEngine();
    const embed = await rerankEmbedder();
    const cos = (a: string, b: string) => {
      const x = embed(a);
      const y = embed(b);
      let d = 0;
      for (let i = 0; i < x.length; i++) d += x[i]! * y[i]!;
      return d;
    };
    // The service's own memory: the embedder, hybrid retrieval (full text + vectors, pgvector on
    // PGlite) and the persona cache, as src/features/simulations/module.ts builds it.
    const memory = s.ctx.memory;
    const services = { db: s.ctx.db, personas: new PersonaCache(), memory };
    // One analysis per whole conversation and person, reused by every mind that remembers it.
    const analyses = new Map<string, AnalysisResult>();
    const analysisOf = (c: Conversation, person: string) => {
      const key = `${c.id}/${person}`;
      let a = analyses.get(key);
      if (!a) {
        a = analyseTurns(c.turns.map((t, i) => ({ turnId: `t${i}`, speaker: t.speaker, text: t.text, startMs: t.startMs ?? null, isMind: t.speaker === person })));
        analyses.set(key, a);
      }
      return a;
    };
    const seedStart = performance.now();
    const minds: { c: Case; id: string; organizationId: string }[] = [];
    for (const c of cases) {
      const mind = (await s.api('POST', '/minds', { name: c.person })).body.mind;
      for (const snap of c.snapshots) {
        const { snapshotId } = await seedSnapshot(s.ctx.db, {
          organizationId: mind.organizationId,
          mindId: mind.id,
          mind: c.person,
          turns: snap.turns,
          mindsetDate: snap.conversation.date,
          ...(snap.whole ? { precomputed: analysisOf(snap.conversation, c.person) } : {}),
        });
        // The semantic index, by the snapshot-embed job's own code.
        await embedSnapshot(memory, { snapshotId }, EMBED_JOB, SILENT);
      }
      minds.push({ c, id: mind.id, organizationId: mind.organizationId });
    }
    await s.ctx.database.execute('analyze'); // as the service leaves the database after ingesting
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const records: Record[] = [];
    const rand = prng(RANDOM_SEED);
    const randMatched = prng(LENGTH_MATCHED_SEED);
    const randMatchedBefore = prng(LENGTH_MATCHED_BEFORE_SEED);
    const times: number[] = [];
    for (const { c, id, organizationId } of minds) {
      const scope = (await loadMindScope(s.ctx.db, organizationId, id, null, memory.embedder.id))!.scope;
      if (scope.embeddedSnapshotCount !== c.snapshots.length) throw new Error(`${c.person}: not every snapshot is embedded`);
      const answerLength = c.memory.filter((t) => words(t).length >= MIN_ANSWER_WORDS);
      const generic = mostGenericTurn(answerLength);
      const sentencesOfMemory = memorySentences(c.memory);
      for (const item of c.items) {
        const t0 = performance.now();
        const input = await engineInput(services, scope, engine, null, 0, item.question);
        const after = await engine.generate(input);
        times.push(performance.now() - t0);
        const before = answer(input);
        const afterWords = words(after.text).length;
        const beforeWords = words(before.text).length;
        const excerpt = lengthMatchedExcerpt(sentencesOfMemory, afterWords, randMatched);
        const excerptBefore = lengthMatchedExcerpt(sentencesOfMemory, beforeWords, randMatchedBefore);
        records.push({
          person: c.person,
          split: c.split,
          question: item.question,
          gold: item.answer,
          after,
          before,
          s: {
            after: score(after.text, item.answer),
            before: score(before.text, item.answer),
            matched: score(excerpt, item.answer),
            matchedBefore: score(excerptBefore, item.answer),
            random: score(answerLength[Math.floor(rand() * answerLength.length)]!, item.answer),
            generic: score(generic, item.answer),
          },
          sim: { after: cos(after.text, item.answer), before: cos(before.text, item.answer), matched: cos(excerpt, item.answer) },
          words: { after: afterWords, before: beforeWords, gold: words(item.answer).length },
        });
      }
    }
    return { records, times, seedSeconds };
  } finally {
    await s.close();
  }
}

// ─── report ──────────────────────────────────────────────────────────────────────────────

const f3 = (x: number) => x.toFixed(3);
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
}

const avg = (rs: readonly Record[], f: (r: Record) => number) => mean(rs.map(f));

function line(name: string, rs: readonly Record[]): string {
  const after = avg(rs, (r) => r.s.after.f1);
  const before = avg(rs, (r) => r.s.before.f1);
  const lm = avg(rs, (r) => r.s.matched.f1);
  const lmBefore = avg(rs, (r) => r.s.matchedBefore.f1);
  const abst = (k: 'after' | 'before') => rs.filter((r) => r[k].evidence.length === 0).length;
  return `| ${name} | ${rs.length} | ${f3(after)} | ${f3(lm)} | **${ratio(after, lm)}** | ${f3(before)} | ${ratio(before, lmBefore)} | ${ratio(avg(rs, (r) => r.s.after.rougeL), avg(rs, (r) => r.s.matched.rougeL))} | ${ratio(avg(rs, (r) => r.s.after.jaccard), avg(rs, (r) => r.s.matched.jaccard))} | ${ratio(after, avg(rs, (r) => r.s.random.f1))} | ${f3(avg(rs, (r) => r.sim.after))} / ${f3(avg(rs, (r) => r.sim.before))} / ${f3(avg(rs, (r) => r.sim.matched))} | **${median(rs.map((r) => sourceTurns(r.after)))}** / ${median(rs.map((r) => sourceTurns(r.before)))} | ${abst('after')} / ${abst('before')} | ${Math.round(avg(rs, (r) => r.words.after))} / ${Math.round(avg(rs, (r) => r.words.before))} / ${Math.round(avg(rs, (r) => r.words.gold))} |`;
}

const HEADER = [
  '| | questions | F1 | F1 LM random | **F1 ÷ LM random** | F1 before | before ÷ its LM random | ROUGE-L ÷ LM | topical ÷ LM | F1 ÷ random turn | embedding sim. after / before / LM | **median source turns** after / before | abstained after / before | words after / before / real |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];

const clip = (text: string, n = 70) => {
  const ws = text.trim().split(/\s+/);
  return (ws.length <= n ? ws.join(' ') : `${ws.slice(0, n).join(' ')} …`).replace(/\|/g, '\\|');
};

/** Five evaluation questions, one per person (the first of each of five people, in name order). */
function examples(rs: readonly Record[]): string[] {
  const people = [...new Set(rs.filter((r) => r.split === 'evaluation').map((r) => r.person))].sort().slice(0, 5);
  return people.flatMap((p) => {
    const r = rs.find((x) => x.person === p && x.split === 'evaluation' && x.after.evidence.length > 0)!;
    return [
      `### ${p}`,
      '',
      `**Asked:** ${clip(r.question, 60)}`,
      '',
      `**Really answered:** ${clip(r.gold)}`,
      '',
      `**Before** (F1 ${f3(r.s.before.f1)}, ${sourceTurns(r.before)} turns): ${clip(r.before.text)}`,
      '',
      `**After** (F1 ${f3(r.s.after.f1)}, ${sourceTurns(r.after)} turn${sourceTurns(r.after) === 1 ? '' : 's'}): ${clip(r.after.text)}`,
      '',
    ];
  });
}

function report(r: Awaited<ReturnType<typeof fidelity>>, convs: Conversation[], cases: Case[]): string {
  const rs = r.records;
  const evaluation = rs.filter((x) => x.split === 'evaluation');
  const development = rs.filter((x) => x.split === 'development');
  const people = [...new Set(rs.map((x) => x.person))].sort();
  return [
    '# Fidelity of the extractive engine',
    '',
    'Generated by `node --import tsx bench/fidelity.ts` over the real conversations in `../shared/data/transcripts`',
    `(${convs.length} conversations: 6 debates, 6 Lex Fridman interviews, 3 Lenny's Podcast interviews), ${cases.length} minds, ${rs.length} held-out questions:`,
    `${evaluation.length} of the evaluation split, ${development.length} of the development split (bench/support/fidelity-split.ts, fixed before tuning;`,
    'the engine and its reranker were tuned and trained on development conversations only).',
    '',
    'Method. Every transcript is parsed by the service\'s parser (`src/lib/ingest`). For every person interviewed (debate',
    `nominees; podcast guests with ≥ ${MIN_GUEST_TURNS} turns) and each conversation they are in, a mind is built in the real database`,
    '(embedded PGlite) the way the service builds one: one completed, linked snapshot per remembered conversation — the',
    "person's other conversations whole, and the first half of this one. Each question an interviewer really asked in the",
    `second half (contains "?", ≥ ${MIN_QUESTION_WORDS} words; the answer ≥ ${MIN_ANSWER_WORDS} words) goes through the service's own path (\`engineInput\`, then the`,
    'engine) and is compared with what the person really said next: token F1, ROUGE-L, topical overlap (Jaccard of content',
    'stems) and the cosine of the two texts\' sentence embeddings (GloVe-SIF, `glove-6b-100d-sif@1`, the offline embedder of',
    '`src/lib/embeddings`). "LM random": for each question, a random excerpt of the same person\'s own words from the same memory,',
    'consecutive whole sentences as many words as the answer (seeded); the before-engine gets its own, as long as its answer.',
    '"Before" is the engine without sentence embeddings and reranker in the same run (`answer(input)`: the sentence-stitching',
    'composer); "after" is the engine as the service runs it. Source turns: distinct turns an answer quotes.',
    '',
    '## By split',
    '',
    ...HEADER,
    line('**evaluation** (reported)', evaluation),
    line('development (tuned on)', development),
    line('all', rs),
    '',
    '## Per person',
    '',
    ...HEADER,
    ...people.map((p) => line(`${p} (${rs.find((x) => x.person === p)!.split})`, rs.filter((x) => x.person === p))),
    '',
    '## Five real questions, before and after (evaluation split)',
    '',
    ...examples(rs),
    `Service path time per question (retrieval + persona + engine, no HTTP, no storage): p50 ${percentile(r.times, 50).toFixed(1)} ms, p99 ${percentile(r.times, 99).toFixed(1)} ms`,
    `(the first question of each mind loads its persona). Seeding ${cases.length} minds took ${r.seedSeconds.toFixed(0)} s. Latency of POST /simulate itself: bench/simulate.ts.`,
    '',
  ].join('\n');
}

/** Headings this script writes; any other `## ` section of the results file was added by hand. */
const GENERATED_SECTIONS = ['## By split', '## Per person', '## Five real questions, before and after (evaluation split)'];

/** The hand-written sections at the end of the existing results file (from its first heading this script does not write), kept on rewrite. */
function handWrittenSections(): string {
  if (!existsSync(RESULTS)) return '';
  const lines = readFileSync(RESULTS, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('## ') && !GENERATED_SECTIONS.includes(l.trim()));
  return at < 0 ? '' : `\n${lines.slice(at).join('\n')}`;
}

async function main(): Promise<void> {
  const convs = await loadConversations();
  // --development: the development split only, printed and not written (for tuning; the
  // evaluation split is only ever run for the report).
  const development = process.argv.includes('--development');
  const cases = buildCases(convs).filter((c) => !development || c.split === 'development');
  const result = await fidelity(cases);
  if (process.env.FIDELITY_DUMP) writeFileSync(process.env.FIDELITY_DUMP, JSON.stringify(result.records.map((r) => ({ q: r.question, gold: r.gold, a: r.after.text, s: r.s }))));
  if (development) {
    console.log([...HEADER, line('development', result.records)].join('\n'));
    return;
  }
  const md = report(result, convs, cases);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(RESULTS, md + handWrittenSections());
  console.log(md);
}

await main();
