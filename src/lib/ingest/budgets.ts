/**
 * What one parse may use. Every parse runs in a child process (pool.ts) that is watched against
 * these budgets; the parsers themselves enforce the decoded-bytes, page and stream budgets while
 * they read (pdf-scan.ts, docx.ts). A parse past any of them fails with a ParseBudgetError that
 * names the limit and the setting that raises it, and is not retried: the same file would cost
 * the same again.
 */
import { availableParallelism } from 'node:os';

/** Parser processes by default: leave a core to the API's event loop (and, embedded, to PGlite) whenever there are two or more. */
export const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism() - 1));

export interface ParseBudgets {
  /** Resident memory of the parser process, JS heap, buffers and WASM together (MINDPRINT_PARSE_MEMORY_MB). */
  memoryMb: number;
  /** CPU time of one parse (MINDPRINT_PARSE_CPU_SECONDS). Wall time is bounded too, at wallSeconds(). */
  cpuSeconds: number;
  /** Bytes the file's compressed parts may expand to, all together (MINDPRINT_PARSE_MAX_DECODED_MB). */
  maxDecodedBytes: number;
  /** Pages of a PDF. */
  maxPdfPages: number;
  /** Streams (objects with binary data: content, fonts, images) of a PDF. */
  maxPdfStreams: number;
}

export const DEFAULT_PARSE_BUDGETS: ParseBudgets = {
  // 45 MB of plain text parses and is analysed in ~600 MB; a PDF bomb would take several GB.
  memoryMb: 1024,
  cpuSeconds: 120,
  // A 500-page transcript PDF decodes to well under 50 MB of content and fonts; a DOCX's XML is 2–4× its text.
  maxDecodedBytes: 100 * 1024 * 1024,
  maxPdfPages: 500,
  maxPdfStreams: 20_000,
};

/**
 * The wall-clock bound of a parse: its CPU budget, doubled for a busy machine, plus start-up.
 * Past it the parse is stopped and retried once (a loaded machine can cause it); past the CPU
 * budget it fails at once (CPU time is the file's own cost).
 */
export function wallMs(b: Pick<ParseBudgets, 'cpuSeconds'>): number {
  return (b.cpuSeconds * 2 + 30) * 1000;
}

/** The V8 heap cap of a parser process: most of its memory budget, so a heap blow-up is caught by V8 cleanly. */
export function heapMb(b: Pick<ParseBudgets, 'memoryMb'>): number {
  return Math.max(64, Math.floor(b.memoryMb * 0.75));
}

export function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
