/** The real `mindprint` executable in a child process, for CLI tests. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/mindprint.js', import.meta.url));
const run = promisify(execFile);

/** Runs a command to completion: exit code, stdout and stderr. LOG_LEVEL=silent and no DATABASE_URL unless given. */
export async function cli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

export interface ServeProcess {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout; rejects if the process exits first or on timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `mindprint serve` as a child process. */
export function spawnServe(env: Record<string, string>): ServeProcess {
  const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', HOST: '127.0.0.1', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(pattern, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(out);
        if (m) return m;
        if (proc.exitCode !== null) throw new Error(`serve exited (${proc.exitCode}) before printing ${pattern}\nstdout: ${out}\nstderr: ${err}`);
        if (Date.now() > deadline) throw new Error(`serve did not print ${pattern} within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** The key and base URL a first start prints. */
export const FIRST_START_KEY = /created for organization "default", user admin@localhost:\n\n {2}(mp_[A-Za-z0-9_-]{43})\n[\s\S]*?(http:\/\/\S+)\/minds\n/;

/**
 * Collects a starting server's output and waits (at most `ms`) for the first-start key it prints:
 * its key and base URL, or an assertion naming everything it printed (it may have exited).
 */
export async function waitForFirstStartKey(proc: ChildProcess, ms = 120_000): Promise<{ key: string; base: string }> {
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (err += d));
  const deadline = Date.now() + ms;
  while (!FIRST_START_KEY.test(out) && proc.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const m = FIRST_START_KEY.exec(out);
  if (!m) throw new Error(`the server did not print its first key\nstdout: ${out}\nstderr: ${err}`);
  return { key: m[1]!, base: m[2]! };
}
