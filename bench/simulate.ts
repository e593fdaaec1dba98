/**
 * Latency of extractive POST /simulate over real HTTP with memory banks of 1, 10 and 100
 * transcripts, against GET /minds/{id} measured in the same run (the floor: auth, one query,
 * serialization).
 *
 * For each database (embedded PGlite, then PostgreSQL in a throwaway database on BENCH_PG_URL)
 * the real service starts in this process on a loopback port (the test harness), and three
 * minds get memory banks of 1, 10 and 100 snapshots: the three 2012 debates of Barack H Obama,
 * replicated round-robin with new turn ids and a mindsetDate one day apart, each with the real
 * analysis rows (psychometrics, topics, findings). Questions are the real questions the
 * moderators and the other candidate asked in the six debates (2012 and 2016), cycled. Each
 * request starts a new conversation, so every sample includes creating the simulation and its
 * two messages. Requests are sequential (one in flight), after a warm-up; the client runs in
 * the same process, which adds the same cost to the baseline and to POST /simulate.
 *
 * Run: node --import tsx bench/simulate.ts
 * Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1/postgres; "none" skips PostgreSQL),
 *      BENCH_REQUESTS (default 300 per measurement).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql, type SQL } from 'drizzle-orm';
import { analyseTurns, type AnalysisResult } from '../src/lib/analysis/index.ts';
import { rowsOf, type Db } from '../src/platform/db/client.ts';
import { searchTerms, understand } from '../src/lib/language/understand.ts';
import { embedSnapshot, loadMindScope, Memory, recall, retrieveMemory, type MindScope } from '../src/features/memory/index.ts';
import { startTestServer, type TestServer } from '../test/support/server.ts';
import { readDebate as readDebateFrom, seedSnapshot, SHARED_TRANSCRIPTS, type SeedTurn } from '../test/features/simulations/seed.ts';
import { requireSharedData } from '../test/support/shared-data.ts';
import { debateQuestions } from './support/debate-questions.ts';

requireSharedData('bench/simulate.ts');
/** The whole debates, from ../shared/data. */
const readDebate = (date: string): SeedTurn[] => readDebateFrom(date, SHARED_TRANSCRIPTS);

const RESULTS = new URL('./results/simulate.md', import.meta.url);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARMUP = 30;
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1/postgres';
const BANKS = [1, 10, 100];
const MIND = 'Barack H Obama';
const DEBATES = ['2012-10-03', '2012-10-16', '2012-10-22'];

interface Stats {
  p50: number;
  p99: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}


async function time(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return samples;
}

interface Row {
  bank: number;
  turns: number;
  candidates: Stats;
  /** The candidate-memory query alone (retrieveMemory, no HTTP), for the same questions, full text searched in the database. */
  retrieval: Stats;
  /** The same with full text searched in the scope's in-process index (src/features/memory/lexical-index.ts). */
  retrievalProcess: Stats;
  /** Building the in-process full-text index of the scope once (reading its turns and indexing them), ms. */
  lexicalBuildMs: number;
  /** Hybrid retrieval as POST /simulate runs it (recall: embedding the message, full text + vectors fused), no HTTP. */
  hybrid: Stats;
  /** The same with pgvector forced (MINDPRINT_VECTOR_SEARCH=pgvector), where the database has it; null elsewhere. */
  hybridPgvector: Stats | null;
  /** Candidates hybrid retrieval hands the engine (median). */
  hybridCandidates: Stats;
  simulate: Stats;
  /** POST /simulate with a greeting ("Who are you?"): retrieval adds the opening turns and self-descriptions. */
  greeting: Stats;
}

/** Greetings and introductions, cycled: the social path of retrieval (options.openings). */
const GREETINGS = ['Hi, who are you?', 'Hello! Tell me a little about yourself.', 'Who are you?', 'Good evening, please introduce yourself.'];

/**
 * The plan of the candidate-memory query for one question as the database ran it (EXPLAIN
 * ANALYZE, BUFFERS), trimmed to the nodes that do the work; the query text is shortened to `q`.
 */
async function explainRetrieval(db: Db, scope: MindScope, terms: string[]): Promise<string[]> {
  let plan: string[] = [];
  const explaining = new Proxy(db, {
    get: (target, prop) =>
      prop === 'execute'
        ? async (query: SQL) => {
            plan = rowsOf<{ 'QUERY PLAN': string }>(await target.execute(sql`explain (analyze, buffers) ${query}`)).map((r) => r['QUERY PLAN']);
            return { rows: [] };
          }
        : Reflect.get(target, prop),
  });
  await retrieveMemory(explaining, scope, terms);
  // The full-text ranking (CTE lrk), then the totals; the fallback branch never runs when something matches.
  const start = plan.findIndex((l) => l.trim() === 'CTE lrk');
  const end = plan.findIndex((l, i) => i > start && /^ {2}CTE /.test(l));
  return [plan[0]!, ...plan.slice(start, end), ...plan.filter((l) => /^(Planning Time|Execution Time)/.test(l))].map((l) =>
    l.replace(/'(?:[^']|'')*'::tsquery/g, 'q').replace(/'[0-9a-f-]{36}'::uuid/g, '…').replace(/ {2}\(cost=[^)]*\)/, ''),
  );
}

async function runOn(label: string, env: Record<string, string>): Promise<{ label: string; baseline: Stats; rows: Row[]; seedSeconds: number; plan: string[]; embed: { turns: number; seconds: number }; vectorSearch: string; lexicalSearch: string }> {
  const saved = process.env.TEST_DATABASE_URL;
  if (env.TEST_DATABASE_URL) process.env.TEST_DATABASE_URL = env.TEST_DATABASE_URL;
  else delete process.env.TEST_DATABASE_URL;
  const s: TestServer = await startTestServer();
  try {
    const transcripts = DEBATES.map((d) => readDebate(d));
    // One analysis per distinct transcript, reused (with remapped turn ids) by its replicas.
    const analyses: AnalysisResult[] = transcripts.map((turns) =>
      analyseTurns(turns.map((t, i) => ({ turnId: `t${i}`, speaker: t.speaker, text: t.text, startMs: null, isMind: t.speaker === MIND }))),
    );
    const questions = debateQuestions(MIND);
    const seedStart = performance.now();
    const minds: { bank: number; id: string; turns: number }[] = [];
    const seededIds: string[] = [];
    for (const bank of BANKS) {
      const mind = (await s.api('POST', '/minds', { name: `Barack Obama (${bank})` })).body.mind;
      let turns = 0;
      for (let i = 0; i < bank; i++) {
        const k = i % transcripts.length;
        const seeded: SeedTurn[] = transcripts[k]!;
        const { snapshotId } = await seedSnapshot(s.ctx.db, {
          organizationId: mind.organizationId,
          mindId: mind.id,
          mind: MIND,
          turns: seeded,
          mindsetDate: new Date(Date.UTC(2012, 9, 3) + i * 86_400_000),
          precomputed: analyses[k],
        });
        seededIds.push(snapshotId);
        turns += seeded.filter((t) => t.speaker === MIND).length;
      }
      minds.push({ bank, id: mind.id, turns });
    }
    // What the service does after ingesting: autovacuum on PostgreSQL, the pipeline's ANALYZE on PGlite.
    await s.ctx.database.execute('analyze');
    const seedSeconds = (performance.now() - seedStart) / 1000;
    // The semantic index of every seeded snapshot, as the snapshot-embed job builds it: the
    // (re-)embedding throughput of the default embedder on this database.
    const memory = s.ctx.memory;
    const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
    const embedStart = performance.now();
    for (const snapshotId of seededIds) await embedSnapshot(memory, { snapshotId }, { id: 'bench', retryCount: 0, retryLimit: 0, isLastAttempt: true }, silent);
    const embed = { turns: minds.reduce((a, m) => a + m.turns, 0), seconds: (performance.now() - embedStart) / 1000 };
    await s.ctx.database.execute('analyze');

    const probe = minds[0]!.id;
    const get = async () => {
      const r = await s.api('GET', `/minds/${probe}`);
      if (r.status !== 200) throw new Error(`GET /minds: ${r.status}`);
    };
    // After the long seeding the client's idle keep-alive socket may be one the server is closing:
    // one request that may fail with ECONNRESET, before anything is measured.
    await get().catch(() => undefined);
    await time(WARMUP, get);
    const baseline = stats(await time(REQUESTS, get));

    const rows: Row[] = [];
    let plan: string[] = [];
    const forced = new Memory(s.ctx.database, memory.embedder, 'pgvector', memory.lexicalSearch());
    for (const m of minds) {
      const candidates: number[] = [];
      const ask = async (i: number) => {
        const r = await s.api('POST', '/simulate', { scenario: { message: questions[i % questions.length] }, mindId: m.id });
        if (r.status !== 200) throw new Error(`POST /simulate: ${r.status} ${JSON.stringify(r.body)}`);
      };
      await time(WARMUP, ask);
      const samples = await time(REQUESTS, ask);
      const greet = async (i: number) => {
        const r = await s.api('POST', '/simulate', { scenario: { message: GREETINGS[i % GREETINGS.length] }, mindId: m.id });
        if (r.status !== 200) throw new Error(`POST /simulate (greeting): ${r.status} ${JSON.stringify(r.body)}`);
      };
      await time(10, greet);
      const greeting = stats(await time(Math.min(REQUESTS, 100), greet));
      // The full-text query alone for the same questions, outside the HTTP timing: how long it takes
      // and how many candidate turns it hands the engine (a first pass warms up, a second is timed).
      const scope = (await loadMindScope(s.ctx.db, (await s.api('GET', `/minds/${m.id}`)).body.mind.organizationId, m.id, null, memory.embedder.id))!.scope;
      const messages = questions.slice(0, 100);
      const understood = messages.map((q) => understand(q, []));
      const asked = understood.map(searchTerms);
      for (const terms of asked) candidates.push((await retrieveMemory(s.ctx.db, scope, terms)).length);
      const retrieval = await time(asked.length, async (i) => void (await retrieveMemory(s.ctx.db, scope, asked[i]!)));
      const buildStart = performance.now();
      const lexical = (await new Memory(s.ctx.database, memory.embedder).lexicalIndex(scope))!;
      const lexicalBuildMs = performance.now() - buildStart;
      for (let i = 0; i < 10; i++) await retrieveMemory(s.ctx.db, scope, asked[i]!, { lexical });
      const retrievalProcess = await time(asked.length, async (i) => void (await retrieveMemory(s.ctx.db, scope, asked[i]!, { lexical })));
      const hybridCandidates: number[] = [];
      for (let i = 0; i < asked.length; i++) hybridCandidates.push((await recall(memory, scope, messages[i]!, [], understood[i]!)).memory.length);
      const hybrid = await time(asked.length, async (i) => void (await recall(memory, scope, messages[i]!, [], understood[i]!)));
      // Where the database has pgvector (PGlite does), the same retrieval searching with it: what
      // MINDPRINT_VECTOR_SEARCH=pgvector costs against the default.
      let hybridPgvector: Stats | null = null;
      if (await forced.hasVectorColumns()) {
        for (let i = 0; i < 10; i++) await recall(forced, scope, messages[i]!, [], understood[i]!);
        hybridPgvector = stats(await time(asked.length, async (i) => void (await recall(forced, scope, messages[i]!, [], understood[i]!))));
      }
      if (m.bank === BANKS.at(-1)) plan = await explainRetrieval(s.ctx.db, scope, asked[0]!);
      rows.push({ bank: m.bank, turns: m.turns, candidates: stats(candidates), retrieval: stats(retrieval), retrievalProcess: stats(retrievalProcess), lexicalBuildMs, hybrid: stats(hybrid), hybridPgvector, hybridCandidates: stats(hybridCandidates), simulate: stats(samples), greeting });
      process.stderr.write(`${label} bank ${m.bank}: p50 ${stats(samples).p50.toFixed(1)} ms\n`);
    }
    return { label, baseline, rows, seedSeconds, plan, embed, vectorSearch: await memory.vectorSearch(), lexicalSearch: memory.lexicalSearch() };
  } finally {
    await s.close();
    if (saved === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = saved;
  }
}

const LOAD_AT_START = os.loadavg()[0]!.toFixed(1);
const memoryEmbedder = 'glove-6b-100d-sif@1';
const runs = [await runOn('PGlite (embedded)', {})];
if (PG_URL !== 'none') runs.push(await runOn('PostgreSQL', { TEST_DATABASE_URL: PG_URL }));

const f = (x: number) => x.toFixed(1);
const lines = [
  '# Simulation latency (extractive engine)',
  '',
  'Generated by `node --import tsx bench/simulate.ts`. Sequential requests over loopback HTTP to the real service',
  `(in-process, as in the tests), ${REQUESTS} measured requests per row after ${WARMUP} warm-up requests; each POST /simulate starts a`,
  'new conversation (simulation + 2 messages stored) and answers a real debate question (a greeting, cycled from four, in its own column). Memory banks: the three 2012 debates of',
  'Barack H Obama replicated round-robin into 1, 10 and 100 completed, linked snapshots with their analysis rows.',
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; load average ${LOAD_AT_START} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end.`,
  '',
];
for (const r of runs) {
  lines.push(
    `## ${r.label}`,
    '',
    `Seeding took ${r.seedSeconds.toFixed(0)} s. Semantic index (${memoryEmbedder}, vector search: ${r.vectorSearch}): ${r.embed.turns} mind turns and their questions embedded and stored in ${r.embed.seconds.toFixed(1)} s = **${Math.round(r.embed.turns / r.embed.seconds)} turns/s** (the re-embedding throughput). Full-text search of POST /simulate: ${r.lexicalSearch === 'process' ? 'in process' : 'in the database'}. Baseline GET /minds/{id}: p50 ${f(r.baseline.p50)} ms, p99 ${f(r.baseline.p99)} ms.`,
    '',
  );
  lines.push(
    '| transcripts | mind turns | candidates FTS / hybrid (median) | POST /simulate p50 | p99 | mean | p50 over baseline | a greeting p50 / p99 | full text alone, in the database p50 / p99 | full text alone, in process p50 / p99 (index built once in) | hybrid retrieval p50 / p99 | same, pgvector forced p50 / p99 |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const row of r.rows) {
    lines.push(
      `| ${row.bank} | ${row.turns} | ${row.candidates.p50} / ${row.hybridCandidates.p50} | ${f(row.simulate.p50)} ms | ${f(row.simulate.p99)} ms | ${f(row.simulate.mean)} ms | +${f(row.simulate.p50 - r.baseline.p50)} ms | ${f(row.greeting.p50)} / ${f(row.greeting.p99)} ms | ${f(row.retrieval.p50)} / ${f(row.retrieval.p99)} ms | ${f(row.retrievalProcess.p50)} / ${f(row.retrievalProcess.p99)} ms (${f(row.lexicalBuildMs)} ms) | ${f(row.hybrid.p50)} / ${f(row.hybrid.p99)} ms | ${row.hybridPgvector ? `${f(row.hybridPgvector.p50)} / ${f(row.hybridPgvector.p99)} ms` : '(no pgvector)'} |`,
    );
  }
  lines.push('', `The FTS query at ${BANKS.at(-1)} transcripts for the first question, as the database ran it (EXPLAIN ANALYZE, BUFFERS; q = the tsquery):`, '', '```', ...r.plan, '```', '');
}
const first = (r: (typeof runs)[number]) => r.rows[0]!;
const last = (r: (typeof runs)[number]) => r.rows.at(-1)!;
lines.push(
  '## How cost grows',
  '',
  'A POST /simulate is a fixed part — validation and scope (one query), one transaction storing the simulation and two',
  'messages, the final update, the persona (cached per mind and snapshot fingerprint, so only the first request after a',
  "snapshot change pays for it) and the engine's own work (it ranks at most 300 candidates) — plus retrieval, which grows",
  'with the bank as far as full-text search does. In this run:',
  '',
  ...runs.map(
    (r) =>
      `- ${r.label}: from ${first(r).bank} to ${last(r).bank} transcripts the p50 of POST /simulate (full text ${r.lexicalSearch === 'process' ? 'in process' : 'in the database'}) grows by ${f(last(r).simulate.p50 - first(r).simulate.p50)} ms. ` +
      `Full-text retrieval alone grows by ${f(last(r).retrieval.p50 - first(r).retrieval.p50)} ms in the database (${f(last(r).retrieval.p50)} ms at ${last(r).bank} transcripts) ` +
      `and by ${f(last(r).retrievalProcess.p50 - first(r).retrievalProcess.p50)} ms in process (${f(last(r).retrievalProcess.p50)} ms; the index built once in ${f(last(r).lexicalBuildMs)} ms).`,
  ),
  '',
  "What the query does (the plans above): the mind's turns in scope are read through turns_mind_idx — all of them, since a",
  "question's words are common and match a large share (here ~2.1k of 5.6k turns; the planner takes the GIN index, ANDed",
  "with the mind's, only for rare words) — each is tested with `tsv @@ q`, the matches are ranked with `ts_rank`, and the",
  'best 300 (top-N heapsort) come back with their text and context. So it grows linearly with the mind\'s turns (read and',
  'test each) and with the matches (rank each); the 300 rows returned are a constant. Replicated transcripts are a worst',
  'case for the matches: every replica matches the same words.',
  '',
  "In process (the default, MINDPRINT_LEXICAL_SEARCH=auto), the scope's turns are read and indexed once per snapshot change",
  "(the build time above) and each query walks only the postings of its words; the index holds the turns, so the statement",
  "left for the database returns only the candidates' ids and ranks.",
  '',
  "Each turn's tsvector is kept in its table row (STORAGE MAIN, migration 0003). Before, a long turn's vector (a third of",
  'these turns) was moved out of line to the TOAST table and fetched from it for `@@` and again for `ts_rank`: 12.3k buffer',
  'hits for the first question at 100 transcripts, 1.8k with the vector in the row (the plans above). Planner statistics',
  'matter too: PGlite has no autovacuum; the snapshot pipeline runs ANALYZE after ingesting (debounced), and these rows are',
  'measured after ANALYZE on both databases, as the service leaves them.',
  '',
);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(RESULTS, lines.join('\n'));
process.stdout.write(lines.join('\n') + '\n');
