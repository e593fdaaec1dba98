/**
 * A small, bounded pool of parser worker threads. Parsing a hostile file (a PDF that makes pdf.js
 * spin, a huge document) must not stall the API's event loop, so every parse runs in a worker;
 * tasks beyond the pool size wait in a queue; a task that runs past its timeout has its worker
 * terminated (the only way to stop synchronous work) and a fresh worker takes its place.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../runtime/modules.ts';
import type { FileKind, Transcript } from './types.ts';
import type { ParseOptions } from './parse.ts';
import { ParserCrashedError, ParserPoolClosedError, ParseTimeoutError, UnknownSpeakerError, UnreadableTranscriptError } from './errors.ts';
import type { Digest, DigestRequest } from '../snapshots/digest.ts';

/**
 * `parse` returns a Transcript; `labels` only its speaker labels (small to post back); `digest`
 * parses, attributes and analyses (snapshots/digest.ts).
 */
export interface TaskRequest {
  id: number;
  op: 'parse' | 'labels' | 'digest' | 'warm';
  path: string;
  kind: FileKind;
  opts: ParseOptions;
  digest?: DigestRequest;
}

export type TaskResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: SerializedError };

/** What of an error crosses the thread boundary: enough to rebuild its class and errno code. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  labels?: string[];
}

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Leave a core to the API's event loop (and, embedded, to PGlite) whenever there are two or more. */
export const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism() - 1));
/**
 * How long a request may spend reading a file's speaker labels (a POST with `speaker`), queue
 * wait included. Past it the request is accepted and the job checks the label instead.
 */
export const LABEL_SCAN_BUDGET_MS = 3_000;
/** Heap cap per worker, so a file that explodes in memory kills its worker, not the process. */
const WORKER_HEAP_MB = 1024;

interface Task extends TaskRequest {
  timeoutMs: number;
  resolve: (result: any) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

class ParserPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size: number) {}

  /** Runs a task; aborting `signal` drops it from the queue, or stops its worker if it started. */
  run<T>(op: TaskRequest['op'], path: string, kind: FileKind, opts: ParseOptions, digest?: DigestRequest, signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new ParserPoolClosedError('The parser pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const { timeoutMs = DEFAULT_TIMEOUT_MS, ...rest } = opts;
      const task: Task = { id: this.nextId++, op, path, kind, opts: rest, digest, timeoutMs, resolve, reject };
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
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.fail(slot!, new ParseTimeoutError(`Parsing the file took longer than ${formatMs(task.timeoutMs)} and was stopped`)), task.timeoutMs);
      const request: TaskRequest = { id: task.id, op: task.op, path: task.path, kind: task.kind, opts: task.opts, digest: task.digest };
      slot.worker.postMessage(request);
    }
  }

  private spawn(): Slot {
    // The compiled worker.js, or worker.ts with tsx's loader in development (../runtime/modules.ts).
    const worker = new Worker(workerEntry('./worker.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const slot: Slot = { worker, task: null, timer: null };
    worker.unref();
    worker.on('message', (res: TaskResponse) => this.settle(slot, res));
    worker.on('error', (err) => this.fail(slot, new ParserCrashedError(`The parser crashed while reading the file: ${err.message}`)));
    worker.on('exit', (code) => this.fail(slot, new ParserCrashedError(`The parser stopped unexpectedly (exit code ${code})`)));
    this.slots.push(slot);
    return slot;
  }

  private settle(slot: Slot, res: TaskResponse): void {
    const task = slot.task;
    if (!task || task.id !== res.id) return;
    if (slot.timer) clearTimeout(slot.timer);
    slot.task = null;
    slot.timer = null;
    slot.worker.unref();
    if (res.ok) task.resolve(res.result);
    else task.reject(rebuildError(res.error));
    this.dispatch();
  }

  /** Ends the slot's worker and fails its task (timeout, crash, unexpected exit). */
  private fail(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return; // already removed
    this.slots.splice(index, 1);
    if (slot.timer) clearTimeout(slot.timer);
    const task = slot.task;
    slot.task = null;
    void slot.worker.terminate();
    task?.reject(error);
    if (!this.closed) this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    const closed = () => new ParserPoolClosedError('The parser pool was closed before the file was parsed');
    for (const task of this.queue.splice(0)) task.reject(closed());
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.task?.reject(closed());
    }
    // Idle workers are unref'd; ref them while terminating, or a process with nothing else to do
    // would exit with this promise still pending.
    await Promise.all(slots.map((s) => (s.worker.ref(), s.worker.terminate())));
  }
}

function rebuildError(e: SerializedError): Error {
  if (e.name === 'UnreadableTranscriptError') return new UnreadableTranscriptError(e.message);
  if (e.name === 'UnknownSpeakerError') return Object.assign(new UnknownSpeakerError('', e.labels ?? []), { message: e.message });
  const err: Error & { code?: string } = new Error(e.message);
  err.name = e.name;
  // The errno code (EIO, EMFILE, …) is what tells a passing I/O problem from a bug.
  if (e.code !== undefined) err.code = e.code;
  return err;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

let pool: ParserPool | null = null;
/**
 * A separate one-thread pool for work a request waits on (reading speaker labels), so it never
 * queues behind the jobs' parses and digests. Started on first use.
 */
let requestPool: ParserPool | null = null;

/**
 * Parses a file (of a kind returned by sniffFile) into a transcript, in a worker thread.
 * Rejects with UnreadableTranscriptError for files that can never be read; any other error
 * (ParseTimeoutError, ParserCrashedError, I/O errors) may succeed on a retry.
 */
export function parseTranscriptFile(path: string, kind: FileKind, opts: ParseOptions = {}): Promise<Transcript> {
  pool ??= new ParserPool(POOL_SIZE);
  return pool.run<Transcript>('parse', path, kind, opts);
}

/**
 * Starts the pool's workers and loads the parsers and analysis models in each, so the first
 * upload does not pay seconds of start-up (TypeScript loader, NLP model) on its clock.
 */
export async function warmParserPool(): Promise<void> {
  pool ??= new ParserPool(POOL_SIZE);
  const p = pool;
  await Promise.all(Array.from({ length: POOL_SIZE }, () => p.run<void>('warm', '', 'txt', {})));
}

/** Parses, attributes and analyses a file in a worker thread (see snapshots/digest.ts). */
export function digestTranscriptFile(path: string, kind: FileKind, digest: DigestRequest, opts: ParseOptions = {}): Promise<Digest> {
  pool ??= new ParserPool(POOL_SIZE);
  return pool.run<Digest>('digest', path, kind, opts, digest);
}

/**
 * The speaker labels of a file, in order of first appearance, for a request to check a `speaker`
 * field against. Runs on the request pool and gives up after `budgetMs` (queue wait included)
 * with a ParseTimeoutError, stopping the parse if it had started.
 */
export async function speakerLabels(path: string, kind: FileKind, budgetMs: number = LABEL_SCAN_BUDGET_MS): Promise<string[]> {
  requestPool ??= new ParserPool(1);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ParseTimeoutError(`Reading the speaker labels took longer than ${formatMs(budgetMs)}`)), budgetMs);
  try {
    return await requestPool.run<string[]>('labels', path, kind, { timeoutMs: budgetMs }, undefined, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Terminates the parser workers (shutdown, tests). A later parse starts a fresh pool. */
export async function closeParserPool(): Promise<void> {
  const pools = [pool, requestPool];
  pool = null;
  requestPool = null;
  await Promise.all(pools.map((p) => p?.close()));
}
