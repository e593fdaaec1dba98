/**
 * How long the `mindprint` command takes to start: `mindprint --help` (to the end of the help
 * text) and `mindprint mcp` (to its answer to MCP `initialize` over stdio). Each command is
 * spawned BENCH_RUNS times (default 10), interleaved so a change of load touches all alike; the
 * table gives the median and the fastest run. Measured in the same run:
 *   - node:      a bare `node` printing one line (process start: the floor of any command);
 *   - before:    bin/mindprint.js of BENCH_BEFORE (default 7298efa, before the compiled CLI): tsx
 *                compiling src/ at every start, every module imported up front;
 *   - source:    src/main.ts of this checkout under tsx (what bin/mindprint.js runs in a clone whose
 *                sources are newer than its build);
 *   - compiled:  bin/mindprint.js of this checkout after `npm run build` (what an installed package
 *                and a built clone run).
 * MINDPRINT_URL points at a closed port: nothing is contacted while initializing.
 *
 * Run: node --import tsx bench/cli.ts      Env: BENCH_RUNS, BENCH_BEFORE
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, ROOT } from './support/processes.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const BEFORE = process.env.BENCH_BEFORE ?? '7298efa';
const RESULTS = new URL('./results/cli.md', import.meta.url);
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => os.loadavg()[0]!.toFixed(1);

/** Wall time from spawn until `done(stdout)` holds (or the process exits, for --help), in ms. */
function time(args: string[], cwd: string, env: Record<string, string>, mode: 'exit' | 'initialize'): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      if (mode !== 'initialize' || !out.includes('\n')) return;
      const ms = performance.now() - t0;
      child.kill();
      if (!/"result"/.test(out)) reject(new Error(`no initialize result: ${out}`));
      else resolve(ms);
    });
    child.once('exit', (code) => {
      if (mode === 'exit') {
        if (code === 0 && /Usage: mindprint|^x$/m.test(out)) resolve(performance.now() - t0);
        else reject(new Error(`exit ${code}: ${out.slice(0, 200)} ${err.slice(-500)}`));
      } else if (!out.includes('\n')) reject(new Error(`exited ${code} before answering: ${err.slice(-500)}`));
    });
    if (mode === 'initialize') child.stdin.write(INITIALIZE + '\n');
    else child.stdin.end();
  });
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'mp-bench-cli-'));
try {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const before = path.join(scratch, 'before');
  mkdirSync(before);
  execFileSync('sh', ['-c', `git archive ${BEFORE} | tar -x -C ${before}`], { cwd: ROOT });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(before, 'node_modules'));
  const source = path.join(scratch, 'source.mjs');
  writeFileSync(source, `import { register } from 'tsx/esm/api';\nregister();\nprocess.argv.splice(1, 1, ${JSON.stringify(path.join(ROOT, 'src/main.ts'))});\nawait import(${JSON.stringify(path.join(ROOT, 'src/main.ts'))});\n`);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(scratch, 'node_modules'));
  const floor = path.join(scratch, 'floor.mjs');
  writeFileSync(floor, "process.stdout.write('x\\n');\n");
  const floorMcp = path.join(scratch, 'floor-mcp.mjs');
  writeFileSync(floorMcp, "process.stdin.once('data', () => process.stdout.write('{\"result\":{}}\\n'));\n");
  const env = { MINDPRINT_URL: `http://127.0.0.1:${await freePort()}`, MINDPRINT_API_KEY: 'mp_bench' };

  const commands = [
    { name: 'node', what: 'bare node printing a line', args: [floor], cwd: ROOT, mode: 'exit' as const },
    { name: `before (${BEFORE}) --help`, what: '`mindprint --help`, tsx', args: ['bin/mindprint.js', '--help'], cwd: before, mode: 'exit' as const },
    { name: 'source --help', what: 'src/main.ts under tsx', args: [source, '--help'], cwd: ROOT, mode: 'exit' as const },
    { name: 'compiled --help', what: '`mindprint --help`, dist/', args: ['bin/mindprint.js', '--help'], cwd: ROOT, mode: 'exit' as const },
    { name: 'node (stdio)', what: 'bare node answering one line on stdin', args: [floorMcp], cwd: ROOT, mode: 'initialize' as const },
    { name: `before (${BEFORE}) mcp`, what: '`mindprint mcp` → initialize, tsx', args: ['bin/mindprint.js', 'mcp'], cwd: before, mode: 'initialize' as const },
    { name: 'compiled mcp', what: '`mindprint mcp` → initialize, dist/', args: ['bin/mindprint.js', 'mcp'], cwd: ROOT, mode: 'initialize' as const },
  ];
  const runs = commands.map(() => [] as number[]);
  const loadBefore = load();
  // One unmeasured round: V8's compile cache and the page cache warm alike for every command.
  for (const c of commands) await time(c.args, c.cwd, env, c.mode);
  for (let i = 0; i < RUNS; i++) for (const [j, c] of commands.entries()) runs[j]!.push(await time(c.args, c.cwd, env, c.mode));
  const loadAfter = load();
  const floorMs = median(runs[0]!);
  const floorStdio = median(runs[4]!);
  const lines = commands.map((c, j) => {
    const m = median(runs[j]!);
    const base = c.mode === 'exit' ? floorMs : floorStdio;
    return `| ${c.name} | ${c.what} | ${m.toFixed(0)} | ${Math.min(...runs[j]!).toFixed(0)} | ${(m / base).toFixed(2)}× |`;
  });
  const report = `# CLI start — bench/cli.ts

${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} CPUs · ${RUNS} runs each, interleaved, after one warm-up round · load average ${loadBefore} → ${loadAfter}

| command | what | median ms | fastest ms | × node floor |
| --- | --- | ---: | ---: | ---: |
${lines.join('\n')}
`;
  writeFileSync(RESULTS, report);
  process.stdout.write(report);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
