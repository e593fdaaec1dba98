/**
 * CPU cost of the extractive engine alone (`answer`: understanding, BM25F ranking, candidates and
 * their passages, the reranker, evidence and analysis), per answer, on the inputs POST /simulate
 * hands it at 100 transcripts — before → after in the same run, and every answer asserted
 * byte-identical (text, evidence and analysis) between the two.
 *
 * Inputs: the real service (in process, PostgreSQL on BENCH_PG_URL or embedded PGlite with
 * BENCH_PG_URL=none) with a mind of 100 completed snapshots — the three 2012 debates of Barack H
 * Obama replicated round-robin with a mindsetDate one day apart, as bench/simulate.ts seeds them —
 * and its semantic index; for each of the real questions the moderators and the other candidates
 * asked in the six debates, the EngineInput the service builds (`engineInput`: hybrid recall,
 * persona, other speakers). Every fourth question is followed in the same conversation by a
 * follow-up ("Why?", "Can you give me an example?", "And how soon?", "What about the middle
 * class?"), whose input is recalled with the conversation so far, as the service does. The inputs
 * are written to bench/fixtures/generated/engine-inputs.json and reused by later runs (delete it
 * to rebuild).
 *
 * Before: the engine of another checkout (MINDPRINT_ENGINE_BEFORE=<path of a worktree of the
 * older commit, with node_modules>), loaded by path, with caches of its own. Both engines run
 * the same inputs interleaved (before, after, after, before, …) so load on the machine falls on
 * both alike: a first pass (empty per-turn caches: the first requests after a start) and then
 * BENCH_ROUNDS warm passes (the steady state of a service answering the same mind again and again).
 *
 * Run: MINDPRINT_ENGINE_BEFORE=/tmp/speed-before node --import tsx bench/engine.ts
 * Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1/postgres; "none": PGlite),
 *      BENCH_ROUNDS (default 5), BENCH_QUESTIONS (default 60).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyseTurns, type AnalysisResult } from '../src/lib/analysis/index.ts';
import { understand } from '../src/lib/language/understand.ts';
import * as afterEngine from '../src/engines/extractive/index.ts';
import { rerankEmbedder as afterEmbedder } from '../src/engines/extractive/rerank/index.ts';
import type { ConversationMessage, EngineInput, EngineResult } from '../src/engines/types.ts';
import { embedSnapshot, loadMindScope, recall } from '../src/features/memory/index.ts';
import { engineInput } from '../src/features/simulations/engine-input.ts';
import { startTestServer } from '../test/support/server.ts';
import { readDebate as readDebateFrom, seedSnapshot, SHARED_TRANSCRIPTS, type SeedTurn } from '../test/features/simulations/seed.ts';
import { requireSharedData } from '../test/support/shared-data.ts';
import { debateQuestions } from './support/debate-questions.ts';
import { PersonaCache } from '../src/features/profile/index.ts';

requireSharedData('bench/engine.ts');
const RESULTS = new URL('./results/engine.md', import.meta.url);
const INPUTS = new URL('./fixtures/generated/engine-inputs.json', import.meta.url);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1/postgres';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUESTIONS = Number(process.env.BENCH_QUESTIONS ?? 60);
const BANK = 100;
const MIND = 'Barack H Obama';
const DEBATES = ['2012-10-03', '2012-10-16', '2012-10-22'];
const FOLLOW_UPS = ['Why?', 'Can you give me an example?', 'And how soon?', 'What about the middle class?'];

type Answer = (input: EngineInput, o: { embed?: (t: string) => Float32Array; model?: EngineInput['reranker'] }) => EngineResult;
interface Engine {
  answer: Answer;
  embed: (t: string) => Float32Array;
}

const readDebate = (date: string): SeedTurn[] => readDebateFrom(date, SHARED_TRANSCRIPTS);


/** The inputs the service hands the engine, built with the real service and its database. */
async function buildInputs(answer: Answer, embed: Engine['embed']): Promise<{ inputs: EngineInput[]; database: string; turns: number }> {
  if (PG_URL !== 'none') process.env.TEST_DATABASE_URL = PG_URL;
  const s = await startTestServer();
  try {
    const transcripts = DEBATES.map((d) => readDebate(d));
    const analyses: AnalysisResult[] = transcripts.map((turns) =>
      analyseTurns(turns.map((t, i) => ({ turnId: `t${i}`, speaker: t.speaker, text: t.text, startMs: null, isMind: t.speaker === MIND }))),
    );
    const mind = (await s.api('POST', '/minds', { name: `Barack Obama (${BANK})` })).body.mind;
    const memory = s.ctx.memory;
    const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
    let turns = 0;
    for (let i = 0; i < BANK; i++) {
      const k = i % transcripts.length;
      const { snapshotId } = await seedSnapshot(s.ctx.db, {
        organizationId: mind.organizationId,
        mindId: mind.id,
        mind: MIND,
        turns: transcripts[k]!,
        mindsetDate: new Date(Date.UTC(2012, 9, 3) + i * 86_400_000),
        precomputed: analyses[k],
      });
      await embedSnapshot(memory, { snapshotId }, { id: 'bench', retryCount: 0, retryLimit: 0, isLastAttempt: true }, silent);
      turns += transcripts[k]!.filter((t) => t.speaker === MIND).length;
    }
    await s.ctx.database.execute('analyze');
    const scope = (await loadMindScope(s.ctx.db, mind.organizationId, mind.id, null, memory.embedder.id))!.scope;
    const services = { db: s.ctx.db, personas: new PersonaCache(), memory };
    const engine = { id: 'extractive', engine: 'extractive' as const, streams: false, generate: () => Promise.reject(new Error('not used')) };
    const all = debateQuestions(MIND);
    // Spread over the six debates rather than the first few of one.
    const questions = Array.from({ length: Math.min(QUESTIONS, all.length) }, (_, i) => all[Math.floor((i * all.length) / Math.min(QUESTIONS, all.length))]!);
    const inputs: EngineInput[] = [];
    for (const [i, q] of questions.entries()) {
      const first = await engineInput(services, scope, engine, null, 0, q);
      inputs.push(first);
      if (i % 4 !== 3) continue;
      // A follow-up in the same conversation: the history as the service stores it (the answer with its evidence).
      const prior = answer(first, { embed });
      const history: ConversationMessage[] = [
        { role: 'user', text: q },
        { role: 'assistant', text: prior.text, evidence: prior.evidence },
      ];
      const message = FOLLOW_UPS[Math.floor(i / 4) % FOLLOW_UPS.length]!;
      const found = await recall(memory, scope, message, history, understand(message, history), { citedTurnIds: prior.evidence.map((e) => e.turnId) });
      inputs.push({ ...first, message, history, memory: found.memory, messageEmbedding: found.messageEmbedding });
    }
    return { inputs, database: PG_URL === 'none' ? 'PGlite' : 'PostgreSQL', turns };
  } finally {
    await s.close();
  }
}

/** JSON of the inputs (dates as ISO strings, vectors as arrays; the embedder object is not kept: the engine does not use it). */
function save(data: { inputs: EngineInput[]; database: string; turns: number }): void {
  mkdirSync(new URL('.', INPUTS), { recursive: true });
  const plain = data.inputs.map(({ embedder: _e, signal: _s, ...rest }) => ({ ...rest, messageEmbedding: rest.messageEmbedding ? [...rest.messageEmbedding] : null }));
  writeFileSync(INPUTS, JSON.stringify({ ...data, inputs: plain }));
}

function load(): { inputs: EngineInput[]; database: string; turns: number } {
  const data = JSON.parse(readFileSync(INPUTS, 'utf8')) as { inputs: (Omit<EngineInput, 'messageEmbedding'> & { messageEmbedding: number[] | null })[]; database: string; turns: number };
  return {
    ...data,
    inputs: data.inputs.map((i) => ({
      ...i,
      messageEmbedding: i.messageEmbedding ? Float32Array.from(i.messageEmbedding) : null,
      memory: i.memory.map((t) => ({ ...t, mindsetDate: new Date(t.mindsetDate) })),
    })),
  };
}

async function engineAt(root: string | null): Promise<Engine> {
  if (!root) return { answer: afterEngine.answer as Answer, embed: await afterEmbedder() };
  const mod = (await import(pathToFileURL(`${root}/src/simulation/extractive/index.ts`).href)) as { answer: Answer };
  const rerank = (await import(pathToFileURL(`${root}/src/simulation/rerank/index.ts`).href)) as { rerankEmbedder: () => Promise<Engine['embed']> };
  return { answer: mod.answer, embed: await rerank.rerankEmbedder() };
}

/** As the extractive engine's generate() calls it. */
const run = (e: Engine, input: EngineInput) => e.answer(input, { embed: e.embed, ...(input.reranker ? { model: input.reranker } : {}) });

function stats(samples: number[]): { p50: number; p90: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

const beforePath = process.env.MINDPRINT_ENGINE_BEFORE ?? null;
const after = await engineAt(null);
const before = beforePath ? await engineAt(beforePath) : null;
const loadStart = os.loadavg()[0]!;
let data: { inputs: EngineInput[]; database: string; turns: number };
if (existsSync(INPUTS)) data = load();
else {
  data = await buildInputs((before ?? after).answer, (before ?? after).embed);
  save(data);
  data = load(); // exactly what later runs read
}
const { inputs } = data;
process.stderr.write(`${inputs.length} inputs (${data.database}, ${data.turns} mind turns), median ${stats(inputs.map((i) => i.memory.length)).p50} candidate turns\n`);

const times = { before: { cold: [] as number[], warm: [] as number[] }, after: { cold: [] as number[], warm: [] as number[] } };
const timed = (e: Engine, input: EngineInput): { result: EngineResult; ms: number } => {
  const t0 = performance.now();
  const result = run(e, input);
  return { result, ms: performance.now() - t0 };
};
let mismatches = 0;
for (let round = 0; round <= ROUNDS; round++) {
  const phase = round === 0 ? 'cold' : 'warm';
  // Fresh objects each pass, as the service reads memory from the database on every request: a
  // cache keyed by object identity gets no hit here that it would not get there.
  structuredClone(inputs).forEach((input, i) => {
    // Alternate which engine goes first, so neither always runs on the other's warmed CPU caches.
    const order: ('before' | 'after')[] = (i + round) % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    const results: Partial<Record<'before' | 'after', EngineResult>> = {};
    for (const which of order) {
      const e = which === 'before' ? before : after;
      if (!e) continue;
      const { result, ms } = timed(e, input);
      results[which] = result;
      times[which][phase].push(ms);
    }
    if (before && round === 0 && !isDeepStrictEqual(results.before, results.after)) {
      mismatches++;
      process.stderr.write(`DIFFERENT answer to ${JSON.stringify(input.message)}:\n  before ${JSON.stringify(results.before)}\n  after  ${JSON.stringify(results.after)}\n`);
    }
  });
}
if (mismatches > 0) {
  process.stderr.write(`${mismatches} of ${inputs.length} answers differ between before and after\n`);
  process.exit(1);
}

const f = (x: number) => x.toFixed(2);
const row = (label: string, s: ReturnType<typeof stats>) => `| ${label} | ${f(s.p50)} ms | ${f(s.p90)} ms | ${f(s.p99)} ms | ${f(s.mean)} ms |`;
const lines = [
  '# Extractive engine CPU per answer',
  '',
  'Generated by `MINDPRINT_ENGINE_BEFORE=<worktree of the older commit> node --import tsx bench/engine.ts`: `answer()` of',
  'src/engines/extractive alone (no HTTP, no database), on the EngineInputs the service builds at 100 transcripts',
  `(${data.database}, ${data.turns} mind turns; three 2012 debates of Barack H Obama replicated round-robin, as bench/simulate.ts):`,
  `${inputs.length} inputs — real debate questions, every fourth followed by a follow-up in the same conversation — with a median of`,
  `${stats(inputs.map((i) => i.memory.length)).p50} candidate turns each. Before and after run interleaved in one process; the first pass starts with empty`,
  `per-turn caches, then ${ROUNDS} warm passes. Every answer (text, evidence, analysis) is asserted identical before and after.`,
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; load average ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end.`,
  '',
  '| engine | p50 | p90 | p99 | mean |',
  '|---|---:|---:|---:|---:|',
];
for (const which of ['before', 'after'] as const) {
  if (which === 'before' && !before) continue;
  lines.push(row(`${which}, first pass (cold caches)`, stats(times[which].cold)), row(`${which}, warm (${ROUNDS} passes)`, stats(times[which].warm)));
}
if (before) {
  const ratio = (phase: 'cold' | 'warm') => stats(times.before[phase]).p50 / stats(times.after[phase]).p50;
  lines.push('', `p50 before / after: **${ratio('warm').toFixed(1)}×** warm, ${ratio('cold').toFixed(1)}× on the first pass. Answers identical: ${inputs.length} of ${inputs.length}.`);
}
lines.push('');
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(RESULTS, lines.join('\n'));
process.stdout.write(lines.join('\n') + '\n');
