/**
 * Retrieval quality and latency of semantic memory: full text alone against hybrid retrieval
 * (full text + vector similarity to what the person said and to what they were asked, fused by
 * reciprocal rank fusion), on the real conversations of ../shared/data/transcripts.
 *
 * The split is fidelity's (bench/fidelity.ts): for each person in each conversation, memory is the
 * person's other conversations plus the first half of this one, stored as completed snapshots in
 * the real database (embedded PGlite) and embedded by the snapshot-embed job's own code; the
 * questions an interviewer really asked in the second half are the queries. Nothing was tuned on
 * these questions. For each question and each retrieval, the candidates in rank order are
 * compared with the person's real answer by token F1: "oracle F1 @k" is the best F1 among the
 * first k candidates (what a perfect reranker could pick), "@1" what the top candidate scores.
 * Each ratio is hybrid / full text in the same run. Also: the latency of each retrieval (no HTTP),
 * and the upload → completed time of a one-hour VTT with the time its semantic index took after.
 *
 * Run: node --import tsx bench/retrieval.ts  (writes bench/results/retrieval.md)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateFixtures } from './fixtures.ts';
import { embedSnapshot, loadMindScope, recall, retrieveMemory } from '../src/features/memory/index.ts';
import { words } from '../src/engines/extractive/index.ts';
import { searchTerms, understand } from '../src/lib/language/understand.ts';
import type { MemoryTurn } from '../src/engines/types.ts';
import { form } from '../test/features/snapshots/support.ts';
import { seedSnapshot } from '../test/features/simulations/seed.ts';
import { startTestServer } from '../test/support/server.ts';
import { tokenF1 } from './support/token-f1.ts';
import { loadConversations, wholeReply } from './support/fidelity-split.ts';
import { requireSharedData } from '../test/support/shared-data.ts';

requireSharedData('bench/retrieval.ts');
const RESULTS = new URL(`./results/retrieval${process.env.MINDPRINT_VECTOR_SEARCH === 'process' ? '-process' : ''}.md`, import.meta.url);
const KS = [1, 10, 50];

const lower = (t: string) => words(t).map((w) => w.toLowerCase());
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const s = await startTestServer({ MINDPRINT_IN_PROCESS_WORKER: 'true', MINDPRINT_VECTOR_SEARCH: process.env.MINDPRINT_VECTOR_SEARCH ?? 'auto' });
const memory = s.ctx.memory;
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
const job = { id: 'bench', retryCount: 0, retryLimit: 0, isLastAttempt: true };
const convs = await loadConversations();
const oracle = { lexical: KS.map(() => [] as number[]), hybrid: KS.map(() => [] as number[]) };
const times = { lexical: [] as number[], hybrid: [] as number[] };
const candidates = { lexical: [] as number[], hybrid: [] as number[] };
let questions = 0;
const skipped = new Map<string, number>();
let minds = 0;
let embedTurns = 0;
let embedMs = 0;
for (const conv of convs) {
  const half = Math.floor(conv.turns.length / 2);
  for (const person of conv.subjects) {
    const items: { question: string; answer: string }[] = [];
    for (let i = Math.max(1, half); i < conv.turns.length; i++) {
      const t = conv.turns[i]!;
      const q = conv.turns[i - 1]!;
      if (t.speaker !== person || conv.subjects.includes(q.speaker) || t.continues) continue;
      if (!q.text.includes('?') || words(q.text).length < 4 || words(t.text).length < 8) continue;
      items.push({ question: q.text, answer: wholeReply(conv.turns, i) });
    }
    if (!items.length) continue;
    // As fidelity: a person with fewer than 10 turns in memory (a guest who joins in the second half) is left out.
    const parts = [...convs.filter((c) => c !== conv && c.subjects.includes(person)).map((c) => ({ turns: c.turns, date: c.date })), { turns: conv.turns.slice(0, half), date: conv.date }];
    if (parts.reduce((n, p) => n + p.turns.filter((t) => t.speaker === person).length, 0) < 10) continue;
    const mind = (await s.api('POST', '/minds', { name: person })).body.mind;
    for (const p of parts) {
      const { snapshotId } = await seedSnapshot(s.ctx.db, { organizationId: mind.organizationId, mindId: mind.id, mind: person, turns: p.turns, mindsetDate: p.date, analyse: false });
      const t0 = performance.now();
      await embedSnapshot(memory, { snapshotId }, job, silent);
      embedMs += performance.now() - t0;
      embedTurns += p.turns.filter((t) => t.speaker === person).length;
    }
    // What the service does after a bulk write (the debounced ANALYZE on PGlite, autovacuum on PostgreSQL).
    await s.ctx.database.execute('analyze turns; analyze snapshots; analyze turn_embeddings');
    const { scope } = (await loadMindScope(s.ctx.db, mind.organizationId, mind.id, null, memory.embedder.id))!;
    if (scope.embeddedSnapshotCount !== parts.length) throw new Error('not every snapshot is embedded');
    minds++;
    for (const item of items) {
      const gold = lower(item.answer);
      const understood = understand(item.question, []);
      const terms = searchTerms(understood);
      const score = (found: MemoryTurn[], into: number[][]) => {
        const f1 = found.map((t) => tokenF1(lower(t.text), gold));
        KS.forEach((k, i) => into[i]!.push(Math.max(0, ...f1.slice(0, k))));
      };
      let t0 = performance.now();
      const lexical = await retrieveMemory(s.ctx.db, scope, terms);
      times.lexical.push(performance.now() - t0);
      t0 = performance.now();
      const recalled = await recall(memory, scope, item.question, [], understood);
      const hybrid = recalled.memory;
      times.hybrid.push(performance.now() - t0);
      if (recalled.semanticSkipped) skipped.set(recalled.semanticSkipped, (skipped.get(recalled.semanticSkipped) ?? 0) + 1);
      if (!hybrid.some((t) => t.retrieval) && process.env.BENCH_DEBUG) process.stderr.write(`nothing: ${person} ${JSON.stringify(item.question.slice(0, 80))} ${JSON.stringify(terms)} ${recalled.semanticSkipped}\n`);
      // Only what a ranking found counts (not the latest turns handed over when nothing matched).
      score(lexical.filter((t) => t.retrieval), oracle.lexical);
      score(hybrid.filter((t) => t.retrieval), oracle.hybrid);
      candidates.lexical.push(lexical.filter((t) => t.retrieval).length);
      candidates.hybrid.push(hybrid.filter((t) => t.retrieval).length);
      questions++;
    }
  }
}

// Upload → completed, and the semantic index after it, for a one-hour VTT (the ingest bench's file).
const fixtureDir = mkdtempSync(path.join(os.tmpdir(), 'mp-bench-retrieval-'));
const vtt = readFileSync((await generateFixtures(fixtureDir)).vtt);
rmSync(fixtureDir, { recursive: true, force: true });
const uploads: { completed: number; indexed: number }[] = [];
for (let i = 0; i < 5; i++) {
  const mind = (await s.api('POST', '/minds', { name: 'Barack H Obama' })).body.mind;
  const t0 = performance.now();
  const res = await s.api('POST', `/minds/${mind.id}/snapshots`, form({ file: { bytes: vtt, name: 'debate.vtt' } }));
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  let completed = 0;
  for (;;) {
    const st = await s.api('GET', `/minds/${mind.id}/snapshots/${res.body.mindAssessmentId}/status`);
    if (st.body.status === 'completed' && !completed) completed = performance.now() - t0;
    if (st.body.status === 'failed') throw new Error('upload failed');
    if (completed) {
      const idx = await s.api('GET', `/minds/${mind.id}/semantic-index`);
      if (idx.body.status === 'ready') {
        uploads.push({ completed, indexed: performance.now() - t0 });
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
const vectorSearch = await memory.vectorSearch();
await s.close();

const f = (x: number, d = 3) => x.toFixed(d);
const lines = [
  '# Retrieval: full text alone vs hybrid (full text + semantic + question similarity, RRF)',
  '',
  'Generated by `node --import tsx bench/retrieval.ts` (see the header of the file for the method). Embedded PGlite,',
  `vector search: ${vectorSearch}; embedder ${memory.embedder.id}. ${minds} minds, ${questions} real interviewer questions`,
  'from the second half of each conversation, memory = the first half + the person’s other conversations.',
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end.`,
  '',
  '## Quality: best token F1 against the real answer among the first k candidates (mean)',
  '',
  '| k | full text | hybrid | hybrid / full text |',
  '|---:|---:|---:|---:|',
  ...KS.map((k, i) => `| ${k} | ${f(mean(oracle.lexical[i]!))} | ${f(mean(oracle.hybrid[i]!))} | **${f(mean(oracle.hybrid[i]!) / mean(oracle.lexical[i]!), 2)}×** |`),
  '',
  `Candidates per question (median): full text ${pct(candidates.lexical, 0.5)}, hybrid ${pct(candidates.hybrid, 0.5)}; questions where full text found nothing: ${candidates.lexical.filter((n) => n === 0).length}, hybrid: ${candidates.hybrid.filter((n) => n === 0).length}${skipped.size ? ` (vector rankings skipped: ${[...skipped].map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}.`,
  '',
  '## Latency per question (no HTTP)',
  '',
  '| retrieval | p50 | p99 |',
  '|---|---:|---:|',
  `| full text (retrieveMemory) | ${f(pct(times.lexical, 0.5), 1)} ms | ${f(pct(times.lexical, 0.99), 1)} ms |`,
  `| hybrid (recall: embed the message + one statement) | ${f(pct(times.hybrid, 0.5), 1)} ms | ${f(pct(times.hybrid, 0.99), 1)} ms |`,
  '',
  `Hybrid / full text p50: ${f(pct(times.hybrid, 0.5) / pct(times.lexical, 0.5), 2)}×.`,
  '',
  '## Semantic index build',
  '',
  `${embedTurns} mind turns (and their questions) embedded and stored by the snapshot-embed job's code in ${f(embedMs / 1000, 1)} s: **${Math.round(embedTurns / (embedMs / 1000))} turns/s**.`,
  '',
  '## One-hour VTT: upload → completed, then the semantic index (5 uploads, HTTP, in-process worker)',
  '',
  '| upload | → completed | → semantic index ready |',
  '|---:|---:|---:|',
  ...uploads.map((u, i) => `| ${i + 1} | ${f(u.completed / 1000, 2)} s | ${f(u.indexed / 1000, 2)} s |`),
  '',
  `Median: completed ${f(pct(uploads.map((u) => u.completed), 0.5) / 1000, 2)} s, index ready ${f(pct(uploads.map((u) => u.indexed), 0.5) / 1000, 2)} s (aim: completed < 2 s; the index follows in its own job).`,
  '',
];
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(RESULTS, lines.join('\n'));
process.stdout.write(lines.join('\n'));
