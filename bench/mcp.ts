/**
 * The MCP server: how long `mindprint mcp` takes to answer `initialize` over stdio, and how much
 * text get_mind_profile puts in an assistant's context.
 *
 * initialize: each command is spawned BENCH_RUNS times (default 7), sequentially; a run is the
 * wall time from spawn to the `initialize` answer on stdout. Measured in the same run:
 *   - node:         a bare `node` that answers one line (process start, the floor of any server);
 *   - sdk:          the smallest MCP server on the official SDK (McpServer + stdio, no tools);
 *   - before:       `mindprint mcp` of the commit before this work (BENCH_BEFORE, default
 *                   d6f4253), extracted with `git archive` beside node_modules;
 *   - mcp module:   src/clients/mcp/server.ts run directly under tsx (what the MCP code costs from source);
 *   - mcp compiled: the same compiled by tsc to JavaScript, with the client's build (what the
 *                   compiled CLI runs: no loader hooks, no transpiling);
 *   - mindprint mcp: `node bin/mindprint.js mcp`, what an assistant runs.
 * MINDPRINT_URL points at a closed port: nothing is contacted while initializing.
 *
 * get_mind_profile: the service runs in this process (PGlite); a mind of Barack H Obama gets the
 * excerpts of the three 2012 debates (test/fixtures), and, when ../shared/data is there, a
 * second mind the three whole debates. The old tool answered the profile as indented JSON
 * (JSON.stringify(profile, null, 2)); the new one a short text plus compact structuredContent,
 * both read here through the official SDK client over Streamable HTTP.
 *
 * Run: node --import tsx bench/mcp.ts      Env: BENCH_RUNS, BENCH_BEFORE
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MindprintClient } from '@mindprint/client';
import { fixturePath, hasSharedData, sharedDataPath } from '../test/support/shared-data.ts';
import { startTestServer } from '../test/support/server.ts';
import { VERSION } from '../src/platform/version.ts';
import { freePort, ROOT } from './support/processes.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BEFORE = process.env.BENCH_BEFORE ?? 'd6f4253';
const RESULTS = new URL('./results/mcp.md', import.meta.url);
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => os.loadavg()[0]!.toFixed(1);

/** Wall time from spawn to the first line on stdout (the initialize answer), in ms. */
function timeInitialize(args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      const ms = performance.now() - t0;
      child.kill();
      if (!/"result"/.test(out)) reject(new Error(`no initialize result: ${out}`));
      else resolve(ms);
    });
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`exited ${code} before answering: ${err.slice(-500)}`));
    });
    child.stdin.write(INITIALIZE + '\n');
  });
}

/**
 * src/clients/mcp/server.ts and what it imports, compiled to JavaScript under node_modules/.cache (inside
 * the checkout, so `@mindprint/client` and the SDK resolve), beside the client's own build.
 */
function compileMcpServer(): string {
  const out = path.join(ROOT, 'node_modules', '.cache', 'mcp-bench');
  rmSync(out, { recursive: true, force: true });
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', 'packages/client'], { cwd: ROOT });
  execFileSync(
    process.execPath,
    [tsc, 'src/clients/mcp/server.ts', '--outDir', out, '--rootDir', '.', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--rewriteRelativeImportExtensions', '--allowImportingTsExtensions', '--skipLibCheck', '--types', 'node'],
    { cwd: ROOT },
  );
  // src/platform/version.ts reads ../package.json.
  writeFileSync(path.join(out, 'package.json'), JSON.stringify({ version: VERSION, type: 'module' }));
  const entry = path.join(out, 'run.mjs');
  writeFileSync(entry, "const { runMcpServer } = await import('./src/clients/mcp/server.js');\nawait runMcpServer();\n");
  return entry;
}

interface Row {
  name: string;
  what: string;
  runs: number[];
}

async function initializeTimes(): Promise<{ rows: Row[]; loadBefore: string; loadAfter: string }> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'mp-bench-mcp-'));
  const loadBefore = load();
  try {
    // The commit before, as files (no git state changed), with this checkout's dependencies.
    const before = path.join(scratch, 'before');
    mkdirSync(before);
    execFileSync('sh', ['-c', `git archive ${BEFORE} | tar -x -C ${before}`], { cwd: ROOT });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(before, 'node_modules'));
    const floor = path.join(scratch, 'node-floor.mjs');
    writeFileSync(floor, "process.stdin.once('data', () => process.stdout.write('{\"result\":{}}\\n'));\n");
    const sdk = path.join(ROOT, 'bench', 'support', 'mcp-floor.mjs');
    const direct = path.join(ROOT, 'bench', 'support', 'mcp-direct.mjs');
    const compiled = compileMcpServer();
    const env = { MINDPRINT_URL: `http://127.0.0.1:${await freePort()}`, MINDPRINT_API_KEY: 'mp_bench' };
    const commands: { name: string; what: string; args: string[]; cwd: string }[] = [
      { name: 'node', what: 'bare node answering one line', args: [floor], cwd: ROOT },
      { name: 'sdk', what: 'smallest MCP server on the SDK', args: [sdk], cwd: ROOT },
      { name: `before (${BEFORE})`, what: '`mindprint mcp` before this work', args: ['bin/mindprint.js', 'mcp'], cwd: before },
      { name: 'mcp module', what: 'src/clients/mcp/server.ts under tsx', args: [direct], cwd: ROOT },
      { name: 'mcp compiled', what: 'src/clients/mcp/server.ts compiled by tsc', args: [compiled], cwd: ROOT },
      { name: 'mindprint mcp', what: '`node bin/mindprint.js mcp`', args: ['bin/mindprint.js', 'mcp'], cwd: ROOT },
    ];
    const rows = commands.map((c) => ({ name: c.name, what: c.what, runs: [] as number[] }));
    // Interleaved, so a change of load on the machine touches every command alike.
    for (let i = 0; i < RUNS; i++) {
      for (const [j, c] of commands.entries()) rows[j]!.runs.push(await timeInitialize(c.args, c.cwd, env));
    }
    return { rows, loadBefore, loadAfter: load() };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface ProfileSize {
  mind: string;
  snapshots: number;
  mindWords: number;
  beforeText: number;
  afterText: number;
  afterStructured: number;
}

async function profileSizes(): Promise<ProfileSize[]> {
  const s = await startTestServer();
  const sdk = new MindprintClient({ baseUrl: s.url, apiKey: s.key });
  const mcp = new Client({ name: 'bench', version: '0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.key}` } } }));
  const dates = ['2012-10-03', '2012-10-16', '2012-10-22'];
  const sets: { mind: string; files: string[] }[] = [{ mind: 'Barack H Obama (test/fixtures: the three 2012 debate excerpts)', files: dates.map((d) => fixturePath(`transcripts/us-presidential-debates/${d}.said.txt`)) }];
  if (hasSharedData) sets.push({ mind: 'Barack H Obama (3 whole debates)', files: dates.map((d) => sharedDataPath(`transcripts/us-presidential-debates/${d}.said.txt`)) });
  const out: ProfileSize[] = [];
  try {
    for (const set of sets) {
      const { mind } = await sdk.createMind({ name: 'Barack H Obama' });
      for (const [i, file] of set.files.entries()) {
        const { mindAssessmentId } = await sdk.uploadSnapshot(mind.id, { file, mindsetDate: dates[i] });
        await sdk.waitForSnapshot(mind.id, mindAssessmentId, { intervalMs: 100 });
      }
      const profile = await sdk.getProfile(mind.id);
      const res = (await mcp.callTool({ name: 'get_mind_profile', arguments: { mindId: mind.id } })) as CallToolResult;
      if (res.isError) throw new Error(JSON.stringify(res.content));
      const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      out.push({
        mind: set.mind,
        snapshots: profile.profile.snapshotCount,
        mindWords: profile.profile.mindWords,
        beforeText: Buffer.byteLength(JSON.stringify(profile, null, 2)),
        afterText: Buffer.byteLength(text),
        afterStructured: Buffer.byteLength(JSON.stringify(res.structuredContent)),
      });
    }
  } finally {
    await mcp.close();
    await s.close();
  }
  return out;
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

const init = await initializeTimes();
const sizes = await profileSizes();
const floor = median(init.rows[1]!.runs);
const lines = [
  '# MCP server',
  '',
  `Generated by \`node --import tsx bench/mcp.ts\` on ${new Date().toISOString().slice(0, 10)}. Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}; load average ${init.loadBefore} → ${init.loadAfter} during the initialize runs.`,
  '',
  `## \`initialize\` over stdio (${RUNS} runs each, interleaved; wall time from spawn to the answer)`,
  '',
  '| command | what | median ms | min ms | max ms | × the SDK floor |',
  '|---|---|---:|---:|---:|---:|',
  ...init.rows.map((r) => `| ${r.name} | ${r.what} | ${Math.round(median(r.runs))} | ${Math.round(Math.min(...r.runs))} | ${Math.round(Math.max(...r.runs))} | ${(median(r.runs) / floor).toFixed(2)} |`),
  '',
  'Every run: ' + init.rows.map((r) => `${r.name}: ${r.runs.map(Math.round).join(', ')}`).join('; ') + '.',
  '',
  '## get_mind_profile: text in the assistant’s context',
  '',
  '| mind | snapshots | the person’s words | before: profile as indented JSON | after: text | after: structuredContent | text before → after |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...sizes.map((p) => `| ${p.mind} | ${p.snapshots} | ${p.mindWords} | ${kb(p.beforeText)} | ${kb(p.afterText)} | ${kb(p.afterStructured)} | ${(p.beforeText / p.afterText).toFixed(0)}× smaller |`),
  '',
];
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(RESULTS, lines.join('\n'));
process.stdout.write(lines.join('\n') + '\n');
