/**
 * The parser processes (callers use pool.ts): a small, bounded pool of parser child processes.
 * Parsing a hostile file (a decompression bomb, a PDF that makes pdf.js spin, a huge document)
 * must neither stall the API's event loop nor take the service's memory, so every parse runs in a
 * child process of its own memory, watched against its budgets (lib/ingest/budgets.ts, measured by
 * parser-budgets.ts):
 *
 * - memory: V8's heap is capped with --max-old-space-size, and a watchdog reads the process's
 *   resident memory (heap, buffers, pdf.js, WASM: everything) every 100 ms and kills it past the
 *   budget;
 * - CPU time: the watchdog reads the process's CPU time and kills it past the budget;
 * - wall time: a parse still running at wallMs(budgets) is stopped (a busy machine can cause
 *   it, so it is the one budget a retry may pass);
 * - decoded bytes, pages and streams: enforced by the parsers while they read (pdf-scan.ts, docx.ts).
 *
 * A budget overrun rejects with ParseBudgetError naming the limit; a process that crashes by
 * itself (a fatal error, an abort) is given the file once more in a fresh process, and a second
 * crash is a ParseBudgetError too: both are a property of the file and never retried. A process
 * killed from outside (a signal it did not raise) rejects with the transient ParserCrashedError.
 * A killed or crashed process is replaced, and its memory goes back to the system with it.
 * Tasks beyond the pool size wait in a queue.
 *
 * A process that a task left big is replaced too, once it is done: V8 and the allocator keep the
 * pages a large parse touched (a 40 MB transcript leaves an idle process at ~530 MB resident, a
 * warmed fresh one takes ~150 MB), and a process hands them back to the system only by ending.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv, moduleUrl } from '../../platform/runtime/modules.ts';
import type { FileKind } from '../../lib/ingest/types.ts';
import { budgetsOf, type ParseOptions } from '../../lib/ingest/parse.ts';
import { heapMb, wallMs, type ParseBudgets } from '../../lib/ingest/budgets.ts';
import { ParseBudgetError, ParserCrashedError, ParserPoolClosedError, ParseTimeoutError } from '../../lib/ingest/errors.ts';
import type { DigestRequest } from './digest.ts';
import { cpuError, formatMs, memoryError, OUT_OF_HEAP, readUsage, WATCH_INTERVAL_MS, type ParseStats } from './parser-budgets.ts';
import { rebuildError, type TaskRequest, type TaskResponse } from './parser-protocol.ts';

/** Signals a parser does not raise itself: it was killed from outside (operator, OOM killer, shutdown). */
const EXTERNAL_SIGNALS = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT']);

interface Task extends TaskRequest {
  budgets: ParseBudgets;
  wallMs: number;
  /** Crashes of a parser process on this task so far (a second one is final). */
  crashes: number;
  startedAt: number;
  cpuAtStartMs: number;
  peakRssBytes: number;
  onStats?: (stats: ParseStats) => void;
  resolve: (result: any) => void;
  reject: (e: Error) => void;
}

interface Slot {
  child: ChildProcess;
  task: Task | null;
  timer: NodeJS.Timeout | null;
  watch: NodeJS.Timeout | null;
  /** The last few KB the process wrote to stderr: V8 says there why it died. */
  stderr: string;
  /** Resolves once the process has started and loaded the parsers. */
  ready: Promise<void>;
}

export interface PoolOptions {
  size: number;
  /** The memory budget the processes are started with (their V8 heap cap); tasks may ask for less. */
  memoryMb: number;
  /** A process resident above this when a task ends is replaced (RECYCLE_RSS_MB by default). */
  recycleRssMb?: number;
  /** Load the parsers and analysis models in a replacement right away (the job pool), rather than with its first task. */
  warmReplacements?: boolean;
}

/**
 * A process resident above this after a task is ended and replaced, so an idle service does not
 * keep what its largest parse touched. A warmed process after small files stays at 130–190 MB;
 * an 8 MB transcript leaves ~390 MB. Replacing costs a process start (about a second, in the
 * background when nothing waits), paid only after files large enough to cost several seconds.
 */
export const RECYCLE_RSS_MB = 256;

export class ParserPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly options: PoolOptions) {}

  /** Runs a task; aborting `signal` drops it from the queue, or stops its process if it started. */
  run<T>(op: TaskRequest['op'], path: string, kind: FileKind, opts: ParseOptions, digest?: DigestRequest, signal?: AbortSignal, onStats?: (s: ParseStats) => void, turnsFile?: string): Promise<T> {
    if (this.closed) return Promise.reject(new ParserPoolClosedError('The parser pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const { timeoutMs, ...rest } = opts;
      const budgets = budgetsOf({ ...rest, budgets: { memoryMb: this.options.memoryMb, ...rest.budgets } });
      const task: Task = {
        id: this.nextId++, op, path, kind, opts: { ...rest, budgets }, digest, turnsFile,
        budgets, wallMs: timeoutMs ?? wallMs(budgets), crashes: 0, startedAt: 0, cpuAtStartMs: 0, peakRssBytes: 0, onStats, resolve, reject,
      };
      if (signal) {
        const reason = () => (signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
        if (signal.aborted) return reject(reason());
        const onAbort = () => this.cancel(task, reason());
        signal.addEventListener('abort', onAbort, { once: true });
        task.resolve = (v) => (signal.removeEventListener('abort', onAbort), resolve(v));
        task.reject = (e) => (signal.removeEventListener('abort', onAbort), reject(e));
      }
      this.queue.push(task);
      this.dispatch();
    });
  }

  private cancel(task: Task, reason: Error): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      task.reject(reason);
      return;
    }
    const slot = this.slots.find((s) => s.task === task);
    if (slot) this.fail(slot, reason);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot) return;
      const s = slot;
      const task = this.queue.shift()!;
      s.task = task;
      s.stderr = '';
      s.child.ref();
      s.child.channel?.ref();
      task.startedAt = performance.now();
      task.cpuAtStartMs = readUsage(s.child.pid)?.cpuMs ?? 0;
      task.peakRssBytes = 0;
      s.timer = setTimeout(() => this.fail(s, new ParseTimeoutError(`Parsing the file took longer than ${formatMs(task.wallMs)} and was stopped`)), task.wallMs);
      s.watch = setInterval(() => this.watch(s), WATCH_INTERVAL_MS);
      const request: TaskRequest = { id: task.id, op: task.op, path: task.path, kind: task.kind, opts: task.opts, digest: task.digest, turnsFile: task.turnsFile };
      s.child.send(request);
    }
  }

  /** The watchdog: kills a parse past its memory or CPU budget. */
  private watch(slot: Slot): void {
    const task = slot.task;
    const usage = readUsage(slot.child.pid);
    if (!task || !usage) return;
    task.peakRssBytes = Math.max(task.peakRssBytes, usage.rssBytes);
    if (usage.rssBytes > task.budgets.memoryMb * 1024 * 1024) {
      this.fail(slot, memoryError(task.budgets));
    } else if (usage.cpuMs - task.cpuAtStartMs > task.budgets.cpuSeconds * 1000) {
      this.fail(slot, cpuError(task.budgets));
    }
  }

  private spawn(): Slot {
    // The compiled child.js, or child.ts with tsx's loader in development (../runtime/modules.ts).
    const child = fork(fileURLToPath(moduleUrl('./child.ts', import.meta.url)), [], {
      execArgv: [...childExecArgv(import.meta.url), `--max-old-space-size=${heapMb(this.options)}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve));
    const slot: Slot = { child, task: null, timer: null, watch: null, stderr: '', ready };
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      slot.stderr = (slot.stderr + chunk).slice(-8192);
    });
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.(); // a pipe socket: it must not keep the process alive
    child.unref();
    child.channel?.unref();
    child.on('message', (res: TaskResponse | { ready: true }) => ('ready' in res ? started() : this.settle(slot, res)));
    child.on('exit', () => started());
    child.on('error', (err) => this.fail(slot, new ParserCrashedError(`The parser could not be run: ${err.message}`)));
    child.on('exit', (code, signal) => this.exited(slot, code, signal));
    this.slots.push(slot);
    return slot;
  }

  private finishTask(slot: Slot): Task | null {
    const task = slot.task;
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.watch) clearInterval(slot.watch);
    slot.timer = null;
    slot.watch = null;
    slot.task = null;
    if (task?.onStats) {
      const usage = readUsage(slot.child.pid);
      const peak = Math.max(task.peakRssBytes, usage?.rssBytes ?? 0);
      task.onStats({ peakRssMb: Math.round(peak / (1024 * 1024)), cpuMs: Math.round((usage?.cpuMs ?? task.cpuAtStartMs) - task.cpuAtStartMs), wallMs: Math.round(performance.now() - task.startedAt) });
    }
    return task;
  }

  private settle(slot: Slot, res: TaskResponse): void {
    if (!slot.task || slot.task.id !== res.id) return;
    const task = this.finishTask(slot)!;
    slot.child.unref();
    slot.child.channel?.unref();
    // Warming loads what every task needs: what it leaves is the baseline, not a task's excess.
    if (task.op !== 'warm') this.recycleIfLarge(slot);
    if (res.ok) task.resolve(res.result);
    else task.reject(rebuildError(res.error));
    this.dispatch();
  }

  /** Ends an idle process resident above the bound, so its memory goes back to the system; a fresh one takes its place. */
  private recycleIfLarge(slot: Slot): void {
    const rss = readUsage(slot.child.pid)?.rssBytes ?? 0;
    if (this.closed || rss <= (this.options.recycleRssMb ?? RECYCLE_RSS_MB) * 1024 * 1024) return;
    this.remove(slot);
    slot.child.kill('SIGKILL'); // idle: nothing of a task is lost
    // With tasks waiting, dispatch() starts the replacement for them; otherwise start it now, so
    // the next upload does not pay the start-up (the pool's processes are warmed at boot too).
    if (this.queue.length === 0 && this.options.warmReplacements) {
      this.run<void>('warm', '', 'txt', {}).catch(() => {}); // a failed warm-up shows again on the next real task
    }
  }

  /** The process ids of the pool's processes (tests, benchmarks). */
  pids(): number[] {
    return this.slots.flatMap((s) => (s.child.pid === undefined ? [] : [s.child.pid]));
  }

  /** The process ended by itself or was killed from outside (our own kills go through fail()). */
  private exited(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    const task = slot.task;
    if (!this.slots.includes(slot)) return; // we removed it (fail, close)
    if (!task) return this.remove(slot);
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    if (OUT_OF_HEAP.test(slot.stderr)) return this.fail(slot, memoryError(task.budgets));
    if (signal && EXTERNAL_SIGNALS.has(signal)) return this.fail(slot, new ParserCrashedError(`The parser was stopped from outside while reading the file (${how})`));
    if (task.crashes === 0) {
      // A crash of its own (a fatal error, an abort): once more in a fresh process, to tell a
      // crash the file causes from an accident.
      task.crashes++;
      this.finishTask(slot);
      this.remove(slot);
      this.queue.unshift(task);
      if (!this.closed) this.dispatch();
      return;
    }
    this.fail(slot, new ParseBudgetError('crash', `The parser crashed on this file twice (${how}); it cannot be read`));
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
  }

  /** Ends the slot's process and fails its task (budget, timeout, crash, cancellation). */
  private fail(slot: Slot, error: Error): void {
    if (!this.slots.includes(slot)) return; // already removed
    this.remove(slot);
    const task = this.finishTask(slot);
    slot.child.kill('SIGKILL');
    task?.reject(error);
    if (!this.closed) this.dispatch();
  }

  /** Resolves once a process of the pool has started (one is started if none is running). */
  async ready(): Promise<void> {
    if (this.closed) return;
    if (this.slots.length === 0) this.spawn();
    const slots = [...this.slots];
    // Kept referenced while waiting, or a process with nothing else to do would exit meanwhile.
    for (const s of slots) {
      s.child.ref();
      s.child.channel?.ref();
    }
    try {
      await Promise.race(slots.map((s) => s.ready));
    } finally {
      for (const s of slots) {
        if (s.task !== null) continue;
        s.child.unref();
        s.child.channel?.unref();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const closed = () => new ParserPoolClosedError('The parser pool was closed before the file was parsed');
    for (const task of this.queue.splice(0)) task.reject(closed());
    const slots = this.slots.splice(0);
    for (const slot of slots) this.finishTask(slot)?.reject(closed());
    await Promise.all(
      slots.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
            s.child.once('exit', () => resolve());
            // Idle processes are unref'd; ref them while they end, or a process with nothing else
            // to do would exit with this promise still pending.
            s.child.ref();
            s.child.kill('SIGKILL');
          }),
      ),
    );
  }
}
