/**
 * PDF → lines of running text, with print furniture removed: line-number columns, page numbers,
 * running headers and footers (lines that recur on most pages), stage directions and the
 * word index ("concordance") that court transcripts append.
 *
 * pdf.js (through unpdf's serverless build) runs in this thread; callers run it in a worker.
 */
import { readFile } from 'node:fs/promises';
import { getDocumentProxy } from 'unpdf';
import { ParseBudgetError, UnreadableTranscriptError } from './errors.ts';
import { DEFAULT_PARSE_BUDGETS } from './budgets.ts';
import { checkPdfStreams, type PdfStreamBudget } from './pdf-scan.ts';

export const DEFAULT_MAX_PDF_PAGES = DEFAULT_PARSE_BUDGETS.maxPdfPages;

interface Item {
  str: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface PdfLine {
  items: Item[];
  text: string;
}

/** Page:line references of a concordance, "26:23" or "[12]". */
const INDEX_REF = /^(?:\[\d+\]|\d+:\d+(?:,\d+)*,?)$/;
const MIN_PAGES_FOR_FURNITURE = 4;

export async function readPdfLines(
  path: string,
  maxPages = DEFAULT_MAX_PDF_PAGES,
  streamBudget: PdfStreamBudget = { maxDecodedBytes: DEFAULT_PARSE_BUDGETS.maxDecodedBytes, maxPdfStreams: DEFAULT_PARSE_BUDGETS.maxPdfStreams },
): Promise<string[]> {
  const bytes = await readFile(path);
  // The decompression budget, before pdf.js inflates anything (pdf-scan.ts).
  await checkPdfStreams(bytes, streamBudget);
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(data, { verbosity: 0, stopAtErrors: false });
  } catch (err) {
    throw unreadable(err);
  }
  try {
    if (pdf.numPages > maxPages) throw new ParseBudgetError('pages', `The PDF has more than ${maxPages} pages (page limit of the parser)`);
    const pages: PdfLine[][] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      try {
        const page = await pdf.getPage(n);
        const content = await page.getTextContent();
        const items: Item[] = [];
        for (const it of content.items) {
          if (!('str' in it) || it.str.trim().length === 0) continue;
          items.push({ str: it.str, x: it.transform[4], y: it.transform[5], width: it.width, height: Math.abs(it.height) || Math.abs(it.transform[3]) || 10 });
        }
        pages.push(groupLines(items));
        page.cleanup();
      } catch (err) {
        throw unreadable(err);
      }
    }
    return removeFurniture(pages);
  } finally {
    await pdf.destroy();
  }
}

function unreadable(err: unknown): Error {
  if (err instanceof UnreadableTranscriptError) return err;
  const name = (err as { name?: string })?.name;
  if (name === 'PasswordException') return new UnreadableTranscriptError('The PDF is password-protected');
  // pdf.js errors are a function of the bytes alone: the same file will fail the same way again.
  return new UnreadableTranscriptError('The PDF is damaged or truncated');
}

/** Items → visual lines: same baseline (within half a glyph), left to right. */
function groupLines(items: Item[]): PdfLine[] {
  const sorted = [...items].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: PdfLine[] = [];
  for (const item of sorted) {
    const last = lines[lines.length - 1];
    const lastY = last?.items[0]?.y;
    if (last && lastY !== undefined && Math.abs(lastY - item.y) <= Math.max(1, Math.min(item.height, last.items[0]!.height) * 0.5)) {
      last.items.push(item);
    } else {
      lines.push({ items: [item], text: '' });
    }
  }
  for (const line of lines) {
    line.items.sort((a, b) => a.x - b.x);
    let text = '';
    let prevEnd = -Infinity;
    for (const it of line.items) {
      const gap = it.x - prevEnd;
      text += text.length > 0 && gap > it.height * 0.15 && !text.endsWith(' ') && !it.str.startsWith(' ') ? ` ${it.str}` : it.str;
      prevEnd = it.x + it.width;
    }
    line.text = text.replace(/\s+/g, ' ').trim();
  }
  return lines;
}

function furnitureKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

function isIndexLine(text: string): boolean {
  const tokens = text.split(' ');
  const refs = tokens.filter((t) => INDEX_REF.test(t)).length;
  return refs >= 2 && refs * 2 >= tokens.length;
}

function removeFurniture(pages: PdfLine[][]): string[] {
  // A margin column of line numbers: where many lines of a page start with a small integer set
  // apart from the text, those integers are furniture, and so is an integer at the same left
  // position on the document's other pages (a last page with a few numbered lines).
  const leadingNumber = (l: PdfLine): Item | null => {
    const first = l.items[0];
    return l.items.length > 1 && first && /^\d{1,3}$/.test(first.str.trim()) ? first : null;
  };
  let columnRight = -Infinity;
  for (const lines of pages) {
    const numbers = lines.map(leadingNumber).filter((n): n is Item => n !== null);
    if (numbers.length >= 5) columnRight = Math.max(columnRight, ...numbers.map((n) => n.x + n.width));
  }
  for (const lines of pages) {
    for (const l of lines) {
      const n = leadingNumber(l);
      if (!n || n.x + n.width > columnRight + 1) continue;
      l.items.shift();
      l.text = l.text.replace(/^\d{1,3}\s*/, '');
    }
  }

  const pageCount = new Map<string, number>();
  for (const lines of pages) {
    for (const key of new Set(lines.map((l) => furnitureKey(l.text)))) pageCount.set(key, (pageCount.get(key) ?? 0) + 1);
  }
  const recurring = (text: string): boolean => pages.length >= MIN_PAGES_FOR_FURNITURE && (pageCount.get(furnitureKey(text)) ?? 0) * 2 >= pages.length;

  const out: string[] = [];
  for (const lines of pages) {
    const indexLines = lines.filter((l) => isIndexLine(l.text)).length;
    const bracketRefs = lines.reduce((n, l) => n + (l.text.match(/\[\d+\]/g)?.length ?? 0), 0);
    if (bracketRefs >= 15 && indexLines * 4 >= lines.length) continue; // a concordance page
    for (const l of lines) {
      if (l.text.length === 0 || /^\d+$/.test(l.text) || recurring(l.text) || isIndexLine(l.text)) continue;
      out.push(l.text);
    }
  }
  return out;
}
