/**
 * HTTP throughput of the read API against a bare `node:http` handler, in one run.
 *
 * For each database (embedded PGlite, then PostgreSQL in a throwaway database `mp_bench_<random>`
 * on DATABASE_URL's server, dropped afterwards) the real service is started as a child process
 * (`node bin/mindprint.js serve`, LOG_LEVEL=warn, a fixed bootstrap key), 100 minds with two
 * tags each are created over HTTP, and autocannon (programmatic API, in this process) drives
 *   GET {base}/minds/{id}   and   GET {base}/minds   (all 100 minds)
 * with 50 connections for 10 s each, after a 2 s warm-up, in two configurations:
 *   - "cache hit": as shipped; GET /minds/{id} reads one mind, so it measures the read cache's hit path;
 *   - "cache off": MINDPRINT_READ_CACHE=false, GET /minds/{id} cycling over the 100 ids, so every
 *     request runs the (prepared) SQL statement: the miss path.
 * With BENCH_BASELINE_CHECKOUT=<dir> (a checkout of an earlier commit with node_modules), the same
 * two routes are also measured on that code ("before"), in the same run.
 * The baseline is a bare `node:http` server, also a child process, answering JSON.stringify of the
 * very response body the service returned (same bytes, serialized per request), one run per
 * response size. Load generator and server are separate processes but share the machine's cores
 * (and, on PostgreSQL, with the database server). Writes bench/results/api.md.
 *
 * Run: node --import tsx bench/api.ts
 * Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1/postgres; "none" skips PostgreSQL),
 *      BENCH_DURATION (seconds, default 10), BENCH_CONNECTIONS (default 50),
 *      BENCH_BASELINE_CHECKOUT=<dir> adds "before" rows from that checkout,
 *      BENCH_DATABASES=PGlite|PostgreSQL measures one database only (results file not written),
 *      BENCH_CPU_PROF=<dir> runs the service children with --cpu-prof into that directory (and does
 *      not write the results file), BENCH_ONLY=id|list measures one route of the service only.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createThrowawayDatabase } from '../test/support/pg.ts';
import { freePort, start, type Child } from './support/processes.ts';

// ─── autocannon (no type declarations in the package) ────────────────────────────────────

interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  /** Each connection cycles through these. */
  requests?: { method: string; path: string }[];
}
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  throughput: { average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: CannonOptions) => Promise<CannonResult>;

const RESULTS = new URL('./results/api.md', import.meta.url);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1/postgres';
const CPU_PROF = process.env.BENCH_CPU_PROF ?? null;
const BASELINE_CHECKOUT = process.env.BENCH_BASELINE_CHECKOUT ?? null;
/** "PGlite,PostgreSQL" by default; one of them to measure only it (not for the results file). */
const DATABASES = (process.env.BENCH_DATABASES ?? 'PGlite,PostgreSQL').toLowerCase().split(',');
/** "id" or "list" measures only GET /minds/{id} or only GET /minds on the service (for profiling one route). */
const ONLY = process.env.BENCH_ONLY ?? null;
const MINDS = 100;
const BASE_PATH = '/api/svc';
/** Aims from the issue: GET /minds/{id} req/s as a share of the bare handler's. */
const AIM: Record<string, number> = { PGlite: 0.1, PostgreSQL: 0.3 };

// ─── bare handler (this file, run as a child with `bare <json file>`) ───────────────────

async function runBare(file: string): Promise<void> {
  const body: unknown = JSON.parse(await readFile(file, 'utf8'));
  const server = createServer((_req, res) => {
    const json = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

// ─── child processes ─────────────────────────────────────────────────────────────────────


async function until<T>(what: string, child: Child, probe: () => Promise<T | null>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`${what}: child exited (${child.proc.exitCode})\n${child.output()}`);
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// ─── one benchmark ───────────────────────────────────────────────────────────────────────

interface Row {
  target: string;
  database: string;
  /** "cache hit", "cache off", "before (<commit>)"; "" for the bare handler. */
  variant: string;
  bytes: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

async function measure(
  target: string,
  database: string,
  variant: string,
  url: string,
  bytes: number,
  headers: Record<string, string> = {},
  paths?: string[],
): Promise<Row> {
  const requests = paths?.map((path) => ({ method: 'GET', path }));
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP, headers, requests });
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers, requests });
  const row: Row = {
    target,
    database,
    variant,
    bytes,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
  };
  console.log(`${database.padEnd(10)} ${variant.padEnd(18)} ${target.padEnd(22)} ${row.rps.toFixed(0).padStart(7)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}  errors ${row.errors}`);
  return row;
}

interface Bodies {
  one: string;
  list: string;
}

interface Variant {
  label: string;
  env?: Record<string, string>;
  /** The service's executable (another checkout's bin/mindprint.js for "before"). */
  bin?: string;
  /** GET /minds/{id} cycles over all ids (every request a different mind) instead of reading one. */
  cycleIds?: boolean;
}

async function benchService(database: 'PGlite' | 'PostgreSQL', databaseUrl: string | null, variant: Variant, rows: Row[]): Promise<Bodies> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-bench-'));
  const port = await freePort();
  const key = `bench_${randomBytes(24).toString('base64url')}`;
  const nodeArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(CPU_PROF, database, variant.label.replace(/\W+/g, '-'))}`] : [];
  const child = start([...nodeArgs, variant.bin ?? 'bin/mindprint.js', 'serve'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    MINDPRINT_DATA_DIR: dataDir,
    MINDPRINT_BOOTSTRAP_KEY: key,
    LOG_LEVEL: 'warn',
    // One key at tens of thousands of requests a second: far over the per-key default (3000 a
    // minute). Raised, not turned off, so the limiter's cost is in the figures.
    MINDPRINT_RATE_LIMIT_PER_MINUTE: '100000000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '' }),
    ...variant.env,
  });
  try {
    const base = `http://127.0.0.1:${port}${BASE_PATH}`;
    const headers = { authorization: `Bearer ${key}` };
    const t0 = Date.now();
    await until(`${database} server`, child, async () => ((await fetch(`${base}/minds`, { headers })).ok ? true : null));
    console.log(`${database} (${variant.label}): serving after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const ids: string[] = [];
    for (let i = 0; i < MINDS; i++) {
      const res = await fetch(`${base}/minds`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bench Mind ${String(i).padStart(3, '0')}`, tags: `bench,group-${i % 10}` }),
      });
      if (!res.ok) throw new Error(`POST /minds: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { mind: { id: string } }).mind.id);
    }
    const id = ids[MINDS / 2]!;
    const one = await (await fetch(`${base}/minds/${id}`, { headers })).text();
    const list = await (await fetch(`${base}/minds`, { headers })).text();
    const count = (JSON.parse(list) as { minds: { tags: unknown[] }[] }).minds.length;
    if (count !== MINDS) throw new Error(`GET /minds returned ${count} minds, expected ${MINDS}`);
    if (ONLY !== 'list') {
      rows.push(
        variant.cycleIds
          ? await measure(`GET /minds/{id}`, database, `${variant.label}, ${MINDS} ids`, base, Buffer.byteLength(one), headers, ids.map((i) => `${BASE_PATH}/minds/${i}`))
          : await measure('GET /minds/{id}', database, variant.label, `${base}/minds/${id}`, Buffer.byteLength(one), headers),
      );
    }
    if (ONLY !== 'id') rows.push(await measure(`GET /minds (${MINDS})`, database, variant.label, `${base}/minds`, Buffer.byteLength(list), headers));
    return { one, list };
  } finally {
    await child.stop();
    const tail = child.output().trim();
    if (tail) console.log(`${database} server output:\n${tail.slice(-2000)}`);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Every configuration measured on one database, in a fresh throwaway database each on PostgreSQL. */
async function benchDatabase(database: 'PGlite' | 'PostgreSQL', rows: Row[]): Promise<Bodies> {
  const variants: Variant[] = [];
  if (BASELINE_CHECKOUT) variants.push({ label: `before (${baselineCommit})`, bin: path.join(BASELINE_CHECKOUT, 'bin/mindprint.js') });
  variants.push({ label: 'cache hit' }, { label: 'cache off', env: { MINDPRINT_READ_CACHE: 'false' }, cycleIds: true });
  let bodies: Bodies | null = null;
  for (const variant of variants) {
    if (database === 'PGlite') {
      bodies = await benchService(database, null, variant, rows);
      continue;
    }
    const db = await createPgDatabase(PG_URL);
    try {
      bodies = await benchService(database, db.url, variant, rows);
    } finally {
      await db.drop();
    }
  }
  return bodies!;
}

async function benchBare(label: string, body: string, rows: Row[]): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-bench-bare-'));
  const file = path.join(dir, 'body.json');
  await writeFile(file, body);
  const child = start(['--import', 'tsx', fileURLToPath(import.meta.url), 'bare', file], {});
  try {
    const port = await until('bare handler', child, async () => {
      const m = /LISTENING (\d+)/.exec(child.output());
      return m ? Number(m[1]) : null;
    });
    rows.push(await measure(label, 'none', '', `http://127.0.0.1:${port}/`, Buffer.byteLength(body)));
  } finally {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function createPgDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const db = await createThrowawayDatabase(adminUrl, 'mp_bench');
  console.log(`PostgreSQL ${db.serverVersion}: created database ${db.name}`);
  pgVersion = db.serverVersion;
  return {
    url: db.url,
    drop: async () => {
      await db.drop();
      console.log(`dropped database ${db.name}`);
    },
  };
}

let pgVersion = '';
const baselineCommit = BASELINE_CHECKOUT
  ? execFileSync('git', ['-C', BASELINE_CHECKOUT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  : '';

// ─── report ──────────────────────────────────────────────────────────────────────────────

function machine(): string {
  let cpu = 'unknown CPU';
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    cpu = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpu;
  } catch {
    /* not Linux */
  }
  return `${os.availableParallelism()} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}`;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const kb = (bytes: number) => `${fmt(bytes)} B`;

function report(rows: Row[]): string {
  const bare = (bytes: number) => rows.filter((r) => r.database === 'none').sort((a, b) => Math.abs(a.bytes - bytes) - Math.abs(b.bytes - bytes))[0];
  const lines = [
    '| endpoint | database | configuration | response | req/s (avg) | p50 ms | p99 ms | non-2xx | errors | vs bare handler | aim |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const isBare = r.database === 'none';
    const b = isBare ? null : bare(r.bytes);
    const ratio = b ? r.rps / b.rps : null;
    const aim = !isBare && r.target.startsWith('GET /minds/{id}') ? AIM[r.database] : undefined;
    const aimCell = aim === undefined || ratio === null ? '' : `≥ ${aim * 100}%: ${ratio >= aim ? 'met' : '**missed**'}`;
    lines.push(
      `| ${isBare ? `bare node:http, ${r.target}` : r.target} | ${isBare ? '—' : r.database} | ${r.variant || '—'} | ${kb(r.bytes)} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${ratio === null ? '1' : `${(ratio * 100).toFixed(1)}%`} | ${aimCell} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const started = new Date();
  const load = os.loadavg()[0]!;
  let bodies: Bodies | null = null;
  if (DATABASES.includes('pglite')) bodies = await benchDatabase('PGlite', rows);
  if (PG_URL !== 'none' && DATABASES.includes('postgresql')) bodies = await benchDatabase('PostgreSQL', rows);
  if (!bodies) throw new Error('BENCH_DATABASES names no database');
  await benchBare(`same size as GET /minds/{id}`, bodies.one, rows);
  await benchBare(`same size as GET /minds (${MINDS})`, bodies.list, rows);

  const md = `# HTTP API throughput

Generated by \`node --import tsx bench/api.ts\` on ${started.toISOString().slice(0, 10)}.
Node ${process.version}; machine: ${machine()}${pgVersion ? `; PostgreSQL ${pgVersion} on the same machine` : ''};
1-minute load average ${load.toFixed(2)} when the run started and ${os.loadavg()[0]!.toFixed(2)} when it ended (other work on the
machine was not stopped; the numbers move with it).

Method. The service runs as a child process (\`node bin/mindprint.js serve\`, LOG_LEVEL=warn, job worker in process
as by default), on embedded PGlite (a fresh data dir each time) and on PostgreSQL (a fresh throwaway database
\`mp_bench_<random>\` each time, dropped afterwards), in each configuration below. ${MINDS} minds with two tags each
are created over HTTP with the bootstrap key; autocannon (programmatic API, in the parent process, so load generator
and server are separate processes but share the ${os.availableParallelism()} cores) then sends ${CONNECTIONS} concurrent keep-alive connections
for ${DURATION} s per row, after a ${WARMUP} s warm-up, every request with \`Authorization: Bearer <key>\`. Configurations:

- **cache hit** — the service as shipped. \`GET /minds/{id}\` reads one mind (the 51st created) and \`GET /minds\` lists
  all ${MINDS}, so after the first request both are answered from the read cache: this is the hit path.
- **cache off, ${MINDS} ids** — \`MINDPRINT_READ_CACHE=false\`, and every connection cycles through the ${MINDS} ids, so every
  request runs the (prepared) SQL statement and serializes the result: this is the miss path.${
    baselineCommit
      ? `
- **before (${baselineCommit})** — the code of commit ${baselineCommit} (no cache on PostgreSQL, unprepared statements), same
  requests as "cache hit", measured in the same run for comparison.`
      : ''
  }

The baseline, in the same run, is a bare \`node:http\` server (also a child process) that answers every request
with \`JSON.stringify\` of the exact body the service returned, so the bytes on the wire match; "vs bare handler"
divides by the baseline of the same response size. Latencies are autocannon's percentiles over all requests of the
row; "errors" counts connection errors and requests without an answer within autocannon's 10 s timeout.

${report(rows)}

## What bounds each number

- **Bare handler.** Pure Node HTTP: parse the request, stringify an object, write the socket. On this machine it
  shares the cores with autocannon, which needs about as much CPU as the server, so it is bounded by about one core
  of \`node:http\`; a larger body costs mostly in \`JSON.stringify\` and socket writes.
- **Cache hit.** Per request: Fastify routing, the onRequest hook (bearer header parse, SHA-256 of the key, a lookup in
  the key cache; last use and usage counters are kept in memory and flushed every 10 s), param validation, a Map
  lookup with the organization's generation check, and sending the JSON string cached when the entry was filled (no
  SQL, no serialization), plus the onSend/onResponse hooks. What is left over the bare handler is Fastify's
  per-request work, on one core shared with autocannon (and, on PostgreSQL, with the database server, which is idle
  here). The list's hit is *faster* than its bare handler, which stringifies ${fmt(Math.round((rows.find((r) => r.target.startsWith('GET /minds (') && r.database !== 'none')?.bytes ?? 0) / 1024))} KB on every request while the
  service sends a ready string: that ratio shows the serialization saved, not a like-for-like comparison.
  Freshness: a write through a replica invalidates its own cache before the response leaves (read-your-writes);
  every committed write, whoever makes it, reaches every replica through PostgreSQL NOTIFY (trigger → LISTEN on a
  dedicated connection) within milliseconds of the commit; while that connection is down the cache is bypassed,
  and an entry is never older than 5 s (TTL), which bounds staleness even if an outage went unnoticed.
- **Cache off (miss path).** One SQL statement per request (the mind with its tags as \`json_agg\` and snapshot
  counts in a lateral join), decoding and mapping of the row, schema-based serialization.
  - *PostgreSQL*: the statement is a named prepared statement, so each pooled connection parses it once and, after
    five executions, runs a generic plan without planning it again. Planning was the missing piece before: the
    server spent 1.1–1.4 ms planning this statement per request against ~0.5 ms executing it (pgbench of the same
    statement: ~5k tps unprepared, ~25k prepared). What remains per request is a round trip to the database over
    a 10-connection pool, the execution, and the service's own work; the PostgreSQL backends compete for the same
    ${os.availableParallelism()} cores as the service and autocannon.
  - *PGlite*: PostgreSQL compiled to WASM, **single-threaded, inside the server's own process and event loop**.
    Every query is parsed, planned and executed on the thread that serves HTTP, one at a time, so 50 connections
    queue behind one another: throughput is bounded by (HTTP work + query time) on one thread.
- **GET /minds (${MINDS}), cache off.** The same statement returning ${MINDS} rows, each with a correlated tag aggregate and
  a lateral count: row decoding, JSON parsing of the tag aggregates, the per-row mapping and the serialization of
  ${MINDS} objects dominate (on PGlite, the query itself in WASM on the event loop).
`;
  if (CPU_PROF || ONLY || DATABASES.length < 2) console.log(`\nprofiles in ${CPU_PROF}; results not written (profiling slows the server)\n\n${report(rows)}`);
  else {
    writeFileSync(RESULTS, md);
    console.log(`\nwrote ${fileURLToPath(RESULTS)}\n\n${report(rows)}`);
  }
}

if (process.argv[2] === 'bare') await runBare(process.argv[3]!);
else await main();
