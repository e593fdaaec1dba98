/**
 * File type by content, never by name. Reads the head of the file (and, for zips and compound
 * files, their directories), never the whole file.
 */
import { open } from 'node:fs/promises';
import type { FileKind } from './types.ts';
import { cfbEntryNames, isCfb } from './cfb.ts';
import { controlCharRatio, isValidUtf8, stripBom, trimIncompleteUtf8Tail } from './text.ts';
import { looseCaptionKind } from './timing.ts';
import { readZipDirectory, ZipFormatError } from './zip.ts';

const HEAD_BYTES = 64 * 1024;
/** Above this share of control characters a UTF-8 file is binary data, not text. */
const MAX_CONTROL_RATIO = 0.01;

const SRT_START = /^\s*\d+[ \t]*\n[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}/;

export const DOCX_MAIN_PART = 'word/document.xml';

export async function sniffFile(path: string): Promise<FileKind | null> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await fh.read({ buffer: head, position: 0, length: head.length });

    if (startsWith(head, '%PDF-')) return 'pdf';
    if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6)) {
      try {
        const entries = await readZipDirectory(fh, size);
        return entries?.some((e) => e.name === DOCX_MAIN_PART) ? 'docx' : null;
      } catch (err) {
        if (err instanceof ZipFormatError) return null;
        throw err;
      }
    }
    if (isCfb(head)) {
      // Only a password-protected OOXML package is a DOCX here (so the parser can say it is
      // encrypted); a legacy .doc or .xls is not a kind we read.
      const names = await cfbEntryNames(fh, size);
      return names.includes('EncryptedPackage') ? 'docx' : null;
    }

    const body = stripBom(head);
    if (/^WEBVTT(?:[ \t\r\n]|$)/.test(body.toString('latin1', 0, 8))) return 'vtt';

    const sample = size > head.length ? trimIncompleteUtf8Tail(body) : body;
    if (sample.includes(0) || !isValidUtf8(sample)) return null;
    const text = sample.toString('utf8').replace(/\r\n?/g, '\n');
    if (controlCharRatio(text) > MAX_CONTROL_RATIO) return null;
    if (SRT_START.test(text)) return 'srt';
    // Captions with a broken header (blank line before "WEBVTT", "WEBvtt", junk first) are still
    // captions: read as text, their timing lines would become speech.
    return looseCaptionKind(text) ?? 'txt';
  } finally {
    await fh.close();
  }
}

function startsWith(buf: Buffer, ascii: string): boolean {
  return buf.length >= ascii.length && buf.toString('latin1', 0, ascii.length) === ascii;
}
