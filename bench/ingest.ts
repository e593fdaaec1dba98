/**
 * Ingestion end to end against parsing alone, in one run (issue 3's benchmark).
 *
 * Inputs come from bench/fixtures.ts (generated into a temp dir): a one-hour two-speaker VTT
 * (~10k words), a 100-page PDF and a ~50-page DOCX, all real interview speech.
 *
 * 1. Baselines, in this process, before the server starts: `sniffFile` + `parseTranscriptFile`
 *    (read and parse in a parser worker thread), and `digestTranscriptFile` (parse + attribute +
 *    analyse in a worker thread: everything the snapshot job does except the database).
 * 2. The real service as a child process (`node bin/mindprint.js serve` on the embedded PGlite
 *    default, fresh data dir, LOG_LEVEL=warn); one mind named after a fixture speaker. Per file:
 *    `POST /minds/{id}/snapshots` (multipart, part `file`), then `GET …/status` every 20 ms until
 *    `completed`. The clock runs from just before the POST to the status response saying
 *    `completed`; the file's bytes are read into memory before the clock starts.
 * Each measurement: one warm-up run, then 3 runs, median reported.
 * 3. Latency of `GET /minds/{id}` (a few concurrent sequential clients) on the idle server, then
 *    while 10 large files (a mix of the three) are uploaded at once and processed; and how long a
 *    POST with `speaker` (which reads the file's labels in the request) takes, idle and right
 *    after 3 PDF uploads.
 *
 * Run: node --import tsx bench/ingest.ts        Writes bench/results/ingest.md.
 * Env: BENCH_RUNS (default 3), BENCH_CLIENTS (concurrent GET clients, default 4),
 *      BENCH_IDLE_SECONDS (default 5),
 *      BENCH_CPU_PROF=<dir> runs the service child with --cpu-prof into that directory (and does not
 *      write the results file: profiling slows the server).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generateFixtures } from './fixtures.ts';
import { countWords, sniffFile, type FileKind, type Transcript } from '../src/lib/ingest/index.ts';
import { closeParserPool, digestTranscriptFile, parseTranscriptFile, POOL_SIZE } from '../src/features/snapshots/pool.ts';
import { freePort, start, type Child } from './support/processes.ts';

const RESULTS = new URL('./results/ingest.md', import.meta.url);
const BASE_PATH = '/api/svc';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);
const POLL_MS = 20;
const LOAD_FILES = 10;
/** PDFs queued just before a POST with `speaker`, to show the label check does not wait behind jobs. */
const SPEAKER_QUEUED_PDFS = 3;
/** A speaker of the fixtures (Lex Fridman interviews with Andrew Huberman), so attribution is by name. */
const MIND_NAME = 'Andrew Huberman';
const AIM_VTT_MS = 2000;
const CPU_PROF = process.env.BENCH_CPU_PROF ?? null;

// ─── small helpers ───────────────────────────────────────────────────────────────────────

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** Nearest-rank percentile. */
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** One warm-up, then RUNS timed runs; the last run's value is kept. */
async function repeat<T>(label: string, fn: () => Promise<T>): Promise<{ times: number[]; value: T }> {
  await fn();
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < RUNS; i++) {
    const r = await timed(fn);
    times.push(r.ms);
    value = r.value;
  }
  console.log(`${label.padEnd(34)} ${times.map((t) => t.toFixed(0).padStart(6)).join(' ')} ms  (median ${median(times).toFixed(0)})`);
  return { times, value };
}

// ─── child process ───────────────────────────────────────────────────────────────────────


// ─── the service's API ───────────────────────────────────────────────────────────────────

interface Api {
  base: string;
  headers: Record<string, string>;
  child: Child;
}

interface StatusBody {
  id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
  semanticIndex: { status: 'waiting' | 'indexing' | 'ready' | 'failed' | 'none'; error: string | null };
}

interface SnapshotDetail {
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  attribution: string | null;
  mindSpeaker: string | null;
  mindWords: number;
  speakers: { label: string; turns: number; words: number; isMind: boolean }[] | null;
  psychometricCount: number;
  keyTopicCount: number;
  findingCount: number;
}

async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function upload(api: Api, mindId: string, file: { name: string; bytes: Blob }, fields: Record<string, string> = {}): Promise<string> {
  const form = new FormData();
  form.append('file', file.bytes, file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${api.base}/minds/${mindId}/snapshots`, { method: 'POST', headers: api.headers, body: form });
  return (await json<{ mindAssessmentId: string }>(res, 'POST snapshots')).mindAssessmentId;
}

async function status(api: Api, mindId: string, snapshotId: string): Promise<StatusBody> {
  return json<StatusBody>(await fetch(`${api.base}/minds/${mindId}/snapshots/${snapshotId}/status`, { headers: api.headers }), 'GET status');
}

interface E2eRun {
  postMs: number;
  totalMs: number;
  polls: number;
  snapshotId: string;
  /** POST → the status saying the snapshot's semantic index is `ready` (it is built in a job of its own after `completed`). */
  indexMs: number;
}

/** POST the file, then poll its status every POLL_MS until completed. */
async function endToEnd(api: Api, mindId: string, file: { name: string; bytes: Blob }): Promise<E2eRun> {
  const t0 = performance.now();
  const snapshotId = await upload(api, mindId, file);
  const postMs = performance.now() - t0;
  let polls = 0;
  for (;;) {
    const s = await status(api, mindId, snapshotId);
    polls++;
    if (s.status === 'completed') {
      const totalMs = performance.now() - t0;
      for (let index = s; ; index = await status(api, mindId, snapshotId)) {
        if (index.semanticIndex.status === 'ready') return { postMs, totalMs, polls, snapshotId, indexMs: performance.now() - t0 };
        if (index.semanticIndex.status === 'failed') throw new Error(`semantic index of ${snapshotId} failed: ${index.semanticIndex.error}`);
        if (performance.now() - t0 > 180_000) throw new Error(`semantic index of ${snapshotId} not ready after 180 s`);
        await sleep(POLL_MS);
      }
    }
    if (s.status === 'failed') throw new Error(`snapshot ${snapshotId} failed: ${s.error}`);
    if (performance.now() - t0 > 180_000) throw new Error(`snapshot ${snapshotId} not completed after 180 s (${s.status})`);
    if (api.child.proc.exitCode !== null) throw new Error(`server exited\n${api.child.output()}`);
    await sleep(POLL_MS);
  }
}

async function detail(api: Api, mindId: string, snapshotId: string): Promise<SnapshotDetail> {
  return json<SnapshotDetail>(await fetch(`${api.base}/minds/${mindId}/snapshots/${snapshotId}`, { headers: api.headers }), 'GET snapshot');
}

// ─── GET /minds/{id} latency ─────────────────────────────────────────────────────────────

interface Latency {
  samples: number[];
  errors: number;
  seconds: number;
}

/** CLIENTS concurrent loops of sequential GETs until `until` resolves. Each sample: [start, ms]. */
async function hammer(api: Api, mindId: string, until: Promise<unknown>): Promise<{ at: number; ms: number; ok: boolean }[]> {
  let done = false;
  void until.then(() => (done = true));
  const out: { at: number; ms: number; ok: boolean }[] = [];
  const url = `${api.base}/minds/${mindId}`;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (!done) {
        const at = performance.now();
        let ok = false;
        try {
          const res = await fetch(url, { headers: api.headers });
          await res.arrayBuffer();
          ok = res.ok;
        } catch {
          ok = false;
        }
        out.push({ at, ms: performance.now() - at, ok });
      }
    }),
  );
  return out;
}

function summarize(samples: { at: number; ms: number; ok: boolean }[], from: number, to: number): Latency & { p50: number; p99: number; max: number; rps: number } {
  const inWindow = samples.filter((s) => s.at >= from && s.at < to);
  const ok = inWindow.filter((s) => s.ok).map((s) => s.ms).sort((a, b) => a - b);
  const seconds = (to - from) / 1000;
  return {
    samples: ok,
    errors: inWindow.length - ok.length,
    seconds,
    p50: ok.length ? percentile(ok, 50) : NaN,
    p99: ok.length ? percentile(ok, 99) : NaN,
    max: ok.length ? ok[ok.length - 1]! : NaN,
    rps: inWindow.length / seconds,
  };
}

// ─── main ────────────────────────────────────────────────────────────────────────────────

interface FileRow {
  kind: FileKind;
  label: string;
  path: string;
  bytes: number;
  words: number;
  turns: number;
  speakers: string;
  parse: number[];
  digest: number[];
  e2e: E2eRun[];
  queueMs: number[];
  processMs: number[];
  warmupMs?: number;
  detail?: SnapshotDetail;
}

function machine(): string {
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    /* not Linux */
  }
  return `${os.availableParallelism()} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}`;
}

async function main(): Promise<void> {
  const started = new Date();
  const load = os.loadavg()[0]!;
  const fixturesDir = await mkdtemp(path.join(os.tmpdir(), 'mp-bench-ingest-fixtures-'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-bench-ingest-data-'));
  let child: Child | null = null;
  try {
    const paths = await generateFixtures(fixturesDir);
    const files: FileRow[] = [];
    for (const [label, p] of [['one-hour VTT', paths.vtt], ['100-page PDF', paths.pdf], ['~50-page DOCX', paths.docx]] as const) {
      const kind = await sniffFile(p);
      if (!kind) throw new Error(`${p}: not recognised`);
      files.push({ kind, label, path: p, bytes: (await stat(p)).size, words: 0, turns: 0, speakers: '', parse: [], digest: [], e2e: [], queueMs: [], processMs: [] });
    }

    // 1. Baselines, before the server exists, so they have the machine to themselves.
    console.log(`baselines (warm-up + ${RUNS} runs)`);
    for (const f of files) {
      const parse = await repeat(`${f.label}: sniff + parse`, async () => parseTranscriptFile(f.path, (await sniffFile(f.path))!));
      const t: Transcript = parse.value;
      f.parse = parse.times;
      f.turns = t.turns.length;
      f.words = t.turns.reduce((n, turn) => n + countWords(turn.text), 0);
      const bySpeaker = new Map<string, number>();
      for (const turn of t.turns) bySpeaker.set(turn.speaker, (bySpeaker.get(turn.speaker) ?? 0) + countWords(turn.text));
      f.speakers = [...bySpeaker].map(([s, w]) => `${s} ${fmt(w)}`).join(', ');
      f.digest = (await repeat(`${f.label}: digest`, () => digestTranscriptFile(f.path, f.kind, { mindName: MIND_NAME, requestedSpeaker: null }))).times;
    }
    await closeParserPool();

    // 2. The service.
    const port = await freePort();
    const key = `bench_${randomBytes(24).toString('base64url')}`;
    const nodeArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [];
    child = start([...nodeArgs, 'bin/mindprint.js', 'serve'], {
      PORT: String(port),
      HOST: '127.0.0.1',
      MINDPRINT_DATA_DIR: dataDir,
      MINDPRINT_BOOTSTRAP_KEY: key,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      MINDPRINT_STORAGE_URL: '',
      // The GET clients measure latency as fast as they can: far over the default per-key limit.
      MINDPRINT_RATE_LIMIT_PER_MINUTE: '0',
    });
    const api: Api = { base: `http://127.0.0.1:${port}${BASE_PATH}`, headers: { authorization: `Bearer ${key}` }, child };
    const t0 = performance.now();
    for (;;) {
      if (child.proc.exitCode !== null) throw new Error(`server exited (${child.proc.exitCode})\n${child.output()}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
      if (ready) break;
      if (performance.now() - t0 > 180_000) throw new Error(`server not ready after 180 s\n${child.output()}`);
      await sleep(100);
    }
    const readyMs = performance.now() - t0;
    console.log(`server ready after ${(readyMs / 1000).toFixed(1)} s`);
    const mind = await json<{ mind: { id: string } }>(
      await fetch(`${api.base}/minds`, { method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: MIND_NAME }) }),
      'POST minds',
    );
    const mindId = mind.mind.id;

    const blobs = new Map<string, { name: string; bytes: Blob }>();
    for (const f of files) blobs.set(f.path, { name: path.basename(f.path), bytes: new Blob([await readFile(f.path)]) });

    // One warm-up per file first (a fresh server JITs, spawns its parser workers and fills caches
    // on its first snapshots), then the timed runs round-robin, so drift hits every file alike.
    console.log(`end to end (warm-up + ${RUNS} runs, round-robin)`);
    for (const f of files) f.warmupMs = (await endToEnd(api, mindId, blobs.get(f.path)!)).totalMs;
    for (let i = 0; i < RUNS; i++) {
      for (const f of files) {
        const run = await endToEnd(api, mindId, blobs.get(f.path)!);
        f.e2e.push(run);
        const d = await detail(api, mindId, run.snapshotId);
        const created = Date.parse(d.createdAt);
        const startedAt = Date.parse(d.startedAt!);
        f.queueMs.push(startedAt - created);
        f.processMs.push(Date.parse(d.completedAt!) - startedAt);
        f.detail = d;
      }
    }
    for (const f of files) {
      console.log(
        `${`${f.label}: POST → completed`.padEnd(34)} ${f.e2e.map((r) => r.totalMs.toFixed(0).padStart(6)).join(' ')} ms  (median ${median(f.e2e.map((r) => r.totalMs)).toFixed(0)}; ` +
          `POST ${f.e2e.map((r) => r.postMs.toFixed(0)).join('/')}, semantic index ready ${f.e2e.map((r) => r.indexMs.toFixed(0)).join('/')}, queued ${f.queueMs.join('/')}, processing ${f.processMs.join('/')})`,
      );
    }

    // 3. GET /minds/{id} latency, idle and while 10 files are processed.
    console.log(`GET /minds/{id}: idle for ${IDLE_SECONDS} s (after 1 s warm-up), ${CLIENTS} clients`);
    await hammer(api, mindId, sleep(1000));
    const idleStart = performance.now();
    const idleSamples = await hammer(api, mindId, sleep(IDLE_SECONDS * 1000));
    const idle = summarize(idleSamples, idleStart, performance.now());

    const mix = Array.from({ length: LOAD_FILES }, (_, i) => files[i % files.length]!);
    console.log(`GET /minds/{id}: while ${LOAD_FILES} files (${mix.map((f) => f.kind).join(', ')}) are uploaded and processed`);
    const loadStart = performance.now();
    let uploadsDoneAt = 0;
    let allDoneAt = 0;
    const failures: string[] = [];
    const work = (async () => {
      const ids = await Promise.all(mix.map((f) => upload(api, mindId, blobs.get(f.path)!)));
      uploadsDoneAt = performance.now();
      const pending = new Set(ids);
      while (pending.size > 0) {
        await sleep(100);
        for (const id of [...pending]) {
          const s = await status(api, mindId, id);
          if (s.status === 'completed' || s.status === 'failed') {
            pending.delete(id);
            if (s.status === 'failed') failures.push(`${id}: ${s.error}`);
          }
        }
        if (performance.now() - loadStart > 600_000) throw new Error(`${pending.size} snapshots not done after 600 s`);
      }
      allDoneAt = performance.now();
    })();
    const loadSamples = await hammer(api, mindId, work.catch(() => undefined));
    await work;
    const during = summarize(loadSamples, loadStart, allDoneAt);
    const uploading = summarize(loadSamples, loadStart, uploadsDoneAt);
    const processing = summarize(loadSamples, uploadsDoneAt, allDoneAt);
    const latencyRows = [
      { label: 'idle server', ...idle },
      { label: `${LOAD_FILES} uploads in flight (POST sent → all answered)`, ...uploading },
      { label: `${LOAD_FILES} files processing (all POSTs answered → all completed)`, ...processing },
      { label: `whole loaded window (first POST → all completed)`, ...during },
    ];
    for (const r of latencyRows) console.log(`${r.label.padEnd(64)} n=${r.samples.length} p50 ${r.p50.toFixed(1)} p99 ${r.p99.toFixed(1)} max ${r.max.toFixed(1)} ms errors ${r.errors}`);

    // 3b. POST with `speaker`: the label check reads the file in the request (own parser thread).
    const vttFile = files.find((f) => f.kind === 'vtt')!;
    const pdfFile = files.find((f) => f.kind === 'pdf')!;
    const waitAll = async (ids: string[]) => {
      for (const id of ids) while (!['completed', 'failed'].includes((await status(api, mindId, id)).status)) await sleep(50);
    };
    const speakerPost = async () => {
      const t0 = performance.now();
      const id = await upload(api, mindId, blobs.get(vttFile.path)!, { speaker: MIND_NAME });
      return { ms: performance.now() - t0, id };
    };
    const speakerIdle: number[] = [];
    const speakerBusy: number[] = [];
    console.log(`POST with speaker (${vttFile.label}): idle, and with ${SPEAKER_QUEUED_PDFS} PDFs just queued`);
    for (let i = 0; i <= RUNS; i++) {
      const idle = await speakerPost();
      await waitAll([idle.id]);
      const pdfs = await Promise.all(Array.from({ length: SPEAKER_QUEUED_PDFS }, () => upload(api, mindId, blobs.get(pdfFile.path)!)));
      const busy = await speakerPost();
      await waitAll([...pdfs, busy.id]);
      if (i === 0) continue; // warm-up
      speakerIdle.push(idle.ms);
      speakerBusy.push(busy.ms);
    }
    console.log(`  idle ${speakerIdle.map((x) => x.toFixed(0)).join('/')} ms; with ${SPEAKER_QUEUED_PDFS} PDFs queued ${speakerBusy.map((x) => x.toFixed(0)).join('/')} ms`);

    // 4. Report.
    const loadEnd = os.loadavg()[0]!;
    const ms = (x: number) => fmt(x);
    const rows = files.map((f) => {
      const e2e = median(f.e2e.map((r) => r.totalMs));
      const parse = median(f.parse);
      const digest = median(f.digest);
      return { f, e2e, parse, digest };
    });
    const vtt = rows.find((r) => r.f.kind === 'vtt')!;
    const d = (f: FileRow) => f.detail!;
    const mindSpeaker = (f: FileRow) => `${d(f).mindSpeaker ?? '—'} (${fmt(d(f).mindWords)} words)`;

    const md = `# Ingestion: upload to \`completed\` vs parsing alone

Generated by \`node --import tsx bench/ingest.ts\` on ${started.toISOString().slice(0, 10)}.
Node ${process.version}; machine: ${machine()}; 1-minute load average ${load.toFixed(2)} at the start and ${loadEnd.toFixed(2)} at the end of the run (other work on the
machine was not stopped; on a shared machine these numbers move by 2× or more from run to run).

Method. Inputs from \`bench/fixtures.ts\` (real Lex Fridman / Andrew Huberman interview speech), generated into a
temp dir. **Baselines** run first, in the benchmark process, before the server starts: *parse* = \`sniffFile\` +
\`parseTranscriptFile\` (read and parse in a parser worker thread, result posted back); *digest* =
\`digestTranscriptFile(path, kind, {mindName: "${MIND_NAME}", requestedSpeaker: null})\` (parse + speaker attribution +
analysis in the worker: all the snapshot job does except the database). **End to end**: the real service as a child
process (\`node bin/mindprint.js serve\`, embedded PGlite, fresh data dir, local artifact store, LOG_LEVEL=warn, no rate limit), one mind
named "${MIND_NAME}"; the clock runs from just before \`POST /api/svc/minds/{id}/snapshots\` (multipart, part \`file\`,
bytes already in memory) to the \`GET …/snapshots/{id}/status\` response saying \`completed\`, polled every ${POLL_MS} ms.
Every measurement: one warm-up run, then ${RUNS} runs, median shown (end to end: the three warm-ups first, then the\ntimed runs round-robin VTT, PDF, DOCX). Words = all words of the parsed transcript (both
speakers, \`countWords\`); words/s = words ÷ that column's time. All snapshots go to the same mind, so later runs
insert into tables that already hold the earlier runs' turns.

## Time per file (median of ${RUNS})

| file | size | turns | words | parse ms | parse words/s | digest ms | end-to-end ms | end-to-end words/s | e2e ÷ parse | e2e ÷ digest |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows
  .map(
    ({ f, e2e, parse, digest }) =>
      `| ${f.label} | ${fmt(f.bytes / 1024)} KiB | ${fmt(f.turns)} | ${fmt(f.words)} | ${ms(parse)} | ${fmt(f.words / (parse / 1000))} | ${ms(digest)} | **${ms(e2e)}** | ${fmt(f.words / (e2e / 1000))} | ${(e2e / parse).toFixed(1)} | ${(e2e / digest).toFixed(2)} |`,
  )
  .join('\n')}

Aim: the one-hour VTT \`completed\` in under ${fmt(AIM_VTT_MS)} ms end to end → **${vtt.e2e < AIM_VTT_MS ? 'met' : 'missed'}** (${ms(vtt.e2e)} ms).
Its turns' semantic index (the \`snapshot-embed\` job queued on \`completed\`; the status's \`semanticIndex\`) was \`ready\`
${ms(median(files[0]!.e2e.map((r) => r.indexMs)))} ms after the POST (median; the PDF ${ms(median(files[1]!.e2e.map((r) => r.indexMs)))} ms, the DOCX ${ms(median(files[2]!.e2e.map((r) => r.indexMs)))} ms):
until then a simulation finds the new turns by full text only.

All runs (ms):

${rows.map(({ f }) => `- ${f.kind}: parse ${f.parse.map(ms).join(' / ')}; digest ${f.digest.map(ms).join(' / ')}; end to end ${f.e2e.map((r) => ms(r.totalMs)).join(' / ')} (POST answered ${f.e2e.map((r) => ms(r.postMs)).join(' / ')}; processing ${f.processMs.map(ms).join(' / ')})`).join('\n')}

### Where the end-to-end time goes (median of ${RUNS}; server timestamps from the snapshot, client clock for the rest)

"Warm-up run" is the untimed first run of each file on the fresh server (VTT first: it also pays the parser worker's
start, TypeScript loading and NLP model load).

| file | warm-up run ms | POST answered ms | queued (createdAt → startedAt) ms | processing (startedAt → completedAt) ms | status polls | speakers (words) | mind speaker | attribution | psychometrics / topics / findings |
|---|---:|---:|---:|---:|---:|---|---|---|---|
${rows
  .map(
    ({ f }) =>
      `| ${f.label} | ${ms(f.warmupMs!)} | ${ms(median(f.e2e.map((r) => r.postMs)))} | ${ms(median(f.queueMs))} | ${ms(median(f.processMs))} | ${median(f.e2e.map((r) => r.polls))} | ${f.speakers} | ${mindSpeaker(f)} | ${d(f).attribution ?? '—'} | ${d(f).psychometricCount} / ${d(f).keyTopicCount} / ${d(f).findingCount} |`,
  )
  .join('\n')}

## \`GET /api/svc/minds/{id}\` latency while files are processed

${CLIENTS} concurrent clients, each sending the next request as soon as the previous answer arrives (keep-alive,
in the benchmark process). Idle: ${IDLE_SECONDS} s after a 1 s warm-up, same server, after the runs above. Loaded: ${LOAD_FILES} uploads
(${mix.map((f) => f.kind).join(', ')}) sent at once; the clients start with the uploads and stop when all ${LOAD_FILES} snapshots
are \`completed\` (checked every 100 ms through the status endpoint, one request per pending snapshot, on top of the
clients' load). Rows split the loaded window at the moment the last POST was answered.${failures.length ? `\n\nFailed snapshots: ${failures.join('; ')}` : ''}

| window | duration s | requests | req/s | p50 ms | p99 ms | max ms | errors |
|---|---:|---:|---:|---:|---:|---:|---:|
${latencyRows.map((r) => `| ${r.label} | ${r.seconds.toFixed(1)} | ${fmt(r.samples.length)} | ${fmt(r.rps)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} | ${r.errors} |`).join('\n')}

p99 loaded (processing) ÷ p99 idle: ${(processing.p99 / idle.p99).toFixed(1)}×; p50: ${(processing.p50 / idle.p50).toFixed(1)}×.

## \`POST …/snapshots\` with \`speaker\` while PDFs are processed

A \`speaker\` field makes the request read the file's speaker labels so that an unknown label is a 400 listing
them. The scan runs in its own one-thread parser pool with a 3 s budget (queue wait included; past it the request
is accepted and the job checks the label), not behind the jobs' parses. Measured: POST of the ${vttFile.label} with
\`speaker=${MIND_NAME}\` until its 200, on the idle server and right after ${SPEAKER_QUEUED_PDFS} uploads of the ${pdfFile.label} (their jobs
queued or running); one warm-up pair, then ${RUNS} pairs, waiting for all snapshots between pairs.

| server | runs ms | median ms |
|---|---|---:|
| idle | ${speakerIdle.map(ms).join(' / ')} | ${ms(median(speakerIdle))} |
| ${SPEAKER_QUEUED_PDFS} PDFs queued | ${speakerBusy.map(ms).join(' / ')} | ${ms(median(speakerBusy))} |

## What bounds these numbers

- Parsing, attribution and analysis run in the service's parser worker threads (a pool of max(1, min(2, cores − 1))
  threads, ${POOL_SIZE} here, spawned on first use; the job queue runs as many snapshots at a time), so they do not
  block the event loop; a request's speaker-label scan has one more thread of its own. On a
  ${os.availableParallelism()}-core machine the HTTP thread still competes with busy workers for CPU.
- Embedded PGlite is PostgreSQL in WASM **on the service's main thread**: every statement (the turn inserts with their
  generated tsvector and GIN index, the analysis rows, the status updates, pg-boss fetch/complete, every status poll
  and \`GET /minds/{id}\`) runs synchronously on the event loop, one at a time. That, plus CPU contention with the
  workers, is what stretches \`GET\` latency while files are processed.
- End to end minus digest is the service's own overhead: multipart spooling, sniffing and storing the file, the
  snapshot + job transaction, the job pickup, copying the digest back from the worker, the storing transaction, and
  on average half a ${POLL_MS} ms polling interval.
`;
    if (CPU_PROF) console.log(`\nprofile in ${CPU_PROF}; results not written`);
    else {
      writeFileSync(RESULTS, md);
      console.log(`\nwrote ${fileURLToPath(RESULTS)}`);
    }
  } finally {
    await closeParserPool();
    if (child) {
      await child.stop();
      const tail = child.output().trim();
      if (tail) console.log(`server output:\n${tail.slice(-3000)}`);
    }
    await rm(fixturesDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
