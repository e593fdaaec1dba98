/**
 * Caption files (WebVTT, SRT) → cues: the blocks read leniently, each cue's text markup read into
 * segments by voice (with word times from inline timestamps), and the lines rolling captions
 * repeat dropped. Turning cues into speaker turns is cues.ts.
 */
import { decodeEntities } from './text.ts';
import { parseTimestamp, parseTiming } from './timing.ts';

export interface Segment {
  voice?: string;
  text: string;
  /** Start of each whitespace-separated piece of `text`, when the cue times its words inline. */
  times?: number[];
}

export interface Cue {
  startMs: number;
  endMs: number;
  segments: Segment[];
}

export const pieceCount = (text: string): number => text.split(/\s+/).filter((p) => p.length > 0).length;

/**
 * Cue text markup → segments by voice. Voice spans set the speaker; class, italic, bold,
 * underline, language and ruby tags are dropped with their text kept, ruby annotations (`<rt>`)
 * are dropped entirely. Inline timestamps (`<00:01:02.000>`) are dropped from the text; given the
 * cue's start, they time the words that follow them (`times`; a cue's first words start with it).
 */
export function cueTextSegments(raw: string, startMs?: number): Segment[] {
  const segments: Segment[] = [];
  const fresh = (voice?: string): Segment => ({ ...(voice ? { voice } : {}), text: '', ...(timed ? { times: [] } : {}) });
  // Words are timed from the first inline timestamp on; the words before it start with the cue.
  let timed = false;
  let current = fresh();
  let inRubyText = 0;
  let time = startMs ?? 0;
  const tag = /<([^>]*)>?/g;
  let last = 0;
  let m: RegExpExecArray | null;
  const pushText = (raw: string) => {
    if (inRubyText !== 0 || raw.length === 0) return;
    const s = raw.includes('&') ? decodeEntities(raw) : raw;
    if (current.times) {
      // A piece that continues a word cut by a tag ("gentle<c>men</c>") keeps the word's start.
      const continues = /\S$/.test(current.text) && /^\S/.test(s);
      for (let k = pieceCount(s) - (continues ? 1 : 0); k > 0; k--) current.times.push(time);
    }
    current.text += s;
  };
  while ((m = tag.exec(raw)) !== null) {
    pushText(raw.slice(last, m.index));
    last = tag.lastIndex;
    const body = m[1]!.trim();
    const voice = /^v(?:\.[^\s>]*)?(?:\s+([^>]*))?$/i.exec(body);
    const stamp = startMs !== undefined && /^[\d:.,]+$/.test(body) ? parseTimestamp(body) : null;
    if (stamp !== null) {
      if (!timed) {
        timed = true;
        for (const seg of [...segments, current]) seg.times = new Array<number>(pieceCount(seg.text)).fill(startMs!);
      }
      time = stamp;
    } else if (voice) {
      const name = (voice[1] ?? '').trim();
      if (current.text.trim().length > 0 || current.voice !== undefined) segments.push(current);
      current = fresh(name || undefined);
    } else if (/^\/v$/i.test(body)) {
      segments.push(current);
      current = fresh();
    } else if (/^rt\b/i.test(body)) {
      inRubyText++;
    } else if (/^\/rt$/i.test(body)) {
      inRubyText = Math.max(0, inRubyText - 1);
    }
  }
  pushText(raw.slice(last));
  segments.push(current);
  return segments
    .map(({ times, ...s }) => {
      const text = s.text.replace(/[ \t]+/g, ' ').trim();
      // Word times only where the cue has inline timestamps and every piece got one.
      return times && times.length === pieceCount(text) ? { ...s, text, times } : { ...s, text };
    })
    .filter((s) => s.text.length > 0 || s.voice !== undefined);
}

/**
 * WebVTT text → cues. The header is read leniently (any case, blank lines before it): a file whose
 * signature is broken but whose cues are clear is still captions to the person who uploads it,
 * and its timing lines must never end up as speech.
 */
export function parseVttCues(text: string): Cue[] {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  if (i < lines.length && /^\s*WEBVTT\b/i.test(lines[i]!)) {
    // The header runs to the first blank line; then blocks are separated by blank lines.
    i++;
    while (i < lines.length && lines[i]!.trim() !== '') {
      // Some files omit the blank line after the header; a timing line still starts a cue.
      if (lines[i]!.includes('-->')) break;
      i++;
    }
  }
  // Without a signature, whatever precedes the first cue is skipped like an unknown block.
  return parseBlocks(lines.slice(i), true);
}

/** SRT text → cues. */
export function parseSrtCues(text: string): Cue[] {
  return parseBlocks(text.split('\n'), false);
}

function parseBlocks(lines: string[], vtt: boolean): Cue[] {
  const cues: Cue[] = [];
  let i = 0;
  let atBlockStart = true;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      atBlockStart = true;
      i++;
      continue;
    }
    if (vtt && atBlockStart && /^(?:NOTE|STYLE|REGION)(?:[ \t]|$)/.test(line)) {
      while (i < lines.length && lines[i]!.trim() !== '') i++;
      continue;
    }
    atBlockStart = false;
    const timing = line.includes('-->') ? parseTiming(line) : null;
    i++;
    if (!timing) continue; // a cue identifier, an SRT counter, or a line we cannot use
    const text: string[] = [];
    // Cue text runs to a blank line; a timing line also ends it (files that omit the blank line).
    while (i < lines.length && lines[i]!.trim() !== '' && !lines[i]!.includes('-->')) text.push(lines[i++]!);
    if (i < lines.length && lines[i]!.includes('-->') && text.length > 0 && /^\d+$/.test(text[text.length - 1]!.trim())) {
      text.pop(); // the SRT counter of the next cue
    }
    const raw = text.join('\n');
    cues.push({ ...timing, segments: cueTextSegments(vtt ? raw : stripSrtMarkup(raw), timing.startMs) });
  }
  return cues;
}

/** SRT carries HTML-ish tags (<i>, <b>, <font color=…>) and ASS overrides ({\an8}). */
function stripSrtMarkup(raw: string): string {
  return raw.replace(/\{\\[^}]*\}/g, '').replace(/<\/?(?:i|b|u|s|font)\b[^>]*>/gi, '');
}

/** The lines of a segment, each with the times of its pieces when the segment has them. */
export function segmentLines(seg: Segment): { line: string; times?: number[] }[] {
  if (!seg.times) return seg.text.split('\n').map((line) => ({ line }));
  let used = 0;
  return seg.text.split('\n').map((line) => {
    const n = pieceCount(line);
    const times = seg.times!.slice(used, used + n);
    used += n;
    return { line, times };
  });
}

function normalise(line: string): string {
  return line.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Rolling captions (YouTube auto-captions and live captioning) show each line twice: once as the
 * new bottom line, then again as the top line of the next cue. If at least a quarter of cues
 * start with the previous cue's last line, the file rolls, and every line already shown by the
 * previous cue is dropped.
 */
export function dropRollingRepeats(cues: Cue[]): Cue[] {
  const linesOf = (c: Cue): string[] => c.segments.flatMap((s) => s.text.split('\n')).map(normalise).filter((l) => l.length > 0);
  let rolling = 0;
  for (let k = 1; k < cues.length; k++) {
    const prev = linesOf(cues[k - 1]!);
    const cur = linesOf(cues[k]!);
    if (prev.length > 0 && cur.length > 0 && cur[0] === prev[prev.length - 1]) rolling++;
  }
  if (cues.length < 4 || rolling * 4 < cues.length) return cues;

  const out: Cue[] = [];
  let shown = new Set<string>();
  for (const cue of cues) {
    const segments = cue.segments
      .map((s) => {
        const kept = segmentLines(s).filter(({ line }) => !shown.has(normalise(line)));
        const text = kept.map(({ line }) => line).join('\n');
        return s.times ? { ...s, text, times: kept.flatMap(({ times }) => times!) } : { ...s, text };
      })
      .filter((s) => s.text.trim().length > 0);
    shown = new Set(linesOf(cue));
    if (segments.length > 0) out.push({ ...cue, segments });
    else if (out.length > 0) out[out.length - 1]!.endMs = Math.max(out[out.length - 1]!.endMs, cue.endMs);
  }
  return out;
}
