/**
 * The decompression budget of a PDF, checked before pdf.js reads it. pdf.js inflates a stream
 * whole into one growing buffer, so a 1.5 MB file with one FlateDecode stream of 500 MB of
 * spaces costs gigabytes before a single glyph is read. Here every stream of the file is found
 * by its `stream … endstream` keywords (streams are never inside object streams, so a scan of the
 * bytes sees them all) and its Flate filters are run through node:zlib, streaming, counting the
 * output and discarding it: memory stays at a few chunks, and inflating stops as soon as the
 * file's total passes the budget. Other filters count their stored size. What this scan cannot
 * see (a filter pdf.js decodes but zlib does not) is caught by the parser process's memory cap.
 */
import { constants, createInflate, type Inflate } from 'node:zlib';
import { ParseBudgetError } from './errors.ts';
import { megabytes } from './budgets.ts';

export interface PdfStreamBudget {
  maxDecodedBytes: number;
  maxPdfStreams: number;
}

export interface PdfStreamScan {
  streams: number;
  decodedBytes: number;
}

const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');
/** How far back from `stream` its dictionary is looked for. */
const DICT_WINDOW = 4096;

/** Refuses the PDF (ParseBudgetError) when its streams are too many or decode to too much; else what it found. */
export async function checkPdfStreams(data: Buffer, budget: PdfStreamBudget): Promise<PdfStreamScan> {
  let streams = 0;
  let decodedBytes = 0;
  const decodedLimit = () =>
    new ParseBudgetError('decoded', `The PDF's compressed streams expand to more than ${megabytes(budget.maxDecodedBytes)} (decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB)`);
  for (let at = data.indexOf(STREAM); at >= 0; at = data.indexOf(STREAM, at + STREAM.length)) {
    if (at >= 3 && data.toString('latin1', at - 3, at) === 'end') continue;
    let start = at + STREAM.length;
    if (data[start] === 0x0d) start++;
    if (data[start] !== 0x0a && data[start - 1] !== 0x0d) continue; // "stream" inside other text
    if (data[start] === 0x0a) start++;
    streams++;
    if (streams > budget.maxPdfStreams) {
      throw new ParseBudgetError('streams', `The PDF has more than ${budget.maxPdfStreams.toLocaleString('en-US')} streams (stream limit of the parser)`);
    }
    const end = data.indexOf(ENDSTREAM, start);
    const stop = end < 0 ? data.length : end;
    const flates = leadingFlateFilters(dictionaryBefore(data, at));
    const left = budget.maxDecodedBytes - decodedBytes;
    decodedBytes += flates > 0 ? await inflatedSize(data.subarray(start, stop), flates, left) : stop - start;
    if (decodedBytes > budget.maxDecodedBytes) throw decodedLimit();
    at = Math.max(at, stop - STREAM.length);
  }
  return { streams, decodedBytes };
}

/** The text of the object dictionary that precedes `stream` at `at` (after its `obj` keyword when found). */
function dictionaryBefore(data: Buffer, at: number): string {
  const text = data.toString('latin1', Math.max(0, at - DICT_WINDOW), at);
  const obj = text.lastIndexOf('obj');
  return obj >= 0 ? text.slice(obj + 3) : text;
}

/** How many FlateDecode filters the stream's filter chain starts with (each one inflates the previous one's output). */
export function leadingFlateFilters(dict: string): number {
  const m = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9#]+)/.exec(dict);
  if (!m) return 0;
  const names = m[1]!.match(/\/[A-Za-z0-9#]+/g) ?? [];
  let n = 0;
  while (n < names.length && (names[n] === '/FlateDecode' || names[n] === '/Fl')) n++;
  return n;
}

/**
 * The size `data` inflates to through `stages` Flate filters, streaming and discarding the output;
 * stops (returning more than `limit`) once past `limit`. Corrupt or truncated data counts what
 * inflated before the error, as pdf.js would keep it.
 */
function inflatedSize(data: Buffer, stages: number, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const chain: Inflate[] = Array.from({ length: stages }, () => createInflate({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 256 * 1024 }));
    let n = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      for (const z of chain) z.destroy();
      resolve(n);
    };
    for (let k = 0; k + 1 < chain.length; k++) chain[k]!.pipe(chain[k + 1]!);
    const last = chain[chain.length - 1]!;
    last.on('data', (chunk: Buffer) => {
      n += chunk.length;
      if (n > limit) finish();
    });
    last.on('end', finish);
    last.on('close', finish);
    for (const z of chain) z.on('error', finish);
    chain[0]!.end(data);
  });
}
