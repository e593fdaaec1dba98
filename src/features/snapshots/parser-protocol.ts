/**
 * What crosses between the parser pool and a parser process (child.ts): the task sent, the answer
 * sent back, and an error rebuilt on this side from what of it crossed.
 */
import type { FileKind } from '../../lib/ingest/types.ts';
import type { ParseOptions } from '../../lib/ingest/parse.ts';
import { ParseBudgetError, UnknownSpeakerError, UnreadableTranscriptError, type ParseLimit } from '../../lib/ingest/errors.ts';
import type { DigestRequest } from './digest.ts';

/**
 * `parse` returns a Transcript; `labels` only its speaker labels (small to post back); `digest`
 * parses, attributes and analyses (snapshots/digest.ts): with `turnsFile`, the turns are written
 * there (NDJSON) and only the rest comes back (a DigestSummary), so no message carries them all.
 */
export interface TaskRequest {
  id: number;
  op: 'parse' | 'labels' | 'digest' | 'warm';
  path: string;
  kind: FileKind;
  opts: ParseOptions;
  digest?: DigestRequest;
  turnsFile?: string;
}

export type TaskResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: SerializedError };

/** What of an error crosses the process boundary: enough to rebuild its class and errno code. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  labels?: string[];
  limit?: string;
}

/** The error a parser process reported, as the class the callers test for (budget, unreadable, speaker) or with its errno code. */
export function rebuildError(e: SerializedError): Error {
  if (e.name === 'ParseBudgetError') return new ParseBudgetError((e.limit ?? 'decoded') as ParseLimit, e.message);
  if (e.name === 'UnreadableTranscriptError') return new UnreadableTranscriptError(e.message);
  if (e.name === 'UnknownSpeakerError') return Object.assign(new UnknownSpeakerError('', e.labels ?? []), { message: e.message });
  const err: Error & { code?: string } = new Error(e.message);
  err.name = e.name;
  // The errno code (EIO, EMFILE, …) is what tells a passing I/O problem from a bug.
  if (e.code !== undefined) err.code = e.code;
  return err;
}
