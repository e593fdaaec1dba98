/**
 * Generators of hostile and large input files for tests and benchmarks, built at run time with
 * node:zlib and plain strings so no large binary is ever committed:
 *
 * - `pdfBomb`: a valid one-page PDF whose content stream is one FlateDecode stream that inflates to
 *   `inflatedBytes` (a few hundred KB on disk for ~500 MB inflated).
 * - `docxBomb`: a DOCX whose document.xml inflates far past any limit while its headers declare a
 *   modest size (a lying zip bomb).
 * - `largeTranscriptText`: a labelled plain-text interview of about `bytes` bytes.
 * - `hugeCueVtt`: a WebVTT file with one cue of `words` words (a whole talk in one cue).
 *
 * Writers stream to a file, so generating a 45 MB transcript does not hold it in memory twice.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
/** A deterministic pseudo-random generator, so generated files are the same every run. */
import { mulberry32 as seeded } from '../../src/lib/prng.ts';
import { writeRawZip } from '../lib/ingest/helpers.ts';
export { seeded };


const WORDS = (
  'i think that we should look at the way people really live and work because what matters most is ' +
  'whether our families can afford a home find good jobs and send their children to great schools ' +
  'when i talk to voters across the country they tell me about their hopes their worries and the future ' +
  'they want for their kids and grandkids we have to invest in education energy health care and ' +
  'infrastructure while keeping taxes fair and the budget balanced my plan would cut waste help small ' +
  'businesses grow protect social security and make sure every american has a fair shot at success ' +
  'honestly i believe in working together across party lines listening carefully and keeping promises'
).split(' ');

/** Sentences of plausible English: 6–25 words, capitalised, ending with a full stop or a question mark. */
export function sentenceMaker(seed = 1): () => string {
  const rand = seeded(seed);
  return () => {
    const n = 6 + Math.floor(rand() * 20);
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
    const s = words.join(' ');
    return s[0]!.toUpperCase() + s.slice(1) + (rand() < 0.1 ? '?' : '.');
  };
}

async function writeChunks(path: string, produce: (write: (chunk: string) => Promise<void>) => Promise<void>): Promise<void> {
  const out = createWriteStream(path);
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await produce(write);
  out.end();
  await once(out, 'finish');
}

/**
 * A labelled plain-text interview (`Interviewer:` asks, `Jane Doe:` answers in several sentences),
 * about `bytes` long. Returns the number of words written.
 */
export async function largeTranscriptText(path: string, bytes: number, seed = 1): Promise<number> {
  const sentence = sentenceMaker(seed);
  const rand = seeded(seed + 1);
  let written = 0;
  let words = 0;
  await writeChunks(path, async (write) => {
    let buf = '';
    while (written < bytes) {
      const q = sentence().replace(/\.$/, '?');
      const answer: string[] = [];
      const n = 2 + Math.floor(rand() * 12);
      for (let i = 0; i < n; i++) answer.push(sentence());
      const block = `Interviewer: ${q}\n\nJane Doe: ${answer.join(' ')}\n\n`;
      words += block.split(/\s+/).length - 3;
      buf += block;
      written += block.length;
      if (buf.length > 1 << 20) {
        await write(buf);
        buf = '';
      }
    }
    await write(buf);
  });
  return words;
}

/**
 * WebVTT with a short exchange and then one cue of `words` words spoken by one voice (a whole talk
 * captioned as a single cue). Returns the size in bytes.
 */
export async function hugeCueVtt(path: string, words: number, seed = 2): Promise<number> {
  const sentence = sentenceMaker(seed);
  let size = 0;
  await writeChunks(path, async (write) => {
    const head = 'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Host>Welcome, tell us about your plan.\n\n00:00:03.000 --> 05:00:00.000\n<v Jane Doe>';
    await write(head);
    size += head.length;
    let buf = '';
    for (let n = 0; n < words; ) {
      const s = sentence();
      const k = s.split(' ').length;
      n += k;
      buf += s + ' ';
      if (buf.length > 1 << 20) {
        size += buf.length;
        await write(buf);
        buf = '';
      }
    }
    buf += '\n';
    size += buf.length;
    await write(buf);
  });
  return size;
}

/**
 * A one-page PDF whose page content is a single FlateDecode stream inflating to `inflatedBytes`
 * (spaces: harmless to a content parser, so only the decoding is the attack). Offsets in the
 * cross-reference table are exact, so PDF readers take it as valid.
 */
export function pdfBomb(inflatedBytes: number, opts: { streams?: number } = {}): Buffer {
  const streams = opts.streams ?? 1;
  // Deflate a 1 MB block of spaces once and repeat it: deflateSync of 500 MB would take seconds.
  const chunk = 1 << 20;
  const zeros = Buffer.alloc(chunk, 0x20);
  const parts: Buffer[] = [];
  // A raw deflate stream made of full-flush blocks can be concatenated; wrap it in a zlib header
  // and an Adler-32 checksum that readers either verify (zlib) or ignore (pdf.js).
  const perStream = Math.max(1, Math.ceil(inflatedBytes / streams));
  const block = deflateRawSync(zeros, { level: 9, finishFlush: 2 /* Z_SYNC_FLUSH: not final */ });
  const objects: Buffer[] = [];
  const contentRefs: string[] = [];
  for (let s = 0; s < streams; s++) {
    parts.length = 0;
    parts.push(Buffer.from([0x78, 0xda]));
    let left = perStream;
    while (left > chunk) {
      parts.push(block);
      left -= chunk;
    }
    parts.push(deflateRawSync(zeros.subarray(0, left), { level: 9 })); // final block
    parts.push(adler32Spaces(perStream));
    const data = Buffer.concat(parts);
    const id = 4 + s;
    contentRefs.push(`${id} 0 R`);
    objects.push(Buffer.concat([Buffer.from(`${id} 0 obj\n<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`), data, Buffer.from('\nendstream\nendobj\n')]));
  }
  const head = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n',
    `3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${contentRefs.join(' ')}] >>\nendobj\n`,
  ].map((s) => Buffer.from(s));
  return assemblePdf([...head, ...objects]);
}

/** A small valid PDF with `text` on its one page (Helvetica), for tests that need a readable one. */
export function textPdf(lines: string[]): Buffer {
  const ops = lines.map((l, i) => `BT /F1 12 Tf 72 ${720 - i * 16} Td (${l.replace(/[()\\]/g, '\\$&')}) Tj ET`).join('\n');
  const content = deflateSync(Buffer.from(ops));
  return assemblePdf([
    Buffer.from('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n'),
    Buffer.from('2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n'),
    Buffer.from('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>\nendobj\n'),
    Buffer.concat([Buffer.from(`4 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`), content, Buffer.from('\nendstream\nendobj\n')]),
    Buffer.from('5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n'),
  ]);
}

function assemblePdf(objects: Buffer[]): Buffer {
  const header = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const offsets: number[] = [];
  let pos = header.length;
  for (const o of objects) {
    offsets.push(pos);
    pos += o.length;
  }
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${pos}\n%%EOF\n`;
  return Buffer.concat([header, ...objects, Buffer.from(xref + trailer)]);
}

/** Adler-32 of `n` spaces, big-endian, as a zlib stream ends: a = 1 + 32n, b = n + 32·n(n+1)/2 (mod 65521). */
function adler32Spaces(n: number): Buffer {
  const N = BigInt(n);
  const a = (1n + 32n * N) % 65521n;
  const b = (N + (32n * N * (N + 1n)) / 2n) % 65521n;
  const out = Buffer.alloc(4);
  out.writeUInt32BE(Number((b << 16n) | a));
  return out;
}

/**
 * A DOCX whose word/document.xml inflates to `inflatedBytes` of XML while its local and central
 * headers declare 10 KB: only a limit enforced while inflating stops it.
 */
export function docxBomb(inflatedBytes: number): Buffer {
  const head = '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>';
  const chunk = Buffer.alloc(1 << 20, 0x41);
  const parts: Buffer[] = [deflateRawSync(Buffer.from(head), { finishFlush: 2 })];
  const block = deflateRawSync(chunk, { level: 9, finishFlush: 2 });
  for (let left = inflatedBytes; left > 0; left -= chunk.length) parts.push(block);
  parts.push(deflateRawSync(Buffer.from('</w:t></w:r></w:p></w:body></w:document>'), { level: 9 }));
  const xml = Buffer.concat(parts);
  return writeRawZip([
    { name: '[Content_Types].xml', stored: Buffer.from('<Types/>'), method: 0, declaredUncompressedSize: 8, crc: crc32(Buffer.from('<Types/>')) },
    { name: 'word/document.xml', stored: xml, method: 8, declaredUncompressedSize: 10_240, crc: 0 },
  ]);
}
