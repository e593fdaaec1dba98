/**
 * Just enough of the ZIP format to read one entry safely: the central directory is read from the
 * end of the file (no scan of the whole archive), and an entry is inflated with a hard cap on its
 * output, so a zip bomb is refused before (declared sizes) and while (actual bytes) it inflates.
 */
import type { FileHandle } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** General-purpose flags; bit 0 set means the entry is encrypted. */
  flags: number;
  /** 0 = stored, 8 = deflate. */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;
/** A DOCX central directory is a few KB; anything near this is not a document we want. */
const MAX_DIRECTORY_BYTES = 8 * 1024 * 1024;

/** The archive is structurally broken (offsets outside the file, bad signatures). */
export class ZipFormatError extends Error {
  override name = 'ZipFormatError';
}

/** Inflating an entry produced more bytes than allowed. */
export class ZipLimitError extends Error {
  override name = 'ZipLimitError';
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read({ buffer: buf, position, length });
  return bytesRead === length ? buf : buf.subarray(0, bytesRead);
}

function safeNumber(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError('ZIP64 value out of range');
  return Number(n);
}

/**
 * Reads the central directory. Returns null when the file has no end-of-central-directory
 * record (not a zip); throws ZipFormatError when it has one but the directory is inconsistent.
 */
export async function readZipDirectory(fh: FileHandle, fileSize: number): Promise<ZipEntry[] | null> {
  if (fileSize < EOCD_MIN) return null;
  const tailLength = Math.min(fileSize, EOCD_MIN + MAX_COMMENT);
  const tailStart = fileSize - tailLength;
  const tail = await readAt(fh, tailStart, tailLength);
  let eocd = -1;
  for (let i = tail.length - EOCD_MIN; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;

  let entryCount = tail.readUInt16LE(eocd + 10);
  let dirSize = tail.readUInt32LE(eocd + 12);
  let dirOffset = tail.readUInt32LE(eocd + 16);
  if (entryCount === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
    // ZIP64: the real values live in the ZIP64 end record, found through its locator.
    const locatorPos = tailStart + eocd - 20;
    if (locatorPos < 0) throw new ZipFormatError('missing ZIP64 locator');
    const locator = await readAt(fh, locatorPos, 20);
    if (locator.length < 20 || locator.readUInt32LE(0) !== ZIP64_LOCATOR_SIG) throw new ZipFormatError('missing ZIP64 locator');
    const recordPos = safeNumber(locator.readBigUInt64LE(8));
    const record = await readAt(fh, recordPos, 56);
    if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_EOCD_SIG) throw new ZipFormatError('bad ZIP64 end record');
    entryCount = safeNumber(record.readBigUInt64LE(32));
    dirSize = safeNumber(record.readBigUInt64LE(40));
    dirOffset = safeNumber(record.readBigUInt64LE(48));
  }
  if (dirSize > MAX_DIRECTORY_BYTES || dirOffset + dirSize > fileSize) throw new ZipFormatError('central directory out of bounds');

  const dir = await readAt(fh, dirOffset, dirSize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < entryCount; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL_SIG) throw new ZipFormatError('bad central directory entry');
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    const end = p + 46 + nameLength + extraLength + commentLength;
    if (end > dir.length) throw new ZipFormatError('central directory entry out of bounds');
    const entry: ZipEntry = {
      name: dir.toString('utf8', p + 46, p + 46 + nameLength),
      flags: dir.readUInt16LE(p + 8),
      method: dir.readUInt16LE(p + 10),
      compressedSize: dir.readUInt32LE(p + 20),
      uncompressedSize: dir.readUInt32LE(p + 24),
      localHeaderOffset: dir.readUInt32LE(p + 42),
    };
    applyZip64Extra(entry, dir.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength));
    entries.push(entry);
    p = end;
  }
  return entries;
}

/** Replaces 0xFFFFFFFF placeholders with the 64-bit values of the ZIP64 extra field. */
function applyZip64Extra(entry: ZipEntry, extra: Buffer): void {
  let q = 0;
  while (q + 4 <= extra.length) {
    const id = extra.readUInt16LE(q);
    const size = extra.readUInt16LE(q + 2);
    if (id === 0x0001) {
      let r = q + 4;
      const take = (): number => {
        if (r + 8 > q + 4 + size) throw new ZipFormatError('short ZIP64 extra field');
        const v = safeNumber(extra.readBigUInt64LE(r));
        r += 8;
        return v;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = take();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = take();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = take();
      return;
    }
    q += 4 + size;
  }
}

/**
 * Reads and inflates one entry, refusing to produce more than `maxBytes`: zlib stops as soon as
 * its output passes the cap, whatever the headers claimed.
 */
export async function readZipEntry(fh: FileHandle, fileSize: number, entry: ZipEntry, maxBytes: number): Promise<Buffer> {
  const local = await readAt(fh, entry.localHeaderOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL_SIG) throw new ZipFormatError('bad local header');
  const dataStart = entry.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (dataStart + entry.compressedSize > fileSize) throw new ZipFormatError('entry data out of bounds');
  if (entry.method === 0) {
    if (entry.compressedSize > maxBytes) throw new ZipLimitError('stored entry larger than the limit');
    return readAt(fh, dataStart, entry.compressedSize);
  }
  if (entry.method !== 8) throw new ZipFormatError(`unsupported compression method ${entry.method}`);
  // Deflate never expands input by more than a few bytes per block, so compressed data larger
  // than the output cap cannot be a legitimate entry within the cap.
  if (entry.compressedSize > maxBytes + 1024) throw new ZipLimitError('compressed entry larger than the limit');
  const compressed = await readAt(fh, dataStart, entry.compressedSize);
  try {
    return inflateRawSync(compressed, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new ZipLimitError('inflated entry larger than the limit');
    throw new ZipFormatError(`corrupt deflate data: ${(err as Error).message}`);
  }
}
