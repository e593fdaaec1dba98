/** Shared helpers of the ingest tests: data paths, temp files, and writers of test containers. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import JSZip from 'jszip';
import { fixturePath, SHARED_DATA, sharedDataPath } from '../../support/shared-data.ts';

/** The larger real data (../shared/data): tests reading it skip without it (skipUnlessSharedData). */
export const DATA = SHARED_DATA;
export const dataPath = sharedDataPath;
export { fixturePath };

/** A temp directory removed when the test file's process ends. */
export function tempDir(prefix: string): { dir: string; file: (name: string, content: string | Buffer) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `mindprint-${prefix}-`));
  return {
    dir,
    file: (name, content) => {
      const p = join(dir, name);
      writeFileSync(p, content);
      return p;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An SRT file from `[start, end, text]` cues (times as SRT writes them, `00:00:01,000`), numbered from 1. */
export function srtOf(cues: [string, string, string][]): string {
  return cues.map(([start, end, text], i) => `${i + 1}\n${start} --> ${end}\n${text}\n`).join('\n');
}

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function documentXml(paragraphs: string[]): string {
  const body = paragraphs
    .map((p) => `<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
}

const CONTENT_TYPES = '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS = '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A minimal valid DOCX (content types, package relationships, the main document part). */
export async function makeDocx(paragraphs: string[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', ROOT_RELS);
  zip.file('word/document.xml', documentXml(paragraphs));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

export interface RawZipEntry {
  name: string;
  /** The bytes as stored in the archive (already deflated when method is 8). */
  stored: Buffer;
  method: 0 | 8;
  /** What the headers claim; a zip bomb test may lie here. */
  declaredUncompressedSize: number;
  crc?: number;
}

/** Writes a zip byte by byte, so tests control every header field (honest or not). */
export function writeRawZip(entries: RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.crc ?? 0, 14);
    local.writeUInt32LE(e.stored.length, 18);
    local.writeUInt32LE(e.declaredUncompressedSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt32LE(e.crc ?? 0, 16);
    central.writeUInt32LE(e.stored.length, 20);
    central.writeUInt32LE(e.declaredUncompressedSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.stored);
    centrals.push(central, name);
    offset += 30 + name.length + e.stored.length;
  }
  const dir = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(dir.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, eocd]);
}

export function storedEntry(name: string, content: string | Buffer): RawZipEntry {
  const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
  return { name, stored: data, method: 0, declaredUncompressedSize: data.length, crc: crc32(data) };
}

/**
 * A Compound File Binary container holding the given stream names (one FAT sector, one
 * directory sector), as Office writes around a password-protected package ("EncryptionInfo",
 * "EncryptedPackage") or a legacy Word file ("WordDocument").
 */
export function makeCfb(streamNames: string[]): Buffer {
  const names = ['Root Entry', ...streamNames].slice(0, 4);
  const header = Buffer.alloc(512, 0);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x3e, 24);
  header.writeUInt16LE(3, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30);
  header.writeUInt16LE(6, 32);
  header.writeUInt32LE(1, 44); // one FAT sector
  header.writeUInt32LE(1, 48); // directory starts at sector 1
  header.writeUInt32LE(4096, 56);
  header.writeUInt32LE(0xfffffffe, 60);
  header.writeUInt32LE(0xfffffffe, 68);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(i === 0 ? 0 : 0xffffffff, 76 + i * 4);
  const fat = Buffer.alloc(512, 0xff);
  fat.writeUInt32LE(0xfffffffd, 0); // sector 0 holds the FAT
  fat.writeUInt32LE(0xfffffffe, 4); // sector 1 (directory) ends its chain
  const dir = Buffer.alloc(512, 0);
  names.forEach((name, i) => {
    const off = i * 128;
    const utf16 = Buffer.from(`${name}\u0000`, 'utf16le');
    utf16.copy(dir, off);
    dir.writeUInt16LE(utf16.length, off + 64);
    dir.writeUInt8(i === 0 ? 5 : 2, off + 66);
  });
  return Buffer.concat([header, fat, dir]);
}
