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
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { closeParserPool, digestTranscriptFile, type ParseStats } from '../src/features/snapshots/pool.ts';
import { largeTranscriptText } from '../test/support/hostile-files.ts';
import { rows, waitForSnapshot } from '../test/features/snapshots/support.ts';
import { startTestServer, type TestServer } from '../test/support/server.ts';
import { sql } from 'drizzle-orm';

const MB = 1024 * 1024;
const execFileAsync = promisify(execFile);
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

/** This process's resident memory and PGlite's WASM memory (which grows and never shrinks), in MB. */
function serviceMemory(s: TestServer): string {
  const client = (s.ctx.db as unknown as { $client: { mod?: { HEAP8: Uint8Array } } }).$client;
  const wasm = client.mod ? Math.round(client.mod.HEAP8.length / MB) : 0;
  const heap = Math.round(process.memoryUsage().heapUsed / MB);
  return `${rssMb(process.pid)} MB | ${wasm} MB | ${heap} MB`;
}

/** POSTs the file as multipart/form-data from a child Node process (fetch of a file-backed Blob: streamed, not buffered). */
async function uploadFromChild(url: string, key: string, file: string): Promise<{ status: number; body: any }> {
  const script = `const { openAsBlob } = require('node:fs');
(async () => {
  const fd = new FormData();
  fd.append('file', await openAsBlob(process.argv[1], { type: 'text/plain' }), 'interview.txt');
  const res = await fetch(process.argv[2], { method: 'POST', headers: { authorization: 'Bearer ' + process.argv[3] }, body: fd });
  process.stdout.write(JSON.stringify({ status: res.status, body: await res.json() }));
})().catch((e) => { console.error(e); process.exit(1); });`;
  const { stdout } = await execFileAsync(process.execPath, ['-e', script, file, url, key], { maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout);
}

async function pgliteRows(dir: string, mb: number): Promise<void> {
  const file = path.join(dir, `interview-${mb}.txt`);
  await largeTranscriptText(file, mb * MB);
  const s = await startTestServer({ MINDPRINT_MAX_UPLOAD_MB: String(mb + 10) }, { persistent: true });
  try {
    console.log(`\nEmbedded PGlite, in the service's process (data dir on disk), ${mb} MB transcript\n\n| moment | process RSS | PGlite WASM memory | JS heap used |\n|---|---|---|---|`);
    const mind = (await s.api('POST', '/minds', { name: 'Jane Doe' })).body.mind;
    console.log(`| started, one mind | ${serviceMemory(s)} |`);
    // Sent by another process, streaming the file: only the service's own memory is measured here
    // (a client in this process holding the file, its Blob and the encoded form would count too).
    const res = await uploadFromChild(`${s.base}/minds/${mind.id}/snapshots`, s.key, file);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    const snapshotId = res.body.mindAssessmentId;
    console.log(`| uploaded | ${serviceMemory(s)} |`);
    const done = await waitForSnapshot(s, mind.id, snapshotId, 600_000);
    console.log(`| snapshot ${done.status} | ${serviceMemory(s)} |`);
    // The semantic index of 100,000 turns takes minutes on 2 cores: measured as far as it got.
    const indexDeadline = Date.now() + 120_000;
    let index = '';
    while (Date.now() < indexDeadline) {
      index = JSON.stringify((await s.api('GET', `/minds/${mind.id}/semantic-index`)).body).slice(0, 160);
      if (!/pending|indexing|queued|running/.test(index)) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    console.log(`| semantic index after up to 120 s | ${serviceMemory(s)} |`);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    globalThis.gc?.();
    console.log(`| after ${IDLE_MS / 1000} s idle | ${serviceMemory(s)} |`);
    const [size] = await rows(s, sql`select pg_size_pretty(pg_database_size(current_database())) as db, (select count(*)::int from turns) as turns, current_setting('shared_buffers') as sb, current_setting('work_mem') as wm, current_setting('maintenance_work_mem') as mwm`);
    console.log(`\nsemantic index: ${index}\n${size.turns} turns; database ${size.db}; shared_buffers ${size.sb}, work_mem ${size.wm}, maintenance_work_mem ${size.mwm}`);
  } finally {
    await s.close();
  }
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
    await pgliteRows(dir, sizes.length ? Math.max(...sizes) : 40);
  } finally {
    await closeParserPool();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) await main();
