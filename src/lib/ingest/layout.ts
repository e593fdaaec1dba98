/**
 * Lines of text (from a .txt, a DOCX or a PDF) → speaker turns.
 *
 * Recognised layouts, in order of how much they can be trusted:
 * - stamped: `Name [(hh:mm:ss)](link) text` (Lex Fridman; a bare `[(hh:mm:ss)](link) text`
 *   continues the speaker), `Name (hh:mm:ss):` alone on a line
 *   followed by text (Lenny's Podcast; a bare `(hh:mm:ss):` continues the speaker),
 *   `[hh:mm:ss] Name: text`, `Name  hh:mm:ss` alone on a line. A timestamp next to a name is a
 *   strong signal, so when two or more such lines exist only they start turns.
 * - labelled: `Name: text` / `NAME:` alone on a line. Colon prefixes are weak evidence (prose has
 *   them too), so a label must look like one and either recur or look like a person or a role.
 * - none: the whole document is one speaker, "Speaker".
 * Lines without a label continue the current turn; text before the first label is a preamble
 * (titles, tables of contents, cover pages) and is dropped. Turns are then bounded (split.ts): a
 * labelled turn over 400 words is cut into near-equal parts at sentence ends, and a document
 * without labels into turns of ~120 words.
 */
import type { Transcript, TranscriptTurn } from './types.ts';
import { UnreadableTranscriptError } from './errors.ts';
import { countWords } from './words.ts';
import { LABELLED_MAX_TURN_WORDS, sentenceUnits, splitRun, type Anchor } from './split.ts';
import { cleanLabel, looksLikeLabel, looksLikePersonOrRole } from './labels.ts';
import { isTimingLine } from './timing.ts';

export interface LayoutOptions {
  /** Lines are wrapped print lines (PDF): join them with spaces and mend hyphenation. */
  wrapped?: boolean;
  /** Drop lines with no lower-case letters (headings of printed transcripts). */
  dropCapsHeadings?: boolean;
  /** Text may be Markdown: skip YAML front matter, headings, rules and bare link lines. */
  markdown?: boolean;
}

/** Label used when a document has no speaker structure at all. */
export const SINGLE_SPEAKER_LABEL = 'Speaker';

const TS = String.raw`(\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?)`;
const LEX_LINE = new RegExp(String.raw`^(.+?)\s+\[\(${TS}\)\]\([^)\s]*\)\s*(.*)$`);
const BARE_LEX_STAMP = new RegExp(String.raw`^\[\(${TS}\)\]\([^)\s]*\)\s*(.*)$`);
const NAME_PAREN_TIME = new RegExp(String.raw`^(.+?)\s+\(${TS}\)\s*:?\s*(.*)$`);
const BARE_PAREN_TIME = new RegExp(String.raw`^\(${TS}\)\s*:?\s*(.*)$`);
const BRACKET_TIME_NAME = new RegExp(String.raw`^\[${TS}\]\s*([^:]{1,80}?):\s*(.*)$`);
const BRACKET_TIME_ONLY = new RegExp(String.raw`^\[${TS}\]\s*(.*)$`);
const NAME_TIME_ALONE = new RegExp(String.raw`^(.+?)\s+${TS}\s*$`);
const COLON_LABEL = /^([^:]{1,80}?)\s*:(?:\s+|$)(.*)$/;

type Style = 'lex' | 'stamped' | 'colon';

type Classified =
  | { kind: 'label'; label: string; style: Style; text: string; startMs?: number }
  | { kind: 'continue'; text: string; startMs?: number }
  | { kind: 'text'; text: string }
  | { kind: 'skip' };

export function timestampToMs(ts: string): number {
  const [clock, fraction = '0'] = ts.split(/[.,]/);
  const parts = clock!.split(':').map(Number);
  const seconds = parts.reduce((acc, n) => acc * 60 + n, 0);
  return seconds * 1000 + Math.round(Number(`0.${fraction}`) * 1000);
}

function labelKey(label: string): string {
  return label.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Classifies a line by its stamped (strong) layouts only. */
function classifyStamped(line: string): Classified | null {
  let m = LEX_LINE.exec(line);
  if (m && looksLikeLabel(cleanLabel(m[1]!))) return { kind: 'label', label: cleanLabel(m[1]!), style: 'lex', text: m[3]!, startMs: timestampToMs(m[2]!) };
  m = BARE_LEX_STAMP.exec(line) ?? BARE_PAREN_TIME.exec(line);
  if (m) return { kind: 'continue', text: m[2]!, startMs: timestampToMs(m[1]!) };
  m = NAME_PAREN_TIME.exec(line);
  if (m && looksLikeLabel(cleanLabel(m[1]!))) return { kind: 'label', label: cleanLabel(m[1]!), style: 'stamped', text: m[3]!, startMs: timestampToMs(m[2]!) };
  m = BRACKET_TIME_NAME.exec(line);
  if (m && looksLikeLabel(cleanLabel(m[2]!))) return { kind: 'label', label: cleanLabel(m[2]!), style: 'stamped', text: m[3]!, startMs: timestampToMs(m[1]!) };
  m = BRACKET_TIME_ONLY.exec(line);
  if (m) return { kind: 'continue', text: m[2]!, startMs: timestampToMs(m[1]!) };
  m = NAME_TIME_ALONE.exec(line);
  if (m && looksLikeLabel(cleanLabel(m[1]!))) return { kind: 'label', label: cleanLabel(m[1]!), style: 'stamped', text: '', startMs: timestampToMs(m[2]!) };
  return null;
}

function colonCandidate(line: string): { label: string; text: string } | null {
  const m = COLON_LABEL.exec(line);
  if (!m) return null;
  const label = cleanLabel(m[1]!);
  return looksLikeLabel(label) ? { label, text: m[2]! } : null;
}

const MARKDOWN_SKIP = /^(?:#{1,6}\s|#{1,6}$|(?:-{3,}|\*{3,}|_{3,})$|!?\[[^\]]*\]\([^)]*\)$|\[\s*[^\]]*\]\([^)]*\)\s*$)/;
const FULL_PARENTHETICAL = /^\([^()]*(?:\([^()]*\)[^()]*)*\)[.]?$/;

function isCapsHeading(line: string): boolean {
  return !/\p{Ll}/u.test(line) && /\p{Lu}.*\p{Lu}/u.test(line);
}

/** Removes YAML front matter (`---` … `---` at the very top). */
function stripFrontMatter(lines: string[]): string[] {
  const first = lines.findIndex((l) => l.trim().length > 0);
  if (first < 0 || lines[first]!.trim() !== '---') return lines;
  for (let i = first + 1; i < Math.min(lines.length, first + 500); i++) {
    if (lines[i]!.trim() === '---' || lines[i]!.trim() === '...') return lines.slice(i + 1);
  }
  return lines;
}

export function linesToTranscript(rawLines: string[], options: LayoutOptions = {}): Transcript {
  let lines = rawLines.map((l) => l.replace(/[\u00a0\t]+/g, ' ').replace(/\s+$/, '').replace(/^\s+/, ''));
  if (options.markdown) lines = stripFrontMatter(lines);

  // Pass 1: which layout is this?
  const stamped = lines.map(classifyStamped);
  const stampedLabels = stamped.filter((c) => c?.kind === 'label');
  const strongMode = stampedLabels.length >= 2;
  const lexMode = strongMode && stampedLabels.filter((c) => c!.kind === 'label' && c!.style === 'lex').length * 2 > stampedLabels.length;

  let accepted = new Set<string>();
  if (!strongMode) {
    const counts = new Map<string, { label: string; n: number }>();
    for (const line of lines) {
      const c = colonCandidate(line);
      if (!c) continue;
      const key = labelKey(c.label);
      const entry = counts.get(key) ?? { label: c.label, n: 0 };
      entry.n++;
      counts.set(key, entry);
    }
    accepted = acceptLabels(counts, !options.wrapped);
  }

  // Pass 2: classify every line.
  const classified: Classified[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length === 0) {
      classified.push({ kind: 'skip' });
      continue;
    }
    if (options.markdown && MARKDOWN_SKIP.test(line)) {
      classified.push({ kind: 'skip' });
      continue;
    }
    if (isTimingLine(line)) {
      // A caption timing line in a text (captions pasted into a document) is never speech.
      classified.push({ kind: 'skip' });
      continue;
    }
    if (strongMode) {
      const s = stamped[i];
      if (s) {
        classified.push(s);
        continue;
      }
    } else {
      const c = colonCandidate(line);
      if (c && accepted.has(labelKey(c.label))) {
        classified.push({ kind: 'label', label: c.label, style: 'colon', text: c.text });
        continue;
      }
    }
    if (FULL_PARENTHETICAL.test(line)) {
      classified.push({ kind: 'skip' });
      continue;
    }
    if (options.wrapped && line.startsWith('(') && !line.includes(')')) {
      // A stage direction wrapped over a few print lines: "(Whereupon, at 11:07 a.m., the case / was submitted.)"
      const close = lines.slice(i + 1, i + 4).findIndex((l) => /\)[.]?$/.test(l) && !l.includes('('));
      if (close >= 0) {
        for (let k = 0; k <= close + 1; k++) classified.push({ kind: 'skip' });
        i += close + 1;
        continue;
      }
    }
    if (options.dropCapsHeadings && isCapsHeading(line)) {
      classified.push({ kind: 'skip' });
      continue;
    }
    classified.push({ kind: 'text', text: line });
  }

  const labelled = classified.filter((c) => c.kind === 'label').length;
  if (labelled === 0) return singleSpeaker(classified, options);
  if (!strongMode) {
    // A colon label deep inside prose ("… as John Smith: put it") is not a transcript structure:
    // if most words come before the first label, read the document as one speaker.
    const firstLabel = classified.findIndex((c) => c.kind === 'label');
    const before = sumWords(classified.slice(0, firstLabel));
    if (before * 3 > sumWords(classified)) return singleSpeaker(classified, options);
  }

  const turns: TranscriptTurn[] = [];
  const anchors: Anchors = new Map();
  const spelling = new Map<string, string>();
  let current: TranscriptTurn | null = null;
  for (const c of classified) {
    if (c.kind === 'label') {
      const key = labelKey(c.label);
      if (!spelling.has(key)) spelling.set(key, c.label);
      current = { speaker: spelling.get(key)!, text: c.text };
      if (c.startMs !== undefined) current.startMs = c.startMs;
      turns.push(current);
    } else if (c.kind === 'continue') {
      if (current) {
        current.text = join(current.text, c.text, options);
        if (c.startMs !== undefined) addAnchor(anchors, current, c.text, c.startMs);
      }
    } else if (c.kind === 'text') {
      // In the Lex layout every paragraph of speech carries its own stamp: an unstamped line is a
      // heading or page furniture (e.g. the blog footer), not speech.
      if (current && !lexMode) current.text = join(current.text, c.text, options);
    }
  }
  return finish(turns, options, undefined, { anchors });
}

/**
 * Times of stamped paragraphs inside a turn (a bare stamp continuing the speaker), for the parts of
 * a long turn: where the paragraph starts in the turn's text as built, and its time.
 */
type Anchors = Map<TranscriptTurn, { at: number; ms: number }[]>;

/** Notes that the text just joined to `turn` (its last `joined.length` characters) starts at `ms`. */
function addAnchor(anchors: Anchors, turn: TranscriptTurn, joined: string, ms: number): void {
  const list = anchors.get(turn) ?? [];
  list.push({ at: turn.text.length - joined.length, ms });
  anchors.set(turn, list);
}

/** Anchors by the number of words before them (whitespace tidying keeps word counts, not offsets). */
function wordAnchors(text: string, anchors: readonly { at: number; ms: number }[] | undefined): Anchor[] {
  if (!anchors) return [];
  const out: Anchor[] = [];
  let words = 0;
  let from = 0;
  for (const a of [...anchors].sort((x, y) => x.at - y.at)) {
    words += countWords(text.slice(from, a.at));
    from = a.at;
    out.push({ word: words, ms: a.ms });
  }
  return out;
}

/**
 * Which colon-label candidates are speakers: those that recur, or look like a person or a role.
 * When `trustLineStarts` (each line is a paragraph, so a label can only be where a speaker
 * starts) and the document already has a recurring speaker, a one-off single name ("Ben:") is
 * accepted too: in a dialogue, a third voice often speaks once. Wrapped print lines (PDF) do not
 * get this, since any capitalised word can land at the start of a print line.
 */
export function acceptLabels(counts: Map<string, { label: string; n: number }>, trustLineStarts: boolean): Set<string> {
  const dialogue = [...counts.values()].some((v) => v.n >= 2);
  return new Set(
    [...counts]
      .filter(([, v]) => v.n >= 2 || looksLikePersonOrRole(v.label) || (trustLineStarts && dialogue && /^[\p{Lu}][\p{L}'’-]*$/u.test(v.label)))
      .map(([k]) => k),
  );
}

function sumWords(cs: Classified[]): number {
  let n = 0;
  for (const c of cs) if (c.kind !== 'skip') n += countWords(c.text);
  return n;
}

function singleSpeaker(classified: Classified[], options: LayoutOptions): Transcript {
  const turn: TranscriptTurn = { speaker: SINGLE_SPEAKER_LABEL, text: '' };
  const anchors: Anchors = new Map();
  for (const c of classified) {
    if (c.kind === 'skip') continue;
    const text = c.kind === 'label' ? `${c.label}: ${c.text}` : c.text;
    turn.text = join(turn.text, text, options);
    if (c.kind !== 'text' && c.startMs !== undefined) {
      if (turn.startMs === undefined) turn.startMs = c.startMs;
      else addAnchor(anchors, turn, text, c.startMs);
    }
  }
  return finish([turn], options, undefined, { anchors, unlabelled: true });
}

function join(a: string, b: string, options: LayoutOptions): string {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  if (!options.wrapped) return `${a}\n${b}`;
  // Print lines: "inter-" + "marriage" → "inter-marriage"; an em-dash "--" keeps its space.
  if (/\p{L}-$/u.test(a) && !a.endsWith('--')) return a + b;
  return `${a} ${b}`;
}

export interface FinishOptions {
  /** No speaker labels were found: the turns are one voice, cut into ~120-word turns (split.ts). */
  unlabelled?: boolean;
  /** Times of stamped paragraphs inside turns. */
  anchors?: Anchors;
}

/**
 * Tidies text, drops empty turns, merges consecutive turns of one speaker and bounds their length
 * (split.ts: labelled turns over 400 words in near-equal parts, unlabelled text in ~120-word turns).
 */
export function finish(turns: TranscriptTurn[], options: LayoutOptions = {}, emptyMessage = 'The document contains no text', extra: FinishOptions = {}): Transcript {
  const merged: { turn: TranscriptTurn; words: number; anchors: Anchor[] }[] = [];
  for (const turn of turns) {
    const text = turn.text
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').trim())
      .filter((l) => l.length > 0)
      .join('\n');
    const words = countWords(text);
    if (words === 0) continue;
    const own = wordAnchors(turn.text, extra.anchors?.get(turn));
    const prev = merged[merged.length - 1];
    if (prev && prev.turn.speaker === turn.speaker) {
      const before = prev.words;
      prev.words += words;
      if (turn.startMs !== undefined) prev.anchors.push({ word: before, ms: turn.startMs });
      for (const a of own) prev.anchors.push({ word: before + a.word, ms: a.ms });
      prev.turn.text = options.wrapped ? `${prev.turn.text} ${text}` : `${prev.turn.text}\n${text}`;
      if (turn.endMs !== undefined) prev.turn.endMs = turn.endMs;
      if (prev.turn.startMs === undefined && turn.startMs !== undefined) prev.turn.startMs = turn.startMs;
      continue;
    }
    merged.push({ turn: { ...turn, text }, words, anchors: [...own] });
  }
  const out = merged.flatMap(({ turn, words, anchors }) => {
    if (!extra.unlabelled && words <= LABELLED_MAX_TURN_WORDS) return [turn];
    // A part that starts before any stamped paragraph has the turn's own time.
    const known = turn.startMs === undefined ? anchors : [{ word: 0, ms: turn.startMs }, ...anchors];
    return splitRun({ speaker: turn.speaker, text: turn.text, units: sentenceUnits(turn.text, known), startMs: turn.startMs, endMs: turn.endMs }, !extra.unlabelled);
  });
  return transcriptOf(out, emptyMessage, extra.unlabelled);
}

/** The transcript, or the reason a person can act on when nothing in the file is speech. */
export function transcriptOf(turns: TranscriptTurn[], emptyMessage: string, unlabelled = false): Transcript {
  if (turns.length === 0) throw new UnreadableTranscriptError(emptyMessage);
  return unlabelled ? { turns, unlabelled: true } : { turns };
}
