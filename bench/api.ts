/**
 * HTTP throughput of the read API against a bare `node:http` handler, in one run.
 *
 * For each database (embedded PGlite, then PostgreSQL in a throwaway database `mp_bench_<random>`
 * on DATABASE_URL's server, dropped afterwards) the real service is started as a child process
 * (`node bin/mindprint.js serve`, LOG_LEVEL=warn, a fixed bootstrap key), 100 minds with two
 * tags each are created over HTTP, and autocannon (programmatic API, in this process) drives
 *   GET {base}/minds/{id}   and   GET {base}/minds   (all 100 minds)
 * with 50 connections for 10 s each, after a 2 s warm-up. The baseline is a bare `node:http`
 * server, also a child process, answering JSON.stringify of the very response body the service
 * returned (same bytes, serialized per request), one run per response size. Load generator and
 * server are separate processes but share the machine's cores (and, on PostgreSQL, with the
 * database server). Writes bench/results/api.md.
 *
 * Run: node --import tsx bench/api.ts
 * Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1/postgres; "none" skips PostgreSQL),
 *      BENCH_DURATION (seconds, default 10), BENCH_CONNECTIONS (default 50),
 *      BENCH_CPU_PROF=<dir> runs the service children with --cpu-prof into that directory (and does
 *      not write the results file), BENCH_ONLY=id|list measures one route of the service only.
 */
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
  bytes: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

async function measure(target: string, database: string, url: string, bytes: number, headers: Record<string, string> = {}): Promise<Row> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP, headers });
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  const row: Row = {
    target,
    database,
    bytes,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
  };
  console.log(`${database.padEnd(10)} ${target.padEnd(22)} ${row.rps.toFixed(0).padStart(7)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}  errors ${row.errors}`);
  return row;
}

interface Bodies {
  one: string;
  list: string;
}

async function benchService(database: 'PGlite' | 'PostgreSQL', databaseUrl: string | null, rows: Row[]): Promise<Bodies> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-bench-'));
  const port = await freePort();
  const key = `bench_${randomBytes(24).toString('base64url')}`;
  const nodeArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(CPU_PROF, database)}`] : [];
  const child = start([...nodeArgs, 'bin/mindprint.js', 'serve'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    MINDPRINT_DATA_DIR: dataDir,
    MINDPRINT_BOOTSTRAP_KEY: key,
    LOG_LEVEL: 'warn',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '' }),
  });
  try {
    const base = `http://127.0.0.1:${port}${BASE_PATH}`;
    const headers = { authorization: `Bearer ${key}` };
    const t0 = Date.now();
    await until(`${database} server`, child, async () => ((await fetch(`${base}/minds`, { headers })).ok ? true : null));
    console.log(`${database}: serving after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
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
    if (ONLY !== 'list') rows.push(await measure('GET /minds/{id}', database, `${base}/minds/${id}`, Buffer.byteLength(one), headers));
    if (ONLY !== 'id') rows.push(await measure(`GET /minds (${MINDS})`, database, `${base}/minds`, Buffer.byteLength(list), headers));
    return { one, list };
  } finally {
    await child.stop();
    const tail = child.output().trim();
    if (tail) console.log(`${database} server output:\n${tail.slice(-2000)}`);
    await rm(dataDir, { recursive: true, force: true });
  }
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
    rows.push(await measure(label, 'none', `http://127.0.0.1:${port}/`, Buffer.byteLength(body)));
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
    '| endpoint | database | response | req/s (avg) | p50 ms | p99 ms | non-2xx | errors | vs bare handler | aim |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const isBare = r.database === 'none';
    const b = isBare ? null : bare(r.bytes);
    const ratio = b ? r.rps / b.rps : null;
    const aim = !isBare && r.target.startsWith('GET /minds/{id}') ? AIM[r.database] : undefined;
    const aimCell = aim === undefined || ratio === null ? '' : `≥ ${aim * 100}%: ${ratio >= aim ? 'met' : '**missed**'}`;
    lines.push(
      `| ${isBare ? `bare node:http, ${r.target}` : r.target} | ${isBare ? '—' : r.database} | ${kb(r.bytes)} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${ratio === null ? '1' : `${(ratio * 100).toFixed(1)}%`} | ${aimCell} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const started = new Date();
  const load = os.loadavg()[0]!;
  let bodies = await benchService('PGlite', null, rows);
  if (PG_URL !== 'none') {
    const db = await createPgDatabase(PG_URL);
    try {
      bodies = await benchService('PostgreSQL', db.url, rows);
    } finally {
      await db.drop();
    }
  }
  await benchBare(`same size as GET /minds/{id}`, bodies.one, rows);
  await benchBare(`same size as GET /minds (${MINDS})`, bodies.list, rows);

  const md = `# HTTP API throughput

Generated by \`node --import tsx bench/api.ts\` on ${started.toISOString().slice(0, 10)}.
Node ${process.version}; machine: ${machine()}${pgVersion ? `; PostgreSQL ${pgVersion} on the same machine` : ''};
1-minute load average ${load.toFixed(2)} when the run started and ${os.loadavg()[0]!.toFixed(2)} when it ended (other work on the
machine was not stopped; the numbers move with it).

Method. The service runs as a child process (\`node bin/mindprint.js serve\`, LOG_LEVEL=warn, job worker in process
as by default), once on embedded PGlite (fresh data dir) and once on PostgreSQL (a throwaway database
\`mp_bench_<random>\`, dropped afterwards). ${MINDS} minds with two tags each are created over HTTP with the bootstrap key;
autocannon (programmatic API, in the parent process, so load generator and server are separate processes but share
the ${os.availableParallelism()} cores) then sends ${CONNECTIONS} concurrent keep-alive connections for ${DURATION} s per row, after a ${WARMUP} s warm-up,
every request with \`Authorization: Bearer <key>\`. \`GET /minds/{id}\` reads one mind (the 51st created);
\`GET /minds\` lists all ${MINDS}. The baseline, in the same run, is a bare \`node:http\` server (also a child process)
that answers every request with \`JSON.stringify\` of the exact body the service returned, so the bytes on the wire
match; "vs bare handler" divides by the baseline of the same response size. Latencies are autocannon's
percentiles over all requests of the row; "errors" counts connection errors and requests without an answer
within autocannon's 10 s timeout.

${report(rows)}

## What bounds each number

- **Bare handler.** Pure Node HTTP: parse the request, stringify an object, write the socket. On this machine it
  shares the cores with autocannon, which needs about as much CPU as the server, so it is bounded by about one core
  of \`node:http\`; a larger body costs mostly in \`JSON.stringify\` and socket writes.
- **GET /minds/{id}.** Per request the service does: Fastify routing, the onRequest hook (bearer header parse, SHA-256
  of the key, then a cached lookup: the key is read from the database at most once per 2 s, and its last use and the
  usage counters are kept in memory and written by a flusher every 10 s), param validation, then **one SQL
  statement** (the mind with its tags as \`json_agg\` and snapshot counts in a lateral join), mapping of the row, and
  response serialization against the schema. So the service's extra cost over the bare handler is one database
  round trip plus Fastify's hooks and validation.
  - *PGlite*: the database is PostgreSQL compiled to WASM, **single-threaded, inside the server's own process and
    event loop**. Every query is parsed, planned and executed synchronously on the same thread that serves HTTP,
    and queries run one at a time, so 50 connections queue behind one another: throughput is bounded by
    (HTTP work + query time) on one thread, and latency under load grows with the queue.
  - *PostgreSQL*: the query runs in a separate server process (a pool of 10 connections from the service), so
    query execution overlaps with HTTP work, but each request pays a TCP round trip to the database and the
    PostgreSQL backends compete for the same ${os.availableParallelism()} cores as the service and autocannon.
- **GET /minds (${MINDS}).** Same single statement, but it returns ${MINDS} rows, each with a correlated tag aggregate and a
  lateral count; the response is ~${fmt(Math.round((rows.find((r) => r.target.startsWith('GET /minds (') && r.database !== 'none')?.bytes ?? 0) / 1024))} KB,
  so row decoding, JSON parsing of the tag aggregates, the per-row mapping and the schema-based serialization
  of ${MINDS} objects dominate; the bare handler only stringifies a ready object.
`;
  if (CPU_PROF || ONLY) console.log(`\nprofiles in ${CPU_PROF}; results not written (profiling slows the server)\n\n${report(rows)}`);
  else {
    writeFileSync(RESULTS, md);
    console.log(`\nwrote ${fileURLToPath(RESULTS)}\n\n${report(rows)}`);
  }
}

if (process.argv[2] === 'bare') await runBare(process.argv[3]!);
else await main();
