/**
 * Cue timing lines of caption files (`00:01:02.500 --> 00:01:05.000 align:start`), read leniently:
 * hours optional, a comma or a dot before the milliseconds, the milliseconds themselves optional,
 * and an arrow with extra dashes (`--->`). The sniffer uses them to recognise captions whose
 * header is broken, and the text layouts to make sure a timing line is never kept as speech.
 */
import type { FileKind } from './types.ts';

const TIME = String.raw`(?:(\d+):)?(\d{1,2}):(\d{2})(?:[.,](\d{1,3}))?`;
const TIMING = new RegExp(String.raw`^\s*${TIME}\s*-{2,}>\s*${TIME}`);
/** A whole line that is a timing line (cue settings may follow the end time). */
const TIMING_LINE = new RegExp(String.raw`^\s*${TIME}\s*-{2,}>\s*${TIME}(?:\s+\S.*)?\s*$`);

function toMs(h: string | undefined, m: string, s: string, frac: string | undefined): number {
  const ms = frac === undefined ? 0 : Math.round(Number(`0.${frac}`) * 1000);
  return ((Number(h ?? 0) * 60 + Number(m)) * 60 + Number(s)) * 1000 + ms;
}

const TIMESTAMP = new RegExp(String.raw`^${TIME}$`);

/** A lone timestamp (`00:01:02.500`, as in WebVTT's inline word timings) in milliseconds, else null. */
export function parseTimestamp(text: string): number | null {
  const m = TIMESTAMP.exec(text.trim());
  return m ? toMs(m[1], m[2]!, m[3]!, m[4]) : null;
}

/** The start and end of a line that begins with a cue timing, else null. */
export function parseTiming(line: string): { startMs: number; endMs: number } | null {
  const m = TIMING.exec(line);
  if (!m) return null;
  return { startMs: toMs(m[1], m[2]!, m[3]!, m[4]), endMs: toMs(m[5], m[6]!, m[7]!, m[8]) };
}

export function isTimingLine(line: string): boolean {
  return TIMING_LINE.test(line);
}

/** A WebVTT signature, however mangled: wrong case, or blank lines before it. */
const LOOSE_WEBVTT = /^\s*WEBVTT\b/i;

/**
 * Captions the strict checks missed (a WebVTT header in the wrong case, after a blank line or
 * after junk; an SRT without its counter): 'vtt' or 'srt' when `text` (the head of a file) has
 * the structure of cues, else null. Cues are clear when timing lines make up at least a fifth of
 * the non-blank lines (in a caption file they are a third or more; prose that happens to contain
 * one stays text) or the first line is a WebVTT signature.
 */
export function looseCaptionKind(text: string): Extract<FileKind, 'vtt' | 'srt'> | null {
  const lines = text.split('\n').filter((l) => l.trim().length > 0);
  if (lines.length === 0) return null;
  const signature = lines.slice(0, 3).some((l) => LOOSE_WEBVTT.test(l));
  if (LOOSE_WEBVTT.test(lines[0]!)) return 'vtt';
  const timings = lines.filter(isTimingLine).length;
  if (timings === 0 || timings * 5 < lines.length) return null;
  return signature ? 'vtt' : 'srt';
}
