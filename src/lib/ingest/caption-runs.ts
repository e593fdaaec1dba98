/**
 * A caption speaker's run of lines → the sentences splitRun (split.ts) cuts into turns: bounded
 * pieces of a very long run (over-long lines cut at sentence ends), then sentences, or
 * pseudo-sentences for unpunctuated captions, with the times of their words.
 */
import { pseudoSentenceStarts, type SegmentWord } from './pseudo-sentences.ts';
import { punctuatedSpans, type splitRun, type Unit } from './split.ts';
import { countWords } from './words.ts';
import { pieceCount } from './caption-cues.ts';

/** A line of caption text with its speaker and times (`times`: the start of each piece, when known). */
export interface TimedLine {
  speaker: string;
  text: string;
  words: number;
  startMs: number;
  endMs: number;
  times?: number[];
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
export function captionRun(lines: TimedLine[], unpunctuated: boolean): Parameters<typeof splitRun>[0] {
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
