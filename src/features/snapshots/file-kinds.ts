import { open } from 'node:fs/promises';
import { isAutoCaptionTrack, sniffFile } from '../../lib/ingest/index.ts';
import { invalid } from '../../platform/errors.ts';
import type { FileKind } from '../../lib/ingest/types.ts';

/** The content type we store for a kind detected from the bytes (the client's claim is not trusted). */
export const CONTENT_TYPE: Record<FileKind, string> = {
  vtt: 'text/vtt',
  srt: 'application/x-subrip',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

/** Content types a signed upload URL may be requested for. */
export const UPLOADABLE_CONTENT_TYPES = new Set([...Object.values(CONTENT_TYPE), 'text/markdown', 'application/octet-stream']);

/** How much of a caption file is read to recognise an auto-caption track (as much as the sniffer reads). */
const CAPTION_HEAD_BYTES = 64 * 1024;

/**
 * Whether a file of this kind is an auto-caption track that names no speakers, told from its
 * first 64 KB (ingest's isAutoCaptionTrack), so the upload answer can warn before processing.
 */
export async function isAutoCaptionFile(filePath: string, kind: FileKind): Promise<boolean> {
  if (kind !== 'vtt') return false;
  const fh = await open(filePath, 'r');
  try {
    const head = Buffer.alloc(CAPTION_HEAD_BYTES);
    const { bytesRead } = await fh.read({ buffer: head, position: 0, length: head.length });
    return isAutoCaptionTrack(head.subarray(0, bytesRead).toString('utf8'));
  } finally {
    await fh.close();
  }
}

async function sniffOrReject(filePath: string): Promise<FileKind> {
  const kind = await sniffFile(filePath);
  if (!kind) {
    throw invalid('Unsupported file type: upload a WebVTT, SRT, DOCX, PDF or UTF-8 text transcript (the type is detected from the content, not the name)', { field: 'file' });
  }
  return kind;
}

/** The kind of an uploaded file (or a 400), and whether its format says it names no speakers. */
export async function sniffUpload(filePath: string): Promise<{ kind: FileKind; autoCaptions: boolean }> {
  const kind = await sniffOrReject(filePath);
  return { kind, autoCaptions: await isAutoCaptionFile(filePath, kind) };
}
