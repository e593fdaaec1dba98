/**
 * Parsing within budgets (issue 10, items 5 and 6), in one run.
 *
 * 1. Files through the parser pool with the default budgets (digest: parse + attribute + analyse,
 *    what the snapshot job runs), each in a fresh parser process: outcome, the process's peak RSS
 *    (the pool's watchdog, /proc), its CPU time and the wall time. Files are generated
 *    (test/support/hostile-files.ts): a PDF with one FlateDecode stream inflating to 528 MB
 *    (issue 10's bomb), three of them at once, a DOCX whose document part inflates to 600 MB while
 *    its headers declare 10 KB, a 45 MB plain-text interview, a WebVTT file with one cue of
 *    4 million words.
 * 2. Fairness on the real service (in this process, embedded PGlite, one parser process so jobs
 *    run one at a time): organization B uploads a small VTT and waits for `completed` — on the
 *    idle service (baseline), then right after organization A uploaded three PDF bombs.
 *
 * Run: node --import tsx bench/parse-budget.ts        Writes bench/results/parse-budget.md.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_PARSE_BUDGETS, type FileKind } from '../src/lib/ingest/index.ts';
import { closeParserPool, digestTranscriptFile, POOL_SIZE, type ParseStats } from '../src/features/snapshots/pool.ts';
import { docxBomb, hugeCueVtt, largeTranscriptText, pdfBomb } from '../test/support/hostile-files.ts';
import { startTestServer } from '../test/support/server.ts';

const RESULTS = new URL('./results/parse-budget.md', import.meta.url);
const MB = 1024 * 1024;

interface Row {
  file: string;
  size: string;
  outcome: string;
  peakRssMb: number;
  cpuS: string;
  wallS: string;
}

async function digestOne(file: string, kind: FileKind): Promise<{ outcome: string; stats: ParseStats }> {
  let stats: ParseStats = { peakRssMb: 0, cpuMs: 0, wallMs: 0 };
  const t0 = performance.now();
  let outcome: string;
  try {
    const d = await digestTranscriptFile(file, kind, { mindName: 'Jane Doe', requestedSpeaker: null }, {}, { onStats: (s) => (stats = s) });
    outcome = `completed: ${d.turns.length.toLocaleString('en-US')} turns, ${d.analysis.mindWords.toLocaleString('en-US')} mind words`;
  } catch (err) {
    outcome = `refused: ${(err as Error).message}`;
  }
  if (!stats.wallMs) stats.wallMs = Math.round(performance.now() - t0);
  await closeParserPool(); // a fresh process for the next file: peak RSS is this file's alone
  return { outcome, stats };
}

const secs = (ms: number) => (ms / 1000).toFixed(1);

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-parse-budget-'));
  const rows: Row[] = [];
  try {
    const files: { name: string; kind: FileKind; make: (p: string) => Promise<unknown> }[] = [
      { name: 'pdf-bomb-528mb.pdf', kind: 'pdf', make: (p) => writeFile(p, pdfBomb(528 * MB)) },
      { name: 'docx-bomb-600mb.docx', kind: 'docx', make: (p) => writeFile(p, docxBomb(600 * MB)) },
      { name: 'interview-45mb.txt', kind: 'txt', make: (p) => largeTranscriptText(p, 45 * MB) },
      { name: 'one-cue-4m-words.vtt', kind: 'vtt', make: (p) => hugeCueVtt(p, 4_000_000) },
    ];
    for (const f of files) {
      const p = path.join(dir, f.name);
      await f.make(p);
      const size = (await stat(p)).size;
      const { outcome, stats } = await digestOne(p, f.kind);
      rows.push({ file: f.name, size: `${(size / MB).toFixed(1)} MB`, outcome, peakRssMb: stats.peakRssMb, cpuS: secs(stats.cpuMs), wallS: secs(stats.wallMs) });
      console.log(rows[rows.length - 1]);
    }
    // Three bombs at once, in as many processes as the pool has.
    const bomb = path.join(dir, 'pdf-bomb-528mb.pdf');
    const t0 = performance.now();
    const three: ParseStats[] = [];
    const outcomes = await Promise.all([0, 1, 2].map(() => digestTranscriptFile(bomb, 'pdf', { mindName: 'x', requestedSpeaker: null }, {}, { onStats: (s) => three.push(s) }).then(() => 'completed', (e: Error) => e.name)));
    await closeParserPool();
    rows.push({ file: '3 × pdf-bomb-528mb.pdf at once', size: '3 × 0.5 MB', outcome: outcomes.join(', '), peakRssMb: Math.max(...three.map((s) => s.peakRssMb)), cpuS: secs(three.reduce((n, s) => n + s.cpuMs, 0)), wallS: secs(performance.now() - t0) });
    console.log(rows[rows.length - 1]);

    // Fairness on the service.
    const s = await startTestServer({ MINDPRINT_PARSER_PROCESSES: '1' });
    let idleMs = 0;
    let busyMs = 0;
    let bombsDoneMs = 0;
    try {
      const b = await s.newKey('org-b', 'b@example.org');
      const mindA = (await s.api('POST', '/minds', { name: 'Jane Doe' })).body.mind;
      const mindB = (await s.api('POST', '/minds', { name: 'John Roe' }, b.key)).body.mind;
      const small = (n: number) => `WEBVTT\n\n00:01.000 --> 00:03.000\n<v Host>Welcome, what do you think, round ${n}?\n\n00:03.000 --> 00:06.000\n<v John Roe>I think we should build more homes and better schools.\n`;
      const post = (mindId: string, bytes: Uint8Array | string, name: string, key?: string) => {
        const fd = new FormData();
        fd.append('file', new Blob([bytes as BlobPart]), name);
        return s.api('POST', `/minds/${mindId}/snapshots`, fd, key);
      };
      const wait = async (mindId: string, id: string, key?: string) => {
        for (;;) {
          const r = await s.api('GET', `/minds/${mindId}/snapshots/${id}/status`, undefined, key);
          if (r.body.status === 'completed' || r.body.status === 'failed') return r.body;
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const timedSmall = async (n: number) => {
        const t = performance.now();
        const r = await post(mindB.id, small(n), `small-${n}.vtt`, b.key);
        await wait(mindB.id, r.body.mindAssessmentId, b.key);
        return performance.now() - t;
      };
      await timedSmall(0); // warm
      idleMs = await timedSmall(1);
      const bombBytes = pdfBomb(528 * MB);
      const tb = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await post(mindA.id, bombBytes, `bomb-${i}.pdf`)).body.mindAssessmentId);
      busyMs = await timedSmall(2);
      await Promise.all(ids.map((id) => wait(mindA.id, id)));
      bombsDoneMs = performance.now() - tb;
    } finally {
      await s.close();
      await closeParserPool();
    }

    const md = [
      '# Parsing within budgets — `bench/parse-budget.ts`',
      '',
      `Default budgets: memory ${DEFAULT_PARSE_BUDGETS.memoryMb} MB, CPU ${DEFAULT_PARSE_BUDGETS.cpuSeconds} s, decoded ${DEFAULT_PARSE_BUDGETS.maxDecodedBytes / MB} MB; ${POOL_SIZE} parser process(es) on ${os.availableParallelism()} cores (load average at the end ${os.loadavg()[0]!.toFixed(1)}). Wall times depend on the machine's load; CPU time and peak RSS do not.`,
      '',
      '| file | size | outcome | peak RSS of the parser | CPU | wall |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.file} | ${r.size} | ${r.outcome} | ${r.peakRssMb} MB | ${r.cpuS} s | ${r.wallS} s |`),
      '',
      '## Fairness: organization B\'s small upload (upload → `completed`), one parser process',
      '',
      '| situation | latency | ratio to idle |',
      '|---|---|---|',
      `| idle service (baseline, same run) | ${secs(idleMs)} s | 1.0 |`,
      `| right after organization A uploaded 3 PDF bombs (528 MB each) | ${secs(busyMs)} s | ${(busyMs / idleMs).toFixed(1)} |`,
      `| (all 3 bombs settled, failed with the decoded limit, after) | ${secs(bombsDoneMs)} s | |`,
      '',
    ].join('\n');
    writeFileSync(RESULTS, md);
    console.log(md);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
