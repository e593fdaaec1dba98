/**
 * What it costs the upload answer to flag a file that names no speakers, in one run: the check the
 * upload makes (`isAutoCaptionFile`: the first 64 KB of a WebVTT file, src/features/snapshots/file-kinds.ts)
 * against the baseline of reading the file's labels (`speakerLabels`: a full parse on the request's
 * parser thread, what the upload does only when a `speaker` is given). Both run on the real debate
 * caption tracks (no speaker named) and on the labelled transcripts of the same debates, and must
 * agree: a track the head check flags parses to the one voice "Speaker", and a labelled file is
 * never flagged.
 *
 * Run: node --import tsx bench/speaker-flag.ts     Writes bench/results/speaker-flag.md.
 * Env: BENCH_RUNS (default 5), MINDPRINT_SHARED_DATA (where ../shared/data is).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { SINGLE_SPEAKER_LABEL, sniffFile, type FileKind } from '../src/lib/ingest/index.ts';
import { closeParserPool, speakerLabels } from '../src/features/snapshots/pool.ts';
import { isAutoCaptionFile } from '../src/features/snapshots/file-kinds.ts';
import { requireSharedData, sharedDataPath } from '../test/support/shared-data.ts';

requireSharedData('bench/speaker-flag.ts');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const RESULTS = new URL('./results/speaker-flag.md', import.meta.url);
const DATES = ['2012-10-03', '2012-10-16', '2012-10-22', '2016-09-26', '2016-10-09', '2016-10-19'];
const FILES = DATES.flatMap((d) => [`${d}.vtt`, `${d}.said.txt`]).map((f) => sharedDataPath(`transcripts/us-presidential-debates/${f}`));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  let value!: T;
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const t = performance.now();
    value = await fn();
    if (i > 0) times.push(performance.now() - t); // the first run warms up
  }
  return { ms: median(times), value };
}

const load = loadavg()[0]!.toFixed(1);
const rows: string[] = [];
let headTotal = 0;
let parseTotal = 0;
let disagreements = 0;
for (const file of FILES) {
  const kind = (await sniffFile(file)) as FileKind;
  const head = await time(() => isAutoCaptionFile(file, kind));
  const parse = await time(() => speakerLabels(file, kind, 120_000));
  const oneVoice = parse.value.length === 1 && parse.value[0] === SINGLE_SPEAKER_LABEL;
  // The head check may say "not known" (false) for a file the parse finds unlabelled, never the reverse.
  const agrees = head.value ? oneVoice : true;
  if (!agrees || (kind === 'vtt' && !head.value)) disagreements++;
  if (kind === 'vtt') {
    headTotal += head.ms;
    parseTotal += parse.ms;
  }
  const name = file.split('/').pop()!;
  // Only WebVTT files are read at all by the head check: the ratio means something only for them.
  const ratio = kind === 'vtt' ? `${(parse.ms / head.ms).toFixed(0)}×` : 'not read';
  rows.push(`| ${name} | ${kind} | ${head.value ? 'no speakers' : '—'} | ${oneVoice ? 'one voice' : `${parse.value.length} labels`} | ${head.ms.toFixed(2)} | ${parse.ms.toFixed(0)} | ${ratio} |`);
  console.error(rows.at(-1));
}
await closeParserPool();

const report = `# Flagging a file that names no speakers at upload — \`bench/speaker-flag.ts\`

Run ${new Date().toISOString()}, Node ${process.version}, ${RUNS} runs per file after one warm-up (median), load average ${load} (a 2-core machine shared with other work).

The upload answer says at once whether a file names no speakers when its format tells: a WebVTT
caption track whose cues time their words and name no one (YouTube's auto-captions). The check reads
the file's first 64 KB (\`isAutoCaptionFile\`). The baseline is what knowing it for certain would
cost: reading the file's speaker labels (\`speakerLabels\`, a full parse on the request's parser
thread), which the upload does only to check a \`speaker\` field.

| file | kind | head check | labels (full parse) | head ms | parse ms | parse / head |
|---|---|---|---|---:|---:|---:|
${rows.join('\n')}

Total over the ${DATES.length} caption tracks: head check ${headTotal.toFixed(1)} ms, full parse ${parseTotal.toFixed(0)} ms (**${(parseTotal / headTotal).toFixed(0)}×**).
Files where the two disagree (a caption track not flagged, or a flagged file with named speakers): **${disagreements}**.
`;
writeFileSync(RESULTS, report);
console.log(report);
