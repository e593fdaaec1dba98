/**
 * Timed captions (WebVTT, SRT) → speaker turns.
 *
 * A tolerant parser of our own rather than webvtt-parser: caption files in the wild break the
 * spec (missing blank lines, comma decimals, NULs), and we need only times, voices and plain
 * text. Speakers come from `<v Name>` voice spans or `Name:` prefixes in the cue text; a cue
 * without either continues the previous speaker. Consecutive cues of one speaker become one
 * turn. Rolling auto-captions, where each cue repeats the previous cue's last line, are detected
 * per file and the repeated lines dropped.
 */
import type { Transcript, TranscriptTurn } from './types.ts';
import { UnreadableTranscriptError } from './errors.ts';
import { decodeEntities } from './text.ts';
import { cleanLabel, looksLikeLabel } from './labels.ts';
import { acceptLabels, finish, SINGLE_SPEAKER_LABEL } from './layout.ts';
import { parseTiming } from './timing.ts';

interface Segment {
  voice?: string;
  text: string;
}

interface Cue {
  startMs: number;
  endMs: number;
  segments: Segment[];
}

/**
 * Cue text markup → segments by voice. Voice spans set the speaker; class, italic, bold,
 * underline, language and ruby tags are dropped with their text kept, ruby annotations (`<rt>`)
 * and inline timestamps (`<00:01:02.000>`) are dropped entirely.
 */
export function cueTextSegments(raw: string): Segment[] {
  const segments: Segment[] = [];
  let current: Segment = { text: '' };
  let inRubyText = 0;
  const tag = /<([^>]*)>?/g;
  let last = 0;
  let m: RegExpExecArray | null;
  const pushText = (s: string) => {
    if (inRubyText === 0) current.text += s;
  };
  while ((m = tag.exec(raw)) !== null) {
    pushText(raw.slice(last, m.index));
    last = tag.lastIndex;
    const body = m[1]!.trim();
    const voice = /^v(?:\.[^\s>]*)?(?:\s+([^>]*))?$/i.exec(body);
    if (voice) {
      const name = (voice[1] ?? '').trim();
      if (current.text.trim().length > 0 || current.voice !== undefined) segments.push(current);
      current = name ? { voice: name, text: '' } : { text: '' };
    } else if (/^\/v$/i.test(body)) {
      segments.push(current);
      current = { text: '' };
    } else if (/^rt\b/i.test(body)) {
      inRubyText++;
    } else if (/^\/rt$/i.test(body)) {
      inRubyText = Math.max(0, inRubyText - 1);
    }
  }
  pushText(raw.slice(last));
  segments.push(current);
  return segments
    .map((s) => ({ ...s, text: decodeEntities(s.text).replace(/[ \t]+/g, ' ').trim() }))
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
    cues.push({ ...timing, segments: cueTextSegments(vtt ? raw : stripSrtMarkup(raw)) });
  }
  return cues;
}

/** SRT carries HTML-ish tags (<i>, <b>, <font color=…>) and ASS overrides ({\an8}). */
function stripSrtMarkup(raw: string): string {
  return raw.replace(/\{\\[^}]*\}/g, '').replace(/<\/?(?:i|b|u|s|font)\b[^>]*>/gi, '');
}

const PREFIX = /^\s*(?:>>\s*)?-?\s*([^:]{1,60}?)\s*:\s+(.*)$/;

/** Cues → turns, attributing speakers from voices or validated `Name:` prefixes. */
export function cuesToTranscript(cues: Cue[], kindName: string): Transcript {
  if (cues.length === 0) throw new UnreadableTranscriptError(`The ${kindName} file has no cues`);
  const deduped = dropRollingRepeats(cues);

  // Which `Name:` prefixes are speakers: same test as for documents. A prefix counts only where a
  // speaker can start: the first line of a cue, or a line opened by a dialogue dash or ">>".
  const counts = new Map<string, { label: string; n: number }>();
  for (const cue of deduped) {
    cueLines(cue).forEach(({ line, canStartSpeaker }) => {
      const m = canStartSpeaker ? PREFIX.exec(line) : null;
      if (!m) return;
      const label = cleanLabel(m[1]!);
      if (!looksLikeLabel(label)) return;
      const key = label.toLowerCase();
      const e = counts.get(key) ?? { label, n: 0 };
      e.n++;
      counts.set(key, e);
    });
  }
  const accepted = acceptCueLabels(counts);

  const turns: TranscriptTurn[] = [];
  let speaker: string | undefined;
  const spelling = new Map<string, string>();
  const canonical = (label: string): string => {
    const key = label.toLowerCase().replace(/\s+/g, ' ');
    if (!spelling.has(key)) spelling.set(key, label);
    return spelling.get(key)!;
  };
  for (const cue of deduped) {
    for (const { line, voice, canStartSpeaker } of cueLines(cue)) {
      if (voice) speaker = canonical(cleanLabel(voice));
      let text = line;
      const m = canStartSpeaker ? PREFIX.exec(line) : null;
      if (m && accepted.has(cleanLabel(m[1]!).toLowerCase())) {
        speaker = canonical(cleanLabel(m[1]!));
        text = m[2]!;
      } else {
        // ">>" (speaker change in broadcast captions) and "- " (dialogue dash) are markers, not speech.
        text = line.replace(/^\s*>>\s*/, '').replace(/^\s*-\s+/, '');
      }
      if (text.trim().length === 0) continue;
      turns.push({ speaker: speaker ?? SINGLE_SPEAKER_LABEL, text, startMs: cue.startMs, endMs: cue.endMs });
    }
  }
  return finish(turns, { wrapped: true }, `The ${kindName} file has no text in its cues`);
}

/**
 * Which counted prefixes are speakers. In a caption file a cue (or a dialogue dash) is where a
 * speaker starts, so a prefix there is strong evidence: a name of one to three capitalised words
 * ("ALICE:", "Dr. Smith:") counts even if it occurs once; longer ones follow the document rules.
 * Prose-like prefixes ("Note:", "So the answer is:") never got counted (looksLikeLabel).
 */
function acceptCueLabels(counts: Map<string, { label: string; n: number }>): Set<string> {
  const accepted = acceptLabels(counts, true);
  for (const [key, { label }] of counts) if (label.split(' ').length <= 3) accepted.add(key);
  return accepted;
}

/** The text lines of a cue, with the voice of their segment and whether a speaker may start there. */
function cueLines(cue: Cue): { line: string; voice?: string; canStartSpeaker: boolean }[] {
  const out: { line: string; voice?: string; canStartSpeaker: boolean }[] = [];
  for (const seg of cue.segments) {
    seg.text.split('\n').forEach((line, i) => {
      const first = out.length === 0 || (i === 0 && seg.voice !== undefined);
      out.push({ line, voice: i === 0 ? seg.voice : undefined, canStartSpeaker: first || /^\s*(?:-|>>)/.test(line) });
    });
  }
  return out;
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
      .map((s) => ({ ...s, text: s.text.split('\n').filter((l) => !shown.has(normalise(l))).join('\n') }))
      .filter((s) => s.text.trim().length > 0);
    shown = new Set(linesOf(cue));
    if (segments.length > 0) out.push({ ...cue, segments });
    else if (out.length > 0) out[out.length - 1]!.endMs = Math.max(out[out.length - 1]!.endMs, cue.endMs);
  }
  return out;
}
