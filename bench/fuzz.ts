/**
 * Property-based fuzzing of the whole API from its OpenAPI document, longer than the suite's run
 * (test/e2e/fuzz.test.ts, about 75 s per database): on the embedded database and on PostgreSQL
 * (a throwaway database on BENCH_PG_URL's server), the real service on a loopback port, fixtures
 * of two organizations, then rounds of generated requests over every operation
 * (test/support/openapi-fuzz.ts: valid and hostile, ids of the caller's organization, another's
 * and random ones) until the budget is spent, every answer checked against the document.
 * A failure is any 5xx, missing answer, undocumented status, wrong content type, schema mismatch
 * or error code that does not belong to its status. Writes bench/results/fuzz.md.
 *
 * Run: node --import tsx bench/fuzz.ts
 * Env: BENCH_FUZZ_SECONDS (per database, default 300), BENCH_FUZZ_SEED (default 20261125),
 *      BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres; "none" skips PostgreSQL).
 */
import { writeFile } from 'node:fs/promises';
import { fuzzFixtures, runFuzz, type FuzzStats } from '../test/support/openapi-fuzz.ts';
import { startTestServer } from '../test/support/server.ts';

const seconds = Number(process.env.BENCH_FUZZ_SECONDS ?? 300);
const seed = Number(process.env.BENCH_FUZZ_SEED ?? 20261125);
const pgUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function fuzzOn(database: string): Promise<FuzzStats> {
  if (database === 'PostgreSQL') process.env.TEST_DATABASE_URL = pgUrl;
  else delete process.env.TEST_DATABASE_URL;
  const s = await startTestServer();
  try {
    const doc = (await (await fetch(`${s.base}/openapi.json`)).json()) as Record<string, unknown>;
    const pools = await fuzzFixtures(s, 60);
    const stats = await runFuzz(s, doc, pools, { budgetMs: seconds * 1000, seed, perRound: 10, onFinding: (f) => process.stderr.write(`FINDING ${database} ${f.operation} ${f.status}: ${f.problem}\n  ${f.request}\n`) });
    const after = (await s.api('GET', '/minds')).status;
    if (after !== 200) stats.findings.push({ operation: 'listMinds', request: 'GET /minds after the run', status: after, problem: 'the service no longer answers' });
    process.stdout.write(`${database}: ${stats.requests} requests, ${stats.operations} operations, ${stats.findings.length} failures, ${stats.elapsedMs} ms\n`);
    return stats;
  } finally {
    await s.close();
  }
}

const databases = pgUrl === 'none' ? ['PGlite'] : ['PGlite', 'PostgreSQL'];
const results: [string, FuzzStats][] = [];
for (const d of databases) results.push([d, await fuzzOn(d)]);

const statuses = [...new Set(results.flatMap(([, r]) => Object.keys(r.statuses)))].sort((a, b) => Number(a) - Number(b));
const ops = Object.keys(results[0]![1].byOperation).sort();
const lines = [
  '# Fuzzing from the OpenAPI document',
  '',
  `\`node --import tsx bench/fuzz.ts\` — ${new Date().toISOString().slice(0, 10)}, seed ${seed}, ${seconds} s of requests per database, one client (requests in sequence), on a 2-core machine shared with other work.`,
  '',
  '| database | operations | requests | requests/s | failures (5xx, undocumented status, schema mismatch, no answer) |',
  '|---|---:|---:|---:|---:|',
  ...results.map(([d, r]) => `| ${d} | ${r.operations} | ${r.requests} | ${Math.round(r.requests / (r.elapsedMs / 1000))} | ${r.findings.length} |`),
  '',
  '## Answers by status',
  '',
  `| database | ${statuses.map((s) => (s === '0' ? 'not sent¹' : s)).join(' | ')} |`,
  `|---|${statuses.map(() => '---:').join('|')}|`,
  ...results.map(([d, r]) => `| ${d} | ${statuses.map((s) => r.statuses[s] ?? 0).join(' | ')} |`),
  '',
  '¹ requests that fetch itself refused to send (a header value it cannot encode); not counted as answers.',
  '',
  '## Requests by operation',
  '',
  `| operationId | ${databases.join(' | ')} |`,
  `|---|${databases.map(() => '---:').join('|')}|`,
  ...ops.map((o) => `| ${o} | ${results.map(([, r]) => r.byOperation[o] ?? 0).join(' | ')} |`),
  '',
  '## Failures',
  '',
  ...(results.every(([, r]) => r.findings.length === 0)
    ? ['None.']
    : results.flatMap(([d, r]) => r.findings.slice(0, 50).map((f) => `- ${d} \`${f.operation}\` ${f.status}: ${f.problem.replace(/\n/g, ' ')} — \`${f.request.replace(/`/g, "'")}\``))),
  '',
];
await writeFile(new URL('./results/fuzz.md', import.meta.url), lines.join('\n'));
process.stdout.write('wrote bench/results/fuzz.md\n');
