/**
 * Parsing by kind, in the calling thread. The public entry point (parseTranscriptFile in
 * pool.ts) runs this inside a parser child process; nothing else should call it on the API's thread.
 */
import { readFile } from 'node:fs/promises';
import type { FileKind, Transcript } from './types.ts';
import { decodeText } from './text.ts';
import { parseSrtCues, parseVttCues } from './caption-cues.ts';
import { cuesToTranscript } from './cues.ts';
import { linesToTranscript } from './layout.ts';
import { readDocxParagraphs } from './docx.ts';
import { readPdfLines } from './pdf.ts';
import { DEFAULT_PARSE_BUDGETS, type ParseBudgets } from './budgets.ts';

export interface ParseOptions {
  /** What the parse may use (budgets.ts); each field defaults to DEFAULT_PARSE_BUDGETS. */
  budgets?: Partial<ParseBudgets>;
  /** Refuse PDFs with more pages than this (default budgets.maxPdfPages, 500). */
  maxPdfPages?: number;
  /** Stop the parse (and its process) after this long, wall clock (default wallMs(budgets)); retried once. */
  timeoutMs?: number;
  /** Refuse DOCX files whose document part inflates past this many bytes (default budgets.maxDecodedBytes). */
  maxDocxUncompressedBytes?: number;
}

export function budgetsOf(opts: ParseOptions): ParseBudgets {
  const b = { ...DEFAULT_PARSE_BUDGETS, ...opts.budgets };
  if (opts.maxPdfPages !== undefined) b.maxPdfPages = opts.maxPdfPages;
  return b;
}

export async function parseInThisThread(path: string, kind: FileKind, opts: ParseOptions = {}): Promise<Transcript> {
  const budgets = budgetsOf(opts);
  switch (kind) {
    case 'vtt':
      return cuesToTranscript(parseVttCues(decodeText(await readFile(path))), 'VTT');
    case 'srt':
      return cuesToTranscript(parseSrtCues(decodeText(await readFile(path))), 'SRT');
    case 'txt':
      return linesToTranscript(decodeText(await readFile(path)).split('\n'), { markdown: true });
    case 'docx':
      return linesToTranscript(await readDocxParagraphs(path, opts.maxDocxUncompressedBytes ?? budgets.maxDecodedBytes));
    case 'pdf':
      return linesToTranscript(await readPdfLines(path, budgets.maxPdfPages, budgets), { wrapped: true, dropCapsHeadings: true });
    default: {
      const never: never = kind;
      throw new Error(`Unknown file kind: ${String(never)}`);
    }
  }
}
