/**
 * DOCX → paragraphs of text.
 *
 * We read `word/document.xml` ourselves instead of using mammoth: mammoth opens the archive with
 * JSZip, which inflates entries with no size limit, so the zip-bomb checks would have to be done
 * here anyway; and a transcript needs only the paragraph text, which is a small, linear scan of
 * `<w:p>`, `<w:t>`, `<w:tab/>` and `<w:br/>` elements. Deleted revisions (`<w:del>`) and field
 * codes (`<w:instrText>`) are not text a person said, so they are skipped.
 */
import { open } from 'node:fs/promises';
import { ParseBudgetError, UnreadableTranscriptError } from './errors.ts';
import { DEFAULT_PARSE_BUDGETS, megabytes } from './budgets.ts';
import { cfbEntryNames, isCfb } from './cfb.ts';
import { decodeEntities } from './text.ts';
import { readZipDirectory, readZipEntry, ZipFormatError, ZipLimitError, type ZipEntry } from './zip.ts';
import { DOCX_MAIN_PART } from './sniff.ts';

export const DEFAULT_MAX_DOCX_UNCOMPRESSED_BYTES = DEFAULT_PARSE_BUDGETS.maxDecodedBytes;
/** XML compresses 5–20×; a ratio far above this on a large entry is a bomb, not a document. */
const MAX_COMPRESSION_RATIO = 200;
const RATIO_CHECK_MIN_BYTES = 1024 * 1024;

/** The archive would inflate past `limit`: as declared in its directory, or as found while inflating. */
function expandsPast(limit: number): UnreadableTranscriptError {
  return new ParseBudgetError('decoded', `The DOCX expands to more than ${megabytes(limit)} (zip bomb protection; decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB)`);
}

/**
 * A part compressed far beyond what text allows. Its own message: such a part may expand to less
 * than the size limit (28 MB at 600:1), and the refusal should say what was actually wrong.
 */
function compressedTooWell(entry: ZipEntry): UnreadableTranscriptError {
  const ratio = Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize));
  return new ParseBudgetError('decoded', `The DOCX has a part compressed ${ratio.toLocaleString('en-US')}:1, far beyond any real document (zip bomb protection)`);
}

/** Refuses archives whose central directory already announces a bomb; nothing is inflated yet. */
function checkDeclaredSizes(entries: ZipEntry[], main: ZipEntry, limit: number): void {
  if (main.uncompressedSize > limit) throw expandsPast(limit);
  let total = 0;
  for (const e of entries) {
    total += e.uncompressedSize;
    if (e.uncompressedSize >= RATIO_CHECK_MIN_BYTES && e.uncompressedSize > MAX_COMPRESSION_RATIO * Math.max(1, e.compressedSize)) throw compressedTooWell(e);
  }
  // Parts other than document.xml are never inflated, but an archive announcing many times the
  // limit in total is not an honest document either.
  if (total > 4 * limit) throw expandsPast(4 * limit);
}

export async function readDocxParagraphs(path: string, maxUncompressedBytes = DEFAULT_MAX_DOCX_UNCOMPRESSED_BYTES): Promise<string[]> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 512));
    await fh.read({ buffer: head, position: 0, length: head.length });
    if (isCfb(head)) {
      const names = await cfbEntryNames(fh, size);
      if (names.includes('EncryptedPackage')) throw new UnreadableTranscriptError('The DOCX is encrypted (password-protected); save an unprotected copy and upload that');
      throw new UnreadableTranscriptError('The file is a legacy Word or Office document, not a DOCX; save it as .docx and upload that');
    }
    let entries: ZipEntry[] | null;
    try {
      entries = await readZipDirectory(fh, size);
    } catch (err) {
      if (err instanceof ZipFormatError) throw new UnreadableTranscriptError('The DOCX is damaged or truncated');
      throw err;
    }
    if (!entries) throw new UnreadableTranscriptError('The DOCX is damaged or truncated');
    const main = entries.find((e) => e.name === DOCX_MAIN_PART);
    if (!main) throw new UnreadableTranscriptError('The file is a zip archive but not a Word document');
    if (main.flags & 1 || entries.some((e) => e.name === 'EncryptedPackage')) throw new UnreadableTranscriptError('The DOCX is encrypted (password-protected); save an unprotected copy and upload that');
    checkDeclaredSizes(entries, main, maxUncompressedBytes);

    let xml: Buffer;
    try {
      xml = await readZipEntry(fh, size, main, maxUncompressedBytes);
    } catch (err) {
      // Stored or deflated, document.xml came to more than the limit, whatever its header declared.
      if (err instanceof ZipLimitError) throw expandsPast(maxUncompressedBytes);
      if (err instanceof ZipFormatError) throw new UnreadableTranscriptError('The DOCX is damaged or truncated');
      throw err;
    }
    return documentXmlParagraphs(xml.toString('utf8'));
  } finally {
    await fh.close();
  }
}

const TOKEN = /<(\/?)([A-Za-z][\w.-]*:)?([A-Za-z][\w.-]*)\b[^>]*?(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>|([^<]+)/g;

/** Paragraph texts of a WordprocessingML body, in document order (empty paragraphs dropped). */
export function documentXmlParagraphs(xml: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let inText = 0;
  let skipDepth = 0; // inside <w:del>, <w:instrText>, <w:delText>
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN.exec(xml)) !== null) {
    const [, closing, , local, selfClosing, cdata, chars] = m;
    if (chars !== undefined || cdata !== undefined) {
      if (inText > 0 && skipDepth === 0) current.push(cdata ?? decodeEntities(chars!));
      continue;
    }
    if (local === undefined) continue;
    const isClose = closing === '/';
    const isEmpty = selfClosing === '/';
    switch (local) {
      case 'p':
        if (isClose || isEmpty) {
          const text = current.join('').replace(/[ \t]+/g, ' ').trim();
          if (text.length > 0) paragraphs.push(...text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0));
          current = [];
        }
        break;
      case 't':
        if (!isEmpty) inText += isClose ? -1 : 1;
        if (inText < 0) inText = 0;
        break;
      case 'tab':
        if (skipDepth === 0 && !isClose) current.push('\t');
        break;
      case 'br':
      case 'cr':
        if (skipDepth === 0 && !isClose) current.push('\n');
        break;
      case 'del':
      case 'instrText':
      case 'delText':
        if (!isEmpty) skipDepth += isClose ? -1 : 1;
        if (skipDepth < 0) skipDepth = 0;
        break;
      default:
        break;
    }
  }
  return paragraphs;
}
