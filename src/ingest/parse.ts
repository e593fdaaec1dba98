/**
 * Parsing by kind, in the calling thread. The public entry point (parseTranscriptFile in
 * pool.ts) runs this inside a worker thread; nothing else should call it on the API's thread.
 */
import { readFile } from 'node:fs/promises';
import type { FileKind, Transcript } from './types.ts';
import { decodeText } from './text.ts';
import { cuesToTranscript, parseSrtCues, parseVttCues } from './cues.ts';
import { linesToTranscript } from './layout.ts';
import { DEFAULT_MAX_DOCX_UNCOMPRESSED_BYTES, readDocxParagraphs } from './docx.ts';
import { DEFAULT_MAX_PDF_PAGES, readPdfLines } from './pdf.ts';

export interface ParseOptions {
  /** Refuse PDFs with more pages than this (default 500). */
  maxPdfPages?: number;
  /** Terminate the parse (and its worker) after this long (default 60 s). */
  timeoutMs?: number;
  /** Refuse DOCX files whose document part inflates past this many bytes (default 50 MB). */
  maxDocxUncompressedBytes?: number;
}

export async function parseInThisThread(path: string, kind: FileKind, opts: ParseOptions = {}): Promise<Transcript> {
  switch (kind) {
    case 'vtt':
      return cuesToTranscript(parseVttCues(decodeText(await readFile(path))), 'VTT');
    case 'srt':
      return cuesToTranscript(parseSrtCues(decodeText(await readFile(path))), 'SRT');
    case 'txt':
      return linesToTranscript(decodeText(await readFile(path)).split('\n'), { markdown: true });
    case 'docx':
      return linesToTranscript(await readDocxParagraphs(path, opts.maxDocxUncompressedBytes ?? DEFAULT_MAX_DOCX_UNCOMPRESSED_BYTES));
    case 'pdf':
      return linesToTranscript(await readPdfLines(path, opts.maxPdfPages ?? DEFAULT_MAX_PDF_PAGES), { wrapped: true, dropCapsHeadings: true });
    default: {
      const never: never = kind;
      throw new Error(`Unknown file kind: ${String(never)}`);
    }
  }
}
