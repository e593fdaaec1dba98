/** Byte and string helpers shared by the sniffer and the text-based parsers. */

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function stripBom(bytes: Buffer): Buffer {
  return bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes;
}

/**
 * Drops a multi-byte UTF-8 sequence cut off at the end of a buffer that is only the head of a
 * file, so a valid file is not judged invalid because the head ended mid-character.
 */
export function trimIncompleteUtf8Tail(bytes: Buffer): Buffer {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function isValidUtf8(bytes: Buffer): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decodes a text file for parsing: UTF-8 (invalid bytes become U+FFFD rather than failing), BOM
 * removed, NULs removed (the WebVTT spec replaces them; they never carry speech), newlines
 * normalised to \n.
 */
export function decodeText(bytes: Buffer): string {
  return new TextDecoder('utf-8')
    .decode(stripBom(bytes))
    .replaceAll('\u0000', '')
    .replace(/\r\n?/g, '\n');
}

/** Share of characters that are control characters other than tab, newline, CR and form feed. */
export function controlCharRatio(text: string): number {
  if (text.length === 0) return 0;
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) || c === 0x7f) control++;
  }
  return control / text.length;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', lrm: '', rlm: '',
};

/** Decodes XML/HTML character references; unknown named references are left as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named = NAMED_ENTITIES[ref.toLowerCase()];
    return named ?? whole;
  });
}
