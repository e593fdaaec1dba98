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
 *
 * Reading the files into cues is caption-cues.ts; a speaker's run of lines into sentences with
 * their times, caption-runs.ts.
 */
import type { Transcript, TranscriptTurn } from './types.ts';
import { UnreadableTranscriptError } from './errors.ts';
import { cleanLabel, looksLikeLabel } from './labels.ts';
import { acceptLabels, SINGLE_SPEAKER_LABEL, transcriptOf } from './layout.ts';
import { countTerminators, isUnpunctuated } from './pseudo-sentences.ts';
import { LABELLED_MAX_TURN_WORDS, splitRun } from './split.ts';
import { countWords } from './words.ts';
import { dropRollingRepeats, pieceCount, segmentLines, type Cue } from './caption-cues.ts';
import { boundedRuns, captionRun, type TimedLine } from './caption-runs.ts';

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
