/**
 * The parser pool, as the service uses it: parsing, digesting and reading speaker labels of a
 * file in a parser process (parser-processes.ts: the processes, their budgets and watchdog; the
 * messages in parser-protocol.ts, the budgets' measures in parser-budgets.ts). Two pools: the
 * job pool for snapshot jobs, and a one-process request pool so a request never waits behind them.
 */
import type { FileKind, Transcript } from '../../lib/ingest/types.ts';
import type { ParseOptions } from '../../lib/ingest/parse.ts';
import { DEFAULT_PARSE_BUDGETS, POOL_SIZE } from '../../lib/ingest/budgets.ts';
import { ParseTimeoutError } from '../../lib/ingest/errors.ts';
import type { Digest, DigestRequest, DigestSummary } from './digest.ts';
import { formatMs, type ParseStats } from './parser-budgets.ts';
import { ParserPool, type PoolOptions } from './parser-processes.ts';

export { POOL_SIZE };
export { RECYCLE_RSS_MB } from './parser-processes.ts';
export type { ParseStats } from './parser-budgets.ts';

/**
 * How long a request may spend reading a file's speaker labels (a POST with `speaker`), queue
 * wait included. Past it the request is accepted and the job checks the label instead.
 */
export const LABEL_SCAN_BUDGET_MS = 3_000;

let poolOptions: PoolOptions = { size: POOL_SIZE, memoryMb: DEFAULT_PARSE_BUDGETS.memoryMb, warmReplacements: true };
let pool: ParserPool | null = null;
/**
 * A separate one-process pool for work a request waits on (reading speaker labels), so it never
 * queues behind the jobs' parses and digests. Started on first use.
 */
let requestPool: ParserPool | null = null;

/**
 * Sets the number of parser processes of the job pool and the memory they start with
 * (MINDPRINT_PARSER_PROCESSES, MINDPRINT_PARSE_MEMORY_MB). Takes effect for pools started later.
 */
export function configureParserPool(options: Partial<PoolOptions>): void {
  poolOptions = { ...poolOptions, ...options };
}

function jobPool(): ParserPool {
  pool ??= new ParserPool(poolOptions);
  return pool;
}

/** Optional extras of a pooled parse: its cost, once it ends (logs, benchmarks). */
export interface RunExtras {
  onStats?: (stats: ParseStats) => void;
}

/**
 * Parses a file (of a kind returned by sniffFile) into a transcript, in a parser process.
 * Rejects with UnreadableTranscriptError (ParseBudgetError included) for files that can never be
 * read within the budgets; any other error (ParseTimeoutError, ParserCrashedError, I/O errors)
 * may succeed on a retry.
 */
export function parseTranscriptFile(path: string, kind: FileKind, opts: ParseOptions = {}, extras: RunExtras = {}): Promise<Transcript> {
  return jobPool().run<Transcript>('parse', path, kind, opts, undefined, undefined, extras.onStats);
}

/**
 * Starts the pool's processes and loads the parsers and analysis models in each, so the first
 * upload does not pay seconds of start-up (TypeScript loader, NLP model) on its clock.
 */
export async function warmParserPool(): Promise<void> {
  const p = jobPool();
  await Promise.all(Array.from({ length: p.options.size }, () => p.run<void>('warm', '', 'txt', {})));
}

/** Parses, attributes and analyses a file in a parser process (see snapshots/digest.ts). */
export function digestTranscriptFile(path: string, kind: FileKind, digest: DigestRequest, opts: ParseOptions = {}, extras: RunExtras = {}): Promise<Digest> {
  return jobPool().run<Digest>('digest', path, kind, opts, digest, undefined, extras.onStats);
}

/**
 * Like digestTranscriptFile, but the turns are written to `turnsFile` (one JSON turn per line, in
 * order; the file is created or replaced) and only the summary crosses the process boundary: a
 * large transcript's turns are never one message, nor all in this process at once. The caller
 * owns the file (removes it on success and failure alike).
 */
export function digestTranscriptToFile(path: string, kind: FileKind, digest: DigestRequest, turnsFile: string, opts: ParseOptions = {}, extras: RunExtras = {}): Promise<DigestSummary> {
  return jobPool().run<DigestSummary>('digest', path, kind, opts, digest, undefined, extras.onStats, turnsFile);
}

/**
 * The speaker labels of a file, in order of first appearance, for a request to check a `speaker`
 * field against. Runs on the request pool and gives up after `budgetMs` (queue wait included,
 * the pool's one-time start-up not) with a ParseTimeoutError, stopping the parse if it had started.
 */
export async function speakerLabels(path: string, kind: FileKind, budgetMs: number = LABEL_SCAN_BUDGET_MS, opts: ParseOptions = {}): Promise<string[]> {
  requestPool ??= new ParserPool({ size: 1, memoryMb: poolOptions.memoryMb, recycleRssMb: poolOptions.recycleRssMb });
  // Starting the process (once) is no cost of this file: the budget starts when it can parse.
  await requestPool.ready();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ParseTimeoutError(`Reading the speaker labels took longer than ${formatMs(budgetMs)}`)), budgetMs);
  try {
    return await requestPool.run<string[]>('labels', path, kind, { ...opts, timeoutMs: budgetMs }, undefined, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** The process ids of the job pool's parser processes, none before it started (tests, benchmarks). */
export function parserProcessIds(): number[] {
  return pool?.pids() ?? [];
}

/** Ends the parser processes (shutdown, tests). A later parse starts a fresh pool. */
export async function closeParserPool(): Promise<void> {
  const pools = [pool, requestPool];
  pool = null;
  requestPool = null;
  await Promise.all(pools.map((p) => p?.close()));
}
