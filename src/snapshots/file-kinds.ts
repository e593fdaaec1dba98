import type { FileKind } from '../ingest/types.ts';

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
