/**
 * Parse budgets (src/lib/ingest/budgets.ts): a decompression bomb is refused by its decoded size before
 * pdf.js inflates it; a parse past its memory or CPU budget is killed and refused, naming the
 * limit; the pool keeps working afterwards. Hostile files are generated here (test/support/hostile-files.ts).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ParseBudgetError, ParserCrashedError, UnreadableTranscriptError, type ParseLimit } from '../../../src/lib/ingest/index.ts';
import { closeParserPool, parseTranscriptFile, type ParseStats } from '../../../src/features/snapshots/pool.ts';
import { checkPdfStreams, leadingFlateFilters } from '../../../src/lib/ingest/pdf-scan.ts';
import { docxBomb, hugeCueVtt, pdfBomb, textPdf } from '../../support/hostile-files.ts';
import { tempDir } from './helpers.ts';

const tmp = tempDir('budgets');
after(async () => {
  await closeParserPool();
  tmp.cleanup();
});

const MB = 1024 * 1024;

async function rejectsOver(promise: Promise<unknown>, limit: ParseLimit, message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ParseBudgetError, `expected ParseBudgetError, got ${String(err)}`);
    assert.ok(err instanceof UnreadableTranscriptError, 'a budget overrun is never retried');
    assert.equal(err.limit, limit);
    assert.match(err.message, message);
    return true;
  });
}

test('the PDF stream scan counts what Flate streams inflate to, through filter chains, and stops at the budget', async () => {
  assert.equal(leadingFlateFilters('<< /Length 10 /Filter /FlateDecode >>'), 1);
  assert.equal(leadingFlateFilters('<< /Filter [/FlateDecode /FlateDecode /DCTDecode] >>'), 2);
  assert.equal(leadingFlateFilters('<< /Filter /DCTDecode >>'), 0);
  const bomb = pdfBomb(40 * MB, { streams: 4 });
  const within = await checkPdfStreams(bomb, { maxDecodedBytes: 64 * MB, maxPdfStreams: 10 });
  assert.equal(within.streams, 4);
  assert.equal(within.decodedBytes, 40 * MB);
  await assert.rejects(checkPdfStreams(bomb, { maxDecodedBytes: 16 * MB, maxPdfStreams: 10 }), (e: unknown) => e instanceof ParseBudgetError && e.limit === 'decoded');
  await assert.rejects(checkPdfStreams(bomb, { maxDecodedBytes: 64 * MB, maxPdfStreams: 3 }), (e: unknown) => e instanceof ParseBudgetError && e.limit === 'streams' && /more than 3 streams/.test(e.message));
});

test('a PDF decompression bomb (one stream inflating to 528 MB) is refused by its decoded size, in little memory', async () => {
  const path = tmp.file('bomb.pdf', pdfBomb(528 * MB));
  let stats: ParseStats | undefined;
  await rejectsOver(
    parseTranscriptFile(path, 'pdf', {}, { onStats: (s) => (stats = s) }),
    'decoded',
    /^The PDF's compressed streams expand to more than 100 MB \(decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB\)$/,
  );
  if (process.platform === 'linux') assert.ok(stats && stats.peakRssMb < 400, `peak RSS ${stats?.peakRssMb} MB: the scan streams and discards`);
  // A readable PDF still reads.
  const ok = await parseTranscriptFile(tmp.file('ok.pdf', textPdf(['Hello there, this is a readable page.', 'It has two lines of text.'])), 'pdf');
  assert.match(ok.turns.map((t) => t.text).join(' '), /Hello there, this is a readable page\. It has two lines of text\./);
});

test('a DOCX whose headers lie is stopped at the decoded budget while inflating', async () => {
  await rejectsOver(parseTranscriptFile(tmp.file('bomb.docx', docxBomb(300 * MB)), 'docx', { budgets: { maxDecodedBytes: 8 * MB } }), 'decoded', /^The DOCX expands to more than 8 MB .*MINDPRINT_PARSE_MAX_DECODED_MB/);
});

test('a parse past its memory budget is killed and refused, naming the limit; the next parse works', { skip: process.platform !== 'linux' && 'the RSS watchdog reads /proc' }, async () => {
  // The decoded budget let through, pdf.js inflates the stream whole: the process's resident memory
  // (ArrayBuffers, outside the V8 heap cap) passes the budget and the watchdog kills it.
  const path = tmp.file('bomb-mem.pdf', pdfBomb(700 * MB));
  await rejectsOver(
    parseTranscriptFile(path, 'pdf', { budgets: { maxDecodedBytes: 4096 * MB, memoryMb: 400 } }),
    'memory',
    /^Parsing the file needed more than 400 MB of memory \(memory limit, MINDPRINT_PARSE_MEMORY_MB\)$/,
  );
  const ok = await parseTranscriptFile(tmp.file('after.txt', 'Ann: Hello.\nBen: Hi.\nAnn: Shall we?\n'), 'txt');
  assert.deepEqual(ok.turns.map((t) => t.speaker), ['Ann', 'Ben', 'Ann']);
});

test('a parse past its CPU budget is killed and refused, naming the limit', { skip: process.platform !== 'linux' && 'the CPU watchdog reads /proc' }, async () => {
  const path = tmp.file('cue.vtt', '');
  await hugeCueVtt(path, 2_000_000); // well over a second of CPU on a fast idle machine (600k words was not always)
  await rejectsOver(parseTranscriptFile(path, 'vtt', { budgets: { cpuSeconds: 1 } }), 'cpu', /^Parsing the file needed more than 1 s of CPU time \(time limit, MINDPRINT_PARSE_CPU_SECONDS\)$/);
});

/** The parser processes of this test process (Linux: /proc), newest last. */
function parserPids(): number[] {
  const out = spawnSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }).stdout;
  // Only the parsers: tsx's esbuild service is a child process too.
  return out
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return /snapshots\/child\.[jt]s/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });
}

async function waitForNewParser(known: number[]): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const fresh = parserPids().filter((p) => !known.includes(p));
    if (fresh.length > 0) return fresh[fresh.length - 1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no parser process started');
}

test('a parser killed from outside is transient; one that crashes by itself twice on a file fails as a crash', { skip: process.platform !== 'linux' && 'finds the parser processes with pgrep' }, async () => {
  await closeParserPool();
  const path = tmp.file('slow.vtt', '');
  await hugeCueVtt(path, 600_000); // seconds of parsing: time to kill it mid-parse
  // SIGKILL from outside (an operator, the system's OOM killer): ParserCrashedError, retried by the job.
  let parsing = parseTranscriptFile(path, 'vtt');
  let pid = await waitForNewParser([]);
  await new Promise((r) => setTimeout(r, 500));
  process.kill(pid, 'SIGKILL');
  await assert.rejects(parsing, (e: unknown) => e instanceof ParserCrashedError && !(e instanceof UnreadableTranscriptError) && /stopped from outside .*SIGKILL/.test((e as Error).message));
  // A crash of its own (SIGSEGV, as a native fault raises it): the file gets a fresh process once;
  // a second crash is final, and says so.
  parsing = parseTranscriptFile(path, 'vtt');
  pid = await waitForNewParser([pid]);
  await new Promise((r) => setTimeout(r, 500));
  process.kill(pid, 'SIGSEGV');
  const second = await waitForNewParser([pid]);
  await new Promise((r) => setTimeout(r, 500));
  process.kill(second, 'SIGSEGV');
  await rejectsOver(parsing, 'crash', /^The parser crashed on this file twice \(signal SIGSEGV\); it cannot be read$/);
});
