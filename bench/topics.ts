/**
 * Topic labels benchmark: the share of topic labels that a reader would call a topic (THE RULE in
 * src/lib/analysis/topic-labels.ts, `readerTopicFailure`), on the people of the fidelity benchmark —
 * every debate nominee and every podcast guest (≥ 20 turns, hosts aside) in each conversation of
 * ../shared/data/transcripts, read as the service reads an upload.
 *
 * Baseline in the same run: the analysis of another checkout (MINDPRINT_TOPICS_BEFORE=<path of a
 * worktree of the older commit, with node_modules>), judged by the same rule on the same tokens.
 * Also the analysis time of both (median of 3 runs after a warm-up), since topics run at ingest.
 * Writes bench/results/topics.md.
 *
 * Run: MINDPRINT_TOPICS_BEFORE=/tmp/topics-before node --import tsx bench/topics.ts
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyseTurns, type AnalysisResult, type AnalysisTurn } from '../src/lib/analysis/index.ts';
import { prepareTurns } from '../src/lib/analysis/prepare.ts';
import { indexLabels, labelUses, readerTopicFailure, type ReaderRule } from '../src/lib/analysis/topic-labels.ts';
import { parseTranscript, TRANSCRIPTS, transcriptTurns } from '../test/lib/analysis/transcripts.ts';
import { requireSharedData } from '../test/support/shared-data.ts';

requireSharedData('bench/topics.ts');
const RESULTS = new URL('./results/topics.md', import.meta.url);
const HOSTS = new Set(['Lex Fridman', 'Lenny Rachitsky', 'Lenny']);
const MIN_GUEST_TURNS = 20;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

type Analyse = (turns: AnalysisTurn[]) => AnalysisResult;
const beforePath = process.env.MINDPRINT_TOPICS_BEFORE;
const before: Analyse | null = beforePath
  ? ((await import(pathToFileURL(`${beforePath}/src/analysis/index.ts`).href)) as { analyseTurns: Analyse }).analyseTurns
  : null;

/** The people of the fidelity benchmark: debate nominees and podcast guests, per conversation. */
async function minds(): Promise<{ file: string; person: string }[]> {
  const out: { file: string; person: string }[] = [];
  const debates = new URL('us-presidential-debates/', TRANSCRIPTS);
  for (const f of readdirSync(debates).filter((f) => f.endsWith('.said.txt')).sort()) {
    const meta = JSON.parse(readFileSync(new URL(f.replace('.said.txt', '.json'), debates), 'utf8')) as { speakers: { fullName: string; role: string }[] };
    for (const s of meta.speakers.filter((s) => /nominee/i.test(s.role))) out.push({ file: `us-presidential-debates/${f}`, person: s.fullName });
  }
  for (const dir of ['lex-fridman-podcast', 'lennys-podcast'])
    for (const f of readdirSync(new URL(`${dir}/`, TRANSCRIPTS)).sort()) {
      const t = await parseTranscript(`${dir}/${f}`);
      const counts = new Map<string, number>();
      for (const turn of t.turns) if (!turn.continues) counts.set(turn.speaker, (counts.get(turn.speaker) ?? 0) + 1);
      for (const [person, n] of [...counts].sort()) if (!HOSTS.has(person) && n >= MIN_GUEST_TURNS) out.push({ file: `${dir}/${f}`, person });
    }
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function timed(fn: () => AnalysisResult): { result: AnalysisResult; ms: number } {
  let result = fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    result = fn();
    times.push(performance.now() - t0);
  }
  return { result, ms: median(times) };
}

const lines: string[] = [];
const out = (s = ''): void => {
  lines.push(s);
  console.log(s);
};

interface Judged {
  labels: { label: string; failure: ReaderRule | null }[];
  ms: number;
  findings: number;
  /** Findings whose statement restates an aside of the quote ("applied they think to…"). */
  asides: number;
  /** Findings with a garbled join: an opener kept ("Thinks that yes, …"), a stray or doubled comma. */
  garbled: number;
}

/** An aside of the speaker restated as if it were part of the claim. */
const RESTATED_ASIDE = /\bthey (?:think|guess|believe|suppose|mean)\b|\bthey['\u2019]d say\b/i;
const GARBLED = /^(?:Thinks|Believes|Feels|Suspects|Doubts) that (?:yes|no|look|well|so|oh),|\s,|,\s*,/;

function judge(turns: AnalysisTurn[], analyse: Analyse): Judged {
  const { result, ms } = timed(() => analyse(turns));
  const index = indexLabels(prepareTurns(turns).map((t) => t.tokens));
  const quoteHas = (q: string): boolean => RESTATED_ASIDE.test(q.replace(/\bI\b/g, 'they'));
  return {
    ms,
    findings: result.findings.length,
    // An aside counts when the statement says "they think" where the quote had none at that place: the quote's own
    // "I think" mid-sentence, restated. (A quote whose own words say "they think" is not counted.)
    asides: result.findings.filter((f) => RESTATED_ASIDE.test(f.statement.replace(/^\S+ that /, '')) && quoteHas(f.quote) && !RESTATED_ASIDE.test(f.quote)).length,
    garbled: result.findings.filter((f) => GARBLED.test(f.statement)).length,
    labels: result.keyTopics.map((t) => ({ label: t.label, failure: readerTopicFailure(t.label, labelUses(t.label, index), t.evidence.map((e) => e.quote)) })),
  };
}

const cases = await minds();
out('# Topic labels: would a reader call them topics?');
out();
out(`Machine: ${process.platform} ${process.arch}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at the start (2 cores, shared). ${cases.length} people-in-a-conversation of the fidelity benchmark (debate nominees; podcast guests with ≥ ${MIN_GUEST_TURNS} turns).`);
out();
out('The rule (`readerTopicFailure` in `src/lib/analysis/topic-labels.ts`): a label is (1) said by the person at least twice, (2) a noun phrase (its last word a noun in half its uses), (3) names something on its own (not a bare platform, media, shell or generic noun, nor vague modifiers on one), (4) whole (a lone word not mostly said as a piece of something longer: before another noun or inside a capitalised name), (5) shown (some evidence quote of the topic says it). A failing label is marked with the rule it breaks.');
out();
out(`| person, conversation | mind words | before: labels | after: labels | pass before | pass after | ms before | ms after |`);
out('|---|---:|---|---|---:|---:|---:|---:|');
const tally = { before: { pass: 0, all: 0, ms: 0, findings: 0, asides: 0, garbled: 0 }, after: { pass: 0, all: 0, ms: 0, findings: 0, asides: 0, garbled: 0 } };
const failures = { before: new Map<ReaderRule, number>(), after: new Map<ReaderRule, number>() };
let totalWords = 0;
for (const c of cases) {
  const turns = await transcriptTurns(c.file, c.person);
  const after = judge(turns, analyseTurns);
  const prior = before ? judge(turns, before) : null;
  const words = analyseTurns(turns).mindWords;
  totalWords += words;
  const show = (j: Judged): string => j.labels.map((l) => (l.failure ? `~~${l.label}~~ (${l.failure})` : l.label)).join(', ');
  const share = (j: Judged): string => `${j.labels.filter((l) => !l.failure).length}/${j.labels.length}`;
  for (const [side, j] of [['after', after], ['before', prior]] as const) {
    if (!j) continue;
    tally[side].pass += j.labels.filter((l) => !l.failure).length;
    tally[side].all += j.labels.length;
    tally[side].ms += j.ms;
    tally[side].findings += j.findings;
    tally[side].asides += j.asides;
    tally[side].garbled += j.garbled;
    for (const l of j.labels) if (l.failure) failures[side].set(l.failure, (failures[side].get(l.failure) ?? 0) + 1);
  }
  out(`| ${c.person}, ${c.file.replace(/\.(said|transcript\.md)?\.?txt$/, '')} | ${words} | ${prior ? show(prior) : '–'} | ${show(after)} | ${prior ? share(prior) : '–'} | ${share(after)} | ${prior ? prior.ms.toFixed(0) : '–'} | ${after.ms.toFixed(0)} |`);
}
const pct = (t: { pass: number; all: number }): string => (t.all ? `${((100 * t.pass) / t.all).toFixed(1)} % (${t.pass}/${t.all})` : '–');
out(`| **all** | ${totalWords} | | | **${pct(tally.before)}** | **${pct(tally.after)}** | ${tally.before.ms.toFixed(0)} | ${tally.after.ms.toFixed(0)} |`);
out();
const rules = (m: Map<ReaderRule, number>): string => [...m].map(([r, n]) => `${r} ${n}`).join(', ') || 'none';
out(`Failures by rule — before: ${rules(failures.before)}; after: ${rules(failures.after)}.`);
out();
out('## Findings: statements that restate an aside or read garbled');
out();
out('Same analyses. *Aside restated*: the statement says "they think / guess / believe / suppose / mean" or "they\'d say" taken from the speaker\'s own "I think…" inside the quote (the complement of "Thinks that…" read mid-clause). *Garbled*: an opener kept after "Thinks that" ("Thinks that yes, …"), or a stray or doubled comma left by a join.');
out();
out('| | findings | aside restated | garbled join |');
out('|---|---:|---:|---:|');
for (const side of ['before', 'after'] as const) if (tally[side].all) out(`| ${side} | ${tally[side].findings} | ${tally[side].asides} | ${tally[side].garbled} |`);
out();
if (before) out(`Analysis time, all ${cases.length} (median of ${RUNS} after a warm-up, back to back): before ${tally.before.ms.toFixed(0)} ms, after ${tally.after.ms.toFixed(0)} ms (× ${(tally.after.ms / tally.before.ms).toFixed(2)}; ${((tally.after.ms / totalWords) * 10000).toFixed(0)} ms per 10k words after).`);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(RESULTS, `${lines.join('\n')}\n`);
console.log(`\nwrote ${RESULTS.pathname}`);
