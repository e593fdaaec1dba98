/**
 * Realistic large inputs for the ingestion benchmark, built from real speech: the turns of two
 * real Lex Fridman interviews with Andrew Huberman, in their real order (repeated from the top if
 * more words are needed), so the text reads like conversation.
 *
 *   node --import tsx bench/fixtures.ts [outDir]     (default bench/fixtures/generated/)
 *
 * Writes:
 * - interview-1h.vtt  one hour, two speakers, ~10k words, a cue every ~3.6 s with <v Name> tags
 * - interview-100p.pdf  exactly 100 pages of `Name: text` paragraphs (pdfkit, 11 pt Helvetica)
 * - interview-50p.docx  ~50 pages of `Name: text` paragraphs (25k words at ~500 words a page;
 *   a DOCX stores no page count, so pages are estimated the way Word lays out 11 pt text)
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import PDFDocument from 'pdfkit';
import { linesToTranscript } from '../src/lib/ingest/layout.ts';
import { decodeText } from '../src/lib/ingest/text.ts';
import { countWords } from '../src/lib/ingest/words.ts';
import type { TranscriptTurn } from '../src/lib/ingest/types.ts';
import { requireSharedData, sharedDataPath } from '../test/support/shared-data.ts';

/** Two long interviews of ../shared/data (the benchmarks' input); tests pass the debate excerpts of test/fixtures instead. */
const SOURCES = ['393-andrew-huberman.txt', '435-andrew-huberman.txt'].map((f) => sharedDataPath(`transcripts/lex-fridman-podcast/${f}`));

const VTT_WORDS = 10_000;
const VTT_SECONDS = 3600;
const WORDS_PER_CUE = 10;
const PDF_PAGES = 100;
const DOCX_WORDS = 25_000;

async function realTurns(sources: string[]): Promise<TranscriptTurn[]> {
  const turns: TranscriptTurn[] = [];
  for (const path of sources) {
    const text = decodeText(await readFile(path));
    turns.push(...linesToTranscript(text.split('\n'), { markdown: true }).turns);
  }
  return turns;
}

/** Turns in real order, cycling from the top, until `words` words have been taken. */
function takeWords(turns: TranscriptTurn[], words: number): TranscriptTurn[] {
  const out: TranscriptTurn[] = [];
  let total = 0;
  for (let i = 0; total < words; i = (i + 1) % turns.length) {
    const turn = turns[i]!;
    const last = out[out.length - 1];
    const text = turn.text.replace(/\n/g, ' ');
    // Cycling can put one speaker twice in a row; that is one turn.
    if (last && last.speaker === turn.speaker) last.text += ` ${text}`;
    else out.push({ speaker: turn.speaker, text });
    total += countWords(text);
  }
  return out;
}

function vttTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

function buildVtt(turns: TranscriptTurn[]): string {
  const cues: { speaker: string; words: string[] }[] = [];
  for (const turn of turns) {
    const words = turn.text.split(/\s+/).filter((w) => w.length > 0);
    for (let i = 0; i < words.length; i += WORDS_PER_CUE) cues.push({ speaker: turn.speaker, words: words.slice(i, i + WORDS_PER_CUE) });
  }
  const step = Math.floor((VTT_SECONDS * 1000) / cues.length);
  const out = ['WEBVTT', ''];
  cues.forEach((cue, i) => {
    out.push(String(i + 1), `${vttTime(i * step)} --> ${vttTime((i + 1) * step)}`, `<v ${cue.speaker}>${cue.words.join(' ')}`, '');
  });
  return out.join('\n');
}

async function buildPdf(turns: TranscriptTurn[], path: string): Promise<number> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 72, bufferPages: false, info: { Title: 'Interview transcript' } });
  const done = new Promise<void>((res, rej) => {
    const stream = doc.pipe(createWriteStream(path));
    stream.on('finish', () => res());
    stream.on('error', rej);
  });
  let pages = 1;
  doc.on('pageAdded', () => pages++);
  doc.font('Helvetica').fontSize(11);
  const width = doc.page.width - 144;
  for (let i = 0; ; i = (i + 1) % turns.length) {
    const para = `${turns[i]!.speaker}: ${turns[i]!.text}`;
    // Stop before a paragraph would spill onto page PDF_PAGES + 1.
    if (pages === PDF_PAGES && doc.y + doc.heightOfString(para, { width }) > doc.page.maxY()) break;
    doc.text(para, { width, paragraphGap: 6 });
    if (pages > PDF_PAGES) throw new Error('overflowed the page budget');
  }
  doc.end();
  await done;
  return pages;
}

function docxXml(turns: TranscriptTurn[]): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = turns.map((t) => `<w:p><w:r><w:t xml:space="preserve">${esc(`${t.speaker}: ${t.text}`)}</w:t></w:r></w:p>`).join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>`;
}

async function buildDocx(turns: TranscriptTurn[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', docxXml(turns));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 6 } });
}

export async function generateFixtures(outDir: string, sources: string[] = SOURCES): Promise<{ vtt: string; pdf: string; docx: string }> {
  if (sources === SOURCES) requireSharedData('bench/fixtures.ts');
  await mkdir(outDir, { recursive: true });
  const turns = await realTurns(sources);
  const vtt = join(outDir, 'interview-1h.vtt');
  const pdf = join(outDir, 'interview-100p.pdf');
  const docx = join(outDir, 'interview-50p.docx');
  await writeFile(vtt, buildVtt(takeWords(turns, VTT_WORDS)));
  await buildPdf(turns, pdf);
  await writeFile(docx, await buildDocx(takeWords(turns, DOCX_WORDS)));
  return { vtt, pdf, docx };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? fileURLToPath(new URL('./fixtures/generated/', import.meta.url)));
  const paths = await generateFixtures(outDir);
  for (const [kind, path] of Object.entries(paths)) console.log(`${kind}\t${path}`);
}
