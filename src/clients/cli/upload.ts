/**
 * `mindprint upload --mind <mindId|name> <files…>`: uploads each transcript as a snapshot, one
 * after another, and waits for the service to process it, showing its progress (see
 * ./progress.ts). Files are streamed from disk; the bytes are counted as the request body is
 * read, which the SDK allows through its `fetch` option.
 */
import { openAsBlob } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { SnapshotWaitError, type MindprintClient } from '@mindprint/client';
import { CliError, clientFromEnv, describeError, useColor } from './env.ts';
import { resolveMind } from './minds.ts';
import { FileProgress, formatBytes } from './progress.ts';

export interface UploadOptions {
  mind: string;
  date?: string;
  speaker?: string;
  create?: boolean;
  json?: boolean;
  /** Seconds to wait for each file's processing. */
  timeout?: number;
}

export interface FileResult {
  file: string;
  bytes: number;
  status: 'completed' | 'failed';
  snapshotId: string | null;
  /** Why it failed: the service's answer to the upload, or the processing error. */
  error: string | null;
  elapsedMs: number;
  /** The speaker label taken to be the mind (null unless processed). */
  mindSpeaker: string | null;
  /** False when the file names no speakers (every voice counts as the mind); null when not known. */
  speakersLabelled: boolean | null;
  /** The service's warning for such a file, also printed as a warning line. */
  warning: string | null;
  /** The mindset date sent (YYYY-MM-DD or the --date given); null: none, so the service used the day of the upload. */
  mindsetDate: string | null;
  /** Where it came from: --date, the file (its header or its name), or nowhere (the day of the upload). */
  dateFrom: 'flag' | 'file' | 'upload-day';
}

export interface UploadSummary {
  mind: { id: string; name: string; created: boolean };
  files: FileResult[];
  completed: number;
  failed: number;
}

/** A fetch that streams a multipart body through a counter, reporting the bytes read so far. */
export function countingFetch(onBytes: () => ((sent: number) => void) | undefined, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    if (!(init?.body instanceof FormData)) return base(input, init);
    const report = onBytes();
    // Response serializes the form lazily (files are read as they are sent) and names its boundary.
    const encoded = new Response(init.body);
    const headers = new Headers(init.headers);
    headers.set('content-type', encoded.headers.get('content-type')!);
    let sent = 0;
    const body = encoded.body!.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          sent += chunk.byteLength;
          report?.(sent);
          controller.enqueue(chunk);
        },
      }),
    );
    return base(input, { ...init, headers, body, duplex: 'half' } as RequestInit);
  };
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Header keys that hold when a recording was made or published (YAML front matter, `Key: value` lines). */
const DATE_KEYS = /^(?:date|recorded|recorded_at|recording_date|publish_date|published|published_at|air_date|aired)\s*:\s*['"]?(\d{4}-\d{2}-\d{2})\b/im;
/** A calendar date in a file name: 2012-10-03.vtt, debate_2016-09-26.txt. */
const NAME_DATE = /(?:^|[^\d])(\d{4}-\d{2}-\d{2})(?!\d)/;
const HEAD_BYTES = 4096;

const isCalendarDate = (d: string) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === d;
};

/**
 * The date a transcript file gives itself, or null: a date key in its header (the front matter
 * of the podcast transcripts: `publish_date: 2025-02-23`), else a date in its name. The first
 * 4 KB are read; a binary file (PDF, DOCX) has no readable header, so only its name counts.
 */
export async function fileDate(file: string): Promise<string | null> {
  let head = '';
  const handle = await open(file, 'r').catch(() => null);
  if (handle) {
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
      head = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  }
  const fromHead = head.includes('\u0000') ? null : DATE_KEYS.exec(head)?.[1];
  if (fromHead && isCalendarDate(fromHead)) return fromHead;
  const fromName = NAME_DATE.exec(path.basename(file))?.[1];
  return fromName && isCalendarDate(fromName) ? fromName : null;
}

/** The mindset date of each file: --date for all, else each file's own date, else none (the service's default: the day of the upload). */
export async function mindsetDates(files: string[], flag: string | undefined): Promise<Pick<FileResult, 'mindsetDate' | 'dateFrom'>[]> {
  if (flag) return files.map(() => ({ mindsetDate: flag, dateFrom: 'flag' as const }));
  return Promise.all(files.map(async (f) => {
    const d = await fileDate(f);
    return d ? { mindsetDate: d, dateFrom: 'file' as const } : { mindsetDate: null, dateFrom: 'upload-day' as const };
  }));
}

async function checkFiles(files: string[]): Promise<number[]> {
  const problems: string[] = [];
  const sizes = await Promise.all(
    files.map(async (f) => {
      try {
        const s = await stat(f);
        if (!s.isFile()) problems.push(`${f} is not a file`);
        return s.size;
      } catch (err) {
        problems.push(`${f}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
        return 0;
      }
    }),
  );
  if (problems.length) throw new CliError(`Nothing uploaded: ${problems.join('; ')}`);
  return sizes;
}

async function uploadOne(client: MindprintClient, mindId: string, file: string, bytes: number, progress: FileProgress, opts: UploadOptions, date: Pick<FileResult, 'mindsetDate' | 'dateFrom'>): Promise<FileResult> {
  // What is known of the file's speakers: the upload answer's (an auto-caption track), then the processed status's.
  let speakers: Pick<FileResult, 'mindSpeaker' | 'speakersLabelled' | 'warning'> = { mindSpeaker: null, speakersLabelled: null, warning: null };
  const result = (status: FileResult['status'], snapshotId: string | null, error: string | null): FileResult => ({ file, bytes, status, snapshotId, error, elapsedMs: progress.elapsedMs, ...speakers, ...date });
  let snapshotId: string;
  try {
    progress.state('uploading');
    const created = await client.uploadSnapshot(mindId, { file: await openAsBlob(file), fileName: file.split(/[\\/]/).pop(), mindsetDate: date.mindsetDate ?? undefined, speaker: opts.speaker });
    snapshotId = created.mindAssessmentId;
    speakers = { mindSpeaker: null, speakersLabelled: created.speakersLabelled, warning: created.speakerWarning };
    progress.state('uploaded');
    // A new snapshot is queued: pending until a worker takes it.
    progress.state('pending');
  } catch (err) {
    const reason = describeError(err, client.baseUrl);
    progress.state('failed', reason);
    return result('failed', null, reason);
  }
  try {
    const done = await client.waitForSnapshot(mindId, snapshotId, { timeoutMs: (opts.timeout ?? 600) * 1000, intervalMs: 200, onProgress: (s) => s.status !== 'completed' && s.status !== 'failed' && progress.state(s.status as 'pending' | 'processing') });
    speakers = { mindSpeaker: done.mindSpeaker, speakersLabelled: done.speakersLabelled, warning: done.speakerWarning };
    progress.state('completed', `snapshot ${snapshotId}${done.mindSpeaker ? `, speaker "${done.mindSpeaker}"` : ''}`);
    return result('completed', snapshotId, null);
  } catch (err) {
    const reason = err instanceof SnapshotWaitError ? (err.reason === 'failed' ? (err.status.error ?? 'no reason given') : err.message) : describeError(err, client.baseUrl);
    progress.state('failed', `${reason} (snapshot ${snapshotId})`);
    return result('failed', snapshotId, reason);
  }
}

/** Runs the command; resolves with the exit code (1 when any file failed). */
export async function runUpload(files: string[], opts: UploadOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (opts.date !== undefined && (!ISO_DATE.test(opts.date.trim()) || Number.isNaN(Date.parse(opts.date.trim())))) {
    throw new CliError(`--date must be an ISO date or date-time (e.g. 2024-05-01 or 2024-05-01T14:30:00Z), got "${opts.date}"`);
  }
  if (opts.speaker !== undefined && !opts.speaker.trim()) throw new CliError('--speaker must not be empty');
  const sizes = await checkFiles(files);
  let onBytes: ((sent: number) => void) | undefined;
  const client = clientFromEnv(env, countingFetch(() => onBytes));
  let mind;
  try {
    mind = await resolveMind(client, opts.mind, { create: Boolean(opts.create) });
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(describeError(err, client.baseUrl));
  }

  // With --json, stdout carries only the summary: the progress goes to stderr.
  const out = opts.json ? process.stderr : process.stdout;
  // Never today's date in silence: a file without a date of its own is named, and so is the date it gets.
  const dates = await mindsetDates(files, opts.date?.trim());
  const undated = files.filter((_, i) => dates[i]!.dateFrom === 'upload-day');
  if (undated.length) {
    const today = new Date().toISOString().slice(0, 10);
    process.stderr.write(
      `mindprint: note: ${undated.length === 1 ? `${undated[0]} has` : `${undated.length} files have`} no date of ${undated.length === 1 ? 'its' : 'their'} own (none in the name or the header), so the mindset date is the day of the upload, ${today}. ` +
        `Pass --date (when it was said) to place ${undated.length === 1 ? 'it' : 'them'} in time${undated.length > 1 ? ': files of one date make no trajectory' : ''}.\n`,
    );
  }
  out.write(`${mind.created ? 'Created mind' : 'Mind'} "${mind.mind.name}" (${mind.mind.id}): uploading ${files.length} file${files.length === 1 ? '' : 's'}, ${formatBytes(sizes.reduce((a, b) => a + b, 0))}\n`);
  const results: FileResult[] = [];
  for (const [i, file] of files.entries()) {
    const progress = new FileProgress(out, files.length > 1 ? `[${i + 1}/${files.length}] ${file}` : file, sizes[i]!, { color: useColor(out) });
    onBytes = (sent) => progress.sent(sent);
    let result: FileResult;
    try {
      result = await uploadOne(client, mind.mind.id, file, sizes[i]!, progress, { ...opts, speaker: opts.speaker?.trim() }, dates[i]!);
    } finally {
      onBytes = undefined;
      progress.close();
    }
    results.push(result);
    // After the file's progress line is finished, never inside a line being redrawn.
    if (result.warning && result.status === 'completed') process.stderr.write(`mindprint: warning: ${file}: ${result.warning}\n`);
  }
  const summary: UploadSummary = {
    mind: { id: mind.mind.id, name: mind.mind.name, created: mind.created },
    files: results,
    completed: results.filter((r) => r.status === 'completed').length,
    failed: results.filter((r) => r.status === 'failed').length,
  };
  if (opts.json) process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  else out.write(`${summary.completed} completed, ${summary.failed} failed.\n`);
  if (!summary.failed) return 0;
  // With --json the progress (and so each reason) is already on stderr.
  if (!opts.json) for (const r of results.filter((x) => x.status === 'failed')) process.stderr.write(`mindprint: ${r.file} failed: ${r.error}\n`);
  return 1;
}
