/**
 * Turns of a length a person can quote and a search can rank. Consecutive text of one speaker is
 * merged into a turn, but not without bound:
 *
 * - **Unlabelled speech** (captions or documents with no speaker labels: one voice, "Speaker",
 *   for the whole file) has no turns of its own. It is cut into turns of about 120 words at
 *   sentence ends (real ones, or pseudo-sentences for unpunctuated auto-captions), and a pause of
 *   ≥ 2 s before a sentence starts a new turn once the current one has 20 words. Never more than
 *   200 words, unless one sentence is longer.
 * - **Labelled turns** keep one speaker's answer together; only a turn over 400 words is cut, into
 *   the fewest parts of at most ~400 words, of near-equal length, at sentence ends (so a 600-word
 *   answer becomes two of ~300, not 400 + 200).
 *
 * Why these numbers (from `../shared/data/transcripts`):
 * - Pause: in the six auto-caption debates (word onsets from YouTube's inline timestamps, aligned to
 *   the punctuated transcripts), where the next word starts ≥ 2 s after the previous one, the
 *   speaker changes 11–35 % of the time (by file) and a sentence ends 22–52 %, against 1 % and 7 %
 *   at an average word boundary; at ≥ 1.5 s, 6–21 % and 14–41 %. The gap between cues says
 *   nothing in these files: YouTube's cues tile the timeline (every gap is 0). Without word times,
 *   the silence between cues is the pause.
 * - 120–200 words: about 45–75 s of speech, a debate's answer segment or one subject of an
 *   interview answer; the real debates' speaker turns have a median of 10–19 words but a 75th
 *   percentile of 90–175 and answers of 300–600.
 * - 400 words: the labelled transcripts' turns have a 90th percentile of 83–383 words; above 400
 *   are 1–5 % of turns (long podcast answers up to 1,420 words, debate answers up to 660).
 */
import type { TranscriptTurn } from './types.ts';
import { isUnpunctuated, LONG_PAUSE_MS, pseudoSentenceSpans, punctuationCounts, type TextSpan } from './pseudo-sentences.ts';
import { countWords } from './words.ts';

/** A pause at least this long before a sentence of unlabelled speech starts a new turn. */
export const TURN_PAUSE_MS = LONG_PAUSE_MS;
/** An unlabelled turn closes at the first sentence end once it has this many words… */
export const UNLABELLED_TURN_WORDS = 120;
/** …and never grows past this many (unless a single sentence does). */
export const UNLABELLED_MAX_TURN_WORDS = 200;
/** A pause cuts an unlabelled turn only once it has this many words (no two-word turns). */
export const MIN_WORDS_BEFORE_PAUSE_CUT = 20;
/** A labelled turn longer than this is cut into near-equal parts at sentence ends. */
export const LABELLED_MAX_TURN_WORDS = 400;

/** A sentence (or pseudo-sentence) of a run: a span of the run's text, with its times when known. */
export interface Unit extends TextSpan {
  words: number;
  startMs?: number;
  endMs?: number;
  /** Silence (or onset-to-onset gap) before the unit, when the captions time it. */
  pauseBeforeMs?: number;
}

/** Consecutive text of one speaker, already cut into sentences. */
export interface Run {
  speaker: string;
  text: string;
  units: Unit[];
  startMs?: number;
  endMs?: number;
}

/** A time known at a word of a document turn (a stamped paragraph), by the number of words before it. */
export interface Anchor {
  word: number;
  ms: number;
}

/** Abbreviations and initials whose period does not end a sentence ("Mr. Smith", "George W. Bush"). */
const ABBREVIATION = /(?:^|\s)(?:mr|mrs|ms|dr|st|jr|sr|vs|etc|gov|sen|rep|prof|gen|no|e\.g|i\.e|\p{Lu}|(?:\p{L}\.)+\p{L})$/iu;
const SENTENCE_END = /[.!?\u2026]+["'\u201D\u2019)\]]*(?=\s|$)|\n/g;

/** Sentences of punctuated text as spans covering every word: a terminator or a line break ends one. */
export function punctuatedSpans(text: string): TextSpan[] {
  const spans: TextSpan[] = [];
  let start = 0;
  const push = (end: number): void => {
    let s = start;
    let e = end;
    while (s < e && /\s/.test(text[s]!)) s++;
    while (e > s && /\s/.test(text[e - 1]!)) e--;
    if (e > s) spans.push({ start: s, end: e });
    start = end;
  };
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(text); m; m = SENTENCE_END.exec(text)) {
    if (m[0] === '.' && ABBREVIATION.test(text.slice(Math.max(start, m.index - 12), m.index))) continue;
    push(m.index + m[0].length);
  }
  push(text.length);
  return spans;
}

/**
 * The sentences of a document turn, with the time of the stamped paragraph each starts in when
 * `anchors` are known. Unpunctuated text is cut into pseudo-sentences.
 */
export function sentenceUnits(text: string, anchors: readonly Anchor[] = []): Unit[] {
  const spans = isUnpunctuated(punctuationCounts(text)) ? pseudoSentenceSpans(text) : punctuatedSpans(text);
  let before = 0;
  let a = -1;
  return spans.map((s) => {
    const words = countWords(text.slice(s.start, s.end));
    while (a + 1 < anchors.length && anchors[a + 1]!.word <= before) a++;
    const unit: Unit = { ...s, words };
    if (a >= 0) unit.startMs = anchors[a]!.ms;
    before += words;
    return unit;
  });
}

/** Unlabelled speech: turns of ~UNLABELLED_TURN_WORDS, cut early at a long pause. */
function greedyGroups(units: readonly Unit[]): Unit[][] {
  const groups: Unit[][] = [];
  let current: Unit[] = [];
  let words = 0;
  for (const u of units) {
    const pause = (u.pauseBeforeMs ?? 0) >= TURN_PAUSE_MS && words >= MIN_WORDS_BEFORE_PAUSE_CUT;
    if (current.length > 0 && (pause || words >= UNLABELLED_TURN_WORDS || words + u.words > UNLABELLED_MAX_TURN_WORDS)) {
      groups.push(current);
      current = [];
      words = 0;
    }
    current.push(u);
    words += u.words;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** A labelled turn over the limit: the fewest near-equal parts, cut at the sentence ends nearest the targets. */
function balancedGroups(units: readonly Unit[], max: number): Unit[][] {
  const total = units.reduce((n, u) => n + u.words, 0);
  const parts = Math.ceil(total / max);
  if (parts <= 1) return [units.slice()];
  const groups: Unit[][] = [];
  let from = 0;
  let cumulative = 0;
  for (let k = 1; k < parts && from < units.length; k++) {
    const target = (k * total) / parts;
    // Take units while that brings the running total no further from the target.
    let to = from;
    let sum = cumulative;
    do {
      sum += units[to++]!.words;
    } while (to < units.length - 1 && Math.abs(sum + units[to]!.words - target) <= Math.abs(sum - target));
    groups.push(units.slice(from, to));
    from = to;
    cumulative = sum;
  }
  if (from < units.length) groups.push(units.slice(from));
  return groups;
}

/** A run → turns: labelled runs only when over LABELLED_MAX_TURN_WORDS, unlabelled speech always. */
export function splitRun(run: Run, labelled: boolean): TranscriptTurn[] {
  if (run.units.length === 0) return [];
  const groups = labelled ? balancedGroups(run.units, LABELLED_MAX_TURN_WORDS) : greedyGroups(run.units);
  return groups.map((g, k) => {
    const first = g[0]!;
    const last = g[g.length - 1]!;
    const turn: TranscriptTurn = { speaker: run.speaker, text: run.text.slice(first.start, last.end) };
    const startMs = k === 0 ? (run.startMs ?? first.startMs) : first.startMs;
    const endMs = k === groups.length - 1 ? (run.endMs ?? last.endMs) : last.endMs;
    if (startMs !== undefined) turn.startMs = startMs;
    if (endMs !== undefined) turn.endMs = endMs;
    if (k > 0 && labelled) turn.continues = true;
    return turn;
  });
}
