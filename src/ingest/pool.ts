/**
 * A small, bounded pool of parser worker threads. Parsing a hostile file (a PDF that makes pdf.js
 * spin, a huge document) must not stall the API's event loop, so every parse runs in a worker;
 * tasks beyond the pool size wait in a queue; a task that runs past its timeout has its worker
 * terminated (the only way to stop synchronous work) and a fresh worker takes its place.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileKind, Transcript } from './types.ts';
import type { ParseOptions } from './parse.ts';
import { ParserCrashedError, ParseTimeoutError, UnknownSpeakerError, UnreadableTranscriptError } from './errors.ts';
import type { Digest, DigestRequest } from '../snapshots/digest.ts';

/** `parse` returns a Transcript; `digest` parses, attributes and analyses (snapshots/digest.ts). */
export interface TaskRequest {
  id: number;
  op: 'parse' | 'digest' | 'warm';
  path: string;
  kind: FileKind;
  opts: ParseOptions;
  digest?: DigestRequest;
}

export type TaskResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string; labels?: string[] } };

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Leave a core to the API's event loop (and, embedded, to PGlite) whenever there are two or more. */
export const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism() - 1));
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

  run<T>(op: TaskRequest['op'], path: string, kind: FileKind, opts: ParseOptions, digest?: DigestRequest): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The parser pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const { timeoutMs = DEFAULT_TIMEOUT_MS, ...rest } = opts;
      this.queue.push({ id: this.nextId++, op, path, kind, opts: rest, digest, timeoutMs, resolve, reject });
      this.dispatch();
    });
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
    // execArgv is inherited as is: the bootstrap sorts out the TypeScript loader (see its comment).
    const worker = new Worker(new URL('./worker-bootstrap.js', import.meta.url), {
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
    for (const task of this.queue.splice(0)) task.reject(new Error('The parser pool was closed before the file was parsed'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.task?.reject(new Error('The parser pool was closed before the file was parsed'));
    }
    // Idle workers are unref'd; ref them while terminating, or a process with nothing else to do
    // would exit with this promise still pending.
    await Promise.all(slots.map((s) => (s.worker.ref(), s.worker.terminate())));
  }
}

function rebuildError(e: { name: string; message: string; labels?: string[] }): Error {
  if (e.name === 'UnreadableTranscriptError') return new UnreadableTranscriptError(e.message);
  if (e.name === 'UnknownSpeakerError') return Object.assign(new UnknownSpeakerError('', e.labels ?? []), { message: e.message });
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

let pool: ParserPool | null = null;

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

/** Terminates the parser workers (shutdown, tests). A later parse starts a fresh pool. */
export async function closeParserPool(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.close();
}
