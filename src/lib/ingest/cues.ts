/**
 * Timed captions (WebVTT, SRT) → speaker turns.
 *
 * A tolerant parser of our own rather than webvtt-parser: caption files in the wild break the
 * spec (missing blank lines, comma decimals, NULs), and we need only times, voices and plain
 * text. Speakers come from `<v Name>` voice spans or `Name:` prefixes in the cue text; a cue
 * without either continues the previous speaker. Consecutive cues of one speaker become one
 * turn, bounded in length (split.ts): a labelled turn over 400 words is cut into near-equal parts
 * at sentence ends; captions that name no speaker at all (auto-captions) are cut into turns of
 * ~120 words at sentence ends, and at pauses of ≥ 2 s. Rolling auto-captions, where each cue
 * repeats the previous cue's last line, are detected per file and the repeated lines dropped.
 *
 * Captions without sentence punctuation (YouTube auto-captions are lower-case word streams) are
 * cut into pseudo-sentences (pseudo-sentences.ts), written one per line in the turn text, so
 * everything downstream can quote and measure them as sentences. Inline word timestamps
 * (`<00:01:02.500>`) give each word its start, hence the pauses; without them, the silence
 * between cues is the pause.
 */
import type { Transcript, TranscriptTurn } from './types.ts';
import { UnreadableTranscriptError } from './errors.ts';
import { decodeEntities } from './text.ts';
import { cleanLabel, looksLikeLabel } from './labels.ts';
import { acceptLabels, SINGLE_SPEAKER_LABEL, transcriptOf } from './layout.ts';
import { parseTimestamp, parseTiming } from './timing.ts';
import { countTerminators, isUnpunctuated, pseudoSentenceStarts, type SegmentWord } from './pseudo-sentences.ts';
import { LABELLED_MAX_TURN_WORDS, punctuatedSpans, splitRun, type Unit } from './split.ts';
import { countWords } from './words.ts';

interface Segment {
  voice?: string;
  text: string;
  /** Start of each whitespace-separated piece of `text`, when the cue times its words inline. */
  times?: number[];
}

interface Cue {
  startMs: number;
  endMs: number;
  segments: Segment[];
}

const pieceCount = (text: string): number => text.split(/\s+/).filter((p) => p.length > 0).length;

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

const PREFIX = /^\s*(?:>>\s*)?-?\s*([^:]{1,60}?)\s*:\s+(.*)$/;

/** A line of caption text with its speaker and times (`times`: the start of each piece, when known). */
interface TimedLine {
  speaker: string;
  text: string;
  words: number;
  startMs: number;
  endMs: number;
  times?: number[];
}

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

  const lines: TimedLine[] = [];
  let terminators = 0;
  let totalWords = 0;
  let speaker: string | undefined;
  const spelling = new Map<string, string>();
  const canonical = (label: string): string => {
    const key = label.toLowerCase().replace(/\s+/g, ' ');
    if (!spelling.has(key)) spelling.set(key, label);
    return spelling.get(key)!;
  };
  for (const cue of deduped) {
    for (const { line, voice, canStartSpeaker, times } of cueLines(cue)) {
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
      text = text.replace(/\s+/g, ' ').trim();
      const words = countWords(text);
      if (words === 0) continue;
      const timedLine: TimedLine = { speaker: speaker ?? SINGLE_SPEAKER_LABEL, text, words, startMs: cue.startMs, endMs: cue.endMs };
      if (times) {
        // Markers and labels are cut from the front of the line, so its last pieces keep their times.
        const pieces = pieceCount(text);
        if (times.length >= pieces) timedLine.times = times.slice(times.length - pieces);
      }
      lines.push(timedLine);
      terminators += countTerminators(text);
      totalWords += words;
    }
  }
  if (lines.length === 0) throw new UnreadableTranscriptError(`The ${kindName} file has no text in its cues`);

  const labelled = speaker !== undefined;
  const unpunctuated = isUnpunctuated({ words: totalWords, terminators });
  const turns: TranscriptTurn[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && lines[j]!.speaker === lines[i]!.speaker) j++;
    const run = lines.slice(i, j);
    i = j;
    // A labelled punctuated turn within the limit is its cues' text: no sentences to find.
    if (labelled && !unpunctuated && run.reduce((n, l) => n + l.words, 0) <= LABELLED_MAX_TURN_WORDS) {
      turns.push({ speaker: run[0]!.speaker, text: run.map((l) => l.text).join(' '), startMs: run[0]!.startMs, endMs: run[run.length - 1]!.endMs });
    } else {
      boundedRuns(run).forEach((part, k) => {
        const parts = splitRun(captionRun(part, unpunctuated), labelled);
        // A later piece of a very long run continues the same speaker's turn.
        if (k > 0 && labelled && parts[0]) parts[0].continues = true;
        for (const t of parts) turns.push(t);
      });
    }
  }
  return transcriptOf(turns, `The ${kindName} file has no text in its cues`, !labelled);
}

/**
 * A run of one speaker is read (captionRun, splitRun) in pieces of at most this many words. Its
 * turns are cut at ≤ 400 words anyway; reading a whole talk in one piece would build a record per
 * word of it (a 4-million-word cue: gigabytes and minutes) for the same turns.
 */
export const MAX_RUN_WORDS = 20_000;
/** A caption line longer than this (a whole talk in one cue) is cut into lines of about this many words. */
export const MAX_LINE_WORDS = 2_000;

/** A run → pieces of at most MAX_RUN_WORDS words (whole lines; over-long lines cut first). */
export function boundedRuns(run: TimedLine[]): TimedLine[][] {
  if (run.reduce((n, l) => n + l.words, 0) <= MAX_RUN_WORDS) return [run];
  const pieces: TimedLine[][] = [];
  let current: TimedLine[] = [];
  let words = 0;
  for (const long of run) {
    for (const line of long.words > MAX_LINE_WORDS ? cutLine(long) : [long]) {
      if (current.length > 0 && words + line.words > MAX_RUN_WORDS) {
        pieces.push(current);
        current = [];
        words = 0;
      }
      current.push(line);
      words += line.words;
    }
  }
  if (current.length > 0) pieces.push(current);
  return pieces;
}

/** Where a sentence ends within a line: a terminator (and closing quotes) before a space. */
const LINE_SENTENCE_END = /[.!?\u2026]["'\u201D\u2019)\]]* /g;

/**
 * An over-long caption line → lines of about MAX_LINE_WORDS words, each ended at the first
 * sentence end after that many words when one comes within another MAX_LINE_WORDS words. Times
 * are shared out in proportion to the words before each piece (the cue times only its ends);
 * word times, when the cue has them, go with their words.
 */
function cutLine(line: TimedLine): TimedLine[] {
  const out: TimedLine[] = [];
  const { text } = line;
  const span = line.endMs - line.startMs;
  let from = 0;
  let piecesBefore = 0;
  let wordsBefore = 0;
  while (from < text.length) {
    // Skip MAX_LINE_WORDS spaces (the text is normalised: single spaces between pieces).
    let at = from;
    for (let n = 0; n < MAX_LINE_WORDS && at >= 0; n++) at = text.indexOf(' ', at + 1);
    let to = at < 0 ? text.length : at;
    if (at >= 0) {
      LINE_SENTENCE_END.lastIndex = at;
      const end = LINE_SENTENCE_END.exec(text);
      if (end && countSpaces(text, at, end.index) < MAX_LINE_WORDS) to = end.index + end[0].length - 1;
    }
    const piece = text.slice(from, to).trim();
    const pieceCountHere = pieceCount(piece);
    const words = countWords(piece);
    if (pieceCountHere > 0) {
      const startMs = line.startMs + Math.round((span * wordsBefore) / Math.max(1, line.words));
      const endMs = line.startMs + Math.round((span * Math.min(line.words, wordsBefore + words)) / Math.max(1, line.words));
      const cut: TimedLine = { speaker: line.speaker, text: piece, words, startMs, endMs };
      if (line.times) cut.times = line.times.slice(piecesBefore, piecesBefore + pieceCountHere);
      out.push(cut);
    }
    piecesBefore += pieceCountHere;
    wordsBefore += words;
    from = to + 1;
  }
  return out;
}

function countSpaces(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf(' ', from); i >= 0 && i < to; i = text.indexOf(' ', i + 1)) n++;
  return n;
}

/**
 * Consecutive caption lines of one speaker → a run of sentences with their times. Unpunctuated
 * captions are cut into pseudo-sentences, written one per line; punctuated ones into sentences.
 */
function captionRun(lines: TimedLine[], unpunctuated: boolean): Parameters<typeof splitRun>[0] {
  interface Piece extends SegmentWord {
    onsetMs?: number;
    line: TimedLine;
    lastOfLine: boolean;
  }
  const pieces: Piece[] = [];
  lines.forEach((line, l) => {
    const words = line.text.split(' ');
    words.forEach((text, k) => {
      let pauseBeforeMs: number | undefined;
      if (k > 0) {
        if (line.times) pauseBeforeMs = line.times[k]! - line.times[k - 1]!;
      } else if (l > 0) {
        const prev = lines[l - 1]!;
        // Onset to onset where both lines time their words, else the silence between the cues.
        pauseBeforeMs = prev.times && line.times ? line.times[0]! - prev.times[prev.times.length - 1]! : line.startMs - prev.endMs;
      }
      pieces.push({ text, pauseBeforeMs, onsetMs: line.times?.[k] ?? (k === 0 ? line.startMs : undefined), line, lastOfLine: k === words.length - 1 });
    });
  });

  let starts: number[];
  if (unpunctuated) {
    starts = pseudoSentenceStarts(pieces);
  } else {
    // Sentences end inside lines too; each starts at a piece (a terminator is followed by a space).
    const pieceAt = new Map<number, number>();
    let at = 0;
    pieces.forEach((p, i) => {
      pieceAt.set(at, i);
      at += p.text.length + 1;
    });
    starts = punctuatedSpans(pieces.map((p) => p.text).join(' '))
      .map((span) => pieceAt.get(span.start) ?? 0)
      .filter((i) => i > 0);
  }

  const bounds = [0, ...starts, pieces.length];
  const units: Unit[] = [];
  const texts: string[] = [];
  let length = 0;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const from = bounds[k]!;
    const to = bounds[k + 1]!;
    const slice = pieces.slice(from, to);
    const sentence = slice.map((p) => p.text).join(' ');
    const start = k > 0 ? length + 1 : 0;
    texts.push(sentence);
    length = start + sentence.length;
    const first = slice[0]!;
    const last = slice[slice.length - 1]!;
    const next = pieces[to];
    const unit: Unit = {
      start,
      end: length,
      words: countWords(sentence),
      startMs: first.onsetMs ?? first.line.startMs,
      endMs: last.lastOfLine || next?.onsetMs === undefined ? last.line.endMs : next.onsetMs,
    };
    if (first.pauseBeforeMs !== undefined) unit.pauseBeforeMs = first.pauseBeforeMs;
    units.push(unit);
  }
  const text = texts.join(unpunctuated ? '\n' : ' ');
  return { speaker: lines[0]!.speaker, text, units, startMs: lines[0]!.startMs, endMs: lines[lines.length - 1]!.endMs };
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

/** The lines of a segment, each with the times of its pieces when the segment has them. */
function segmentLines(seg: Segment): { line: string; times?: number[] }[] {
  if (!seg.times) return seg.text.split('\n').map((line) => ({ line }));
  let used = 0;
  return seg.text.split('\n').map((line) => {
    const n = pieceCount(line);
    const times = seg.times!.slice(used, used + n);
    used += n;
    return { line, times };
  });
}

/** The text lines of a cue, with the voice of their segment and whether a speaker may start there. */
function cueLines(cue: Cue): { line: string; voice?: string; canStartSpeaker: boolean; times?: number[] }[] {
  const out: { line: string; voice?: string; canStartSpeaker: boolean; times?: number[] }[] = [];
  for (const seg of cue.segments) {
    segmentLines(seg).forEach(({ line, times }, i) => {
      const first = out.length === 0 || (i === 0 && seg.voice !== undefined);
      out.push({ line, voice: i === 0 ? seg.voice : undefined, canStartSpeaker: first || /^\s*(?:-|>>)/.test(line), ...(times ? { times } : {}) });
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
