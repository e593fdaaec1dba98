/**
 * Turns a stored transcript file into what the memory bank keeps: speaker turns with the question
 * each answered, which speaker is the mind, and the analysis of the mind's own words. Runs inside
 * a parser child process (pool.ts, parser-processes.ts): parsing and analysis are CPU work that
 * must not stall the API's event loop.
 */
import { randomUUID } from 'node:crypto';
import { analyseTurns, type AnalysisResult, type AnalysisTurn } from '../../lib/analysis/index.ts';
import { countWords } from '../../lib/analysis/nlp.ts';
import { attributeSpeaker, type AttributionResult } from '../../lib/ingest/attribution.ts';
import { parseInThisThread, type ParseOptions } from '../../lib/ingest/parse.ts';
import type { FileKind, Transcript } from '../../lib/ingest/types.ts';
import { writeTurns } from './turns-file.ts';

export interface DigestRequest {
  mindName: string;
  requestedSpeaker: string | null;
}

export interface DigestedTurn {
  id: string;
  seq: number;
  speaker: string;
  text: string;
  startMs: number | null;
  endMs: number | null;
  isMind: boolean;
  /** The nearest preceding turn of another speaker: what the mind was answering. */
  context: string | null;
  /** Words of the whole reply, on each part of a long turn that ingest cut in parts; else null. */
  replyWords: number | null;
}

export interface Digest {
  turns: DigestedTurn[];
  attribution: AttributionResult;
  analysis: AnalysisResult;
  /** False when the file named no speakers (Transcript.unlabelled): the mind's one voice is everyone's. */
  speakersLabelled: boolean;
}

/**
 * A digest whose turns went to a file (`turnsFile`, one JSON turn per line, in order) instead of
 * into the message: what the service stores without ever holding all of a large transcript's turns.
 */
export interface DigestSummary extends Omit<Digest, 'turns'> {
  turnsFile: string;
  turnCount: number;
}

/** Context is capped so one long monologue by the interviewer does not dominate retrieval. */
const MAX_CONTEXT_CHARS = 1_000;

export async function digestInThisThread(path: string, kind: FileKind, request: DigestRequest, opts: ParseOptions = {}): Promise<Digest> {
  return digestTranscript(await parseInThisThread(path, kind, opts), request);
}

/**
 * Digests the file and writes its turns to `turnsFile` as NDJSON (turns-file.ts; a retried task
 * replaces the file); returns the rest, which is small.
 */
export async function digestToFile(path: string, kind: FileKind, request: DigestRequest, turnsFile: string, opts: ParseOptions = {}): Promise<DigestSummary> {
  const { turns, ...rest } = await digestInThisThread(path, kind, request, opts);
  await writeTurns(turnsFile, turns);
  return { ...rest, turnsFile, turnCount: turns.length };
}

/**
 * A parsed transcript → turns, attribution and analysis: everything the memory bank keeps. Pure and
 * synchronous; `newId` names the turns (random UUIDs in the service; tests and the benchmark pass
 * a counter, so they analyse exactly what the service analyses).
 */
export function digestTranscript(transcript: Transcript, request: DigestRequest, newId: () => string = randomUUID): Digest {
  const { turns, attribution } = attributeTurns(transcript, request, newId);
  const unlabelled = transcript.unlabelled === true;
  const all = analysisTurns(turns, transcript);
  const sample = analysisSample(all, ANALYSIS_MAX_WORDS);
  const analysis = analyseTurns(sample, { unlabelled });
  // The analysis read a sample of a very long transcript; the mind said all of its words.
  if (sample !== all) analysis.mindWords = all.reduce((n, t) => (t.isMind ? n + countWords(t.text) : n), 0);
  return { turns, attribution, analysis, speakersLabelled: !unlabelled };
}

/**
 * The analysis reads at most this many words of a transcript (every speaker's). It costs about
 * 65 µs and 0.5 KB per word (790,000 words: 52 s, 750 MB), so a 45 MB transcript (8 million
 * words) analysed whole would take ten minutes and gigabytes; 200,000 words (about 20 hours of
 * speech) measure a person's traits and topics as well as 8 million do.
 */
export const ANALYSIS_MAX_WORDS = 200_000;
/** How many stretches of the transcript a sample is made of, evenly spaced from start to end. */
const SAMPLE_WINDOWS = 20;

/**
 * The turns the analysis reads: all of them up to `maxWords`; beyond, SAMPLE_WINDOWS stretches of
 * consecutive turns spread evenly over the transcript, each starting at the beginning of a reply
 * (never at a part that `continues` one), so questions stay with their answers and topics from
 * every part of a long recording are seen.
 */
export function analysisSample(turns: AnalysisTurn[], maxWords: number): AnalysisTurn[] {
  const words = turns.map((t) => countWords(t.text));
  const total = words.reduce((a, b) => a + b, 0);
  if (total <= maxWords) return turns;
  const perWindow = maxWords / SAMPLE_WINDOWS;
  const out: AnalysisTurn[] = [];
  let next = 0; // first turn not yet taken: windows never overlap
  for (let w = 0; w < SAMPLE_WINDOWS; w++) {
    let i = Math.max(next, Math.floor((w * turns.length) / SAMPLE_WINDOWS));
    while (i < turns.length && turns[i]!.continues) i++;
    let taken = 0;
    while (i < turns.length && taken < perWindow) {
      out.push(turns[i]!);
      taken += words[i]!;
      i++;
    }
    next = i;
  }
  return out;
}

/**
 * The transcript's turns with ids, the mind's turns marked, and each mind turn's question.
 *
 * A file that names no speakers gives no turn a question: everything is the mind's, and nothing
 * says where someone else's question ends and the answer begins. A question-shaped caption line
 * at the end of the previous turn is no substitute: in the auto-captions of the 2012-10-03 debate
 * 8 of 132 turns have a line opened by a question word and an auxiliary ("how do we…") or "do
 * you", half of them the candidates' own rhetorical questions ("so what did we do we stepped
 * in…"), while the moderator's questions run on inside a line ("and let's begin with jobs what
 * are the major differences between the two of you…"). Labelled captions without punctuation do
 * get their questions; the engine tells which of those ask something by their shape (`asksSomething`).
 */
export function attributeTurns(transcript: Transcript, request: DigestRequest, newId: () => string = randomUUID): { turns: DigestedTurn[]; attribution: AttributionResult } {
  const attribution = attributeSpeaker(transcript, { mindName: request.mindName, requestedSpeaker: request.requestedSpeaker });
  let lastOther: string | null = null;
  const replies = replyWordCounts(transcript.turns);
  const turns: DigestedTurn[] = transcript.turns.map((t, seq) => {
    const isMind = t.speaker === attribution.mindLabel;
    const turn: DigestedTurn = {
      id: newId(),
      seq,
      speaker: t.speaker,
      text: t.text,
      startMs: t.startMs ?? null,
      endMs: t.endMs ?? null,
      isMind,
      context: isMind ? lastOther : null,
      replyWords: replies[seq]!,
    };
    if (!isMind) lastOther = t.text.length > MAX_CONTEXT_CHARS ? t.text.slice(-MAX_CONTEXT_CHARS) : t.text;
    return turn;
  });
  return { turns, attribution };
}

/**
 * For each turn, the words of the whole reply when the turn is one part of a long turn that ingest
 * cut in parts (`continues` marks the later parts), else null. How long a person answers is a
 * matter of replies, not of the parts a search ranks: the engine sizes its answers by it.
 */
export function replyWordCounts(turns: readonly { text: string; continues?: true }[]): (number | null)[] {
  const out: (number | null)[] = turns.map(() => null);
  for (let start = 0; start < turns.length; ) {
    let end = start + 1;
    while (end < turns.length && turns[end]!.continues) end++;
    if (end - start > 1) {
      let total = 0;
      for (let i = start; i < end; i++) total += turns[i]!.text.split(/\s+/).filter(Boolean).length;
      for (let i = start; i < end; i++) out[i] = total;
    }
    start = end;
  }
  return out;
}

/**
 * What the analyser reads of each turn, in transcript order; with the transcript they came from,
 * which turns only continue a long turn that ingest cut in parts.
 */
export function analysisTurns(turns: DigestedTurn[], transcript?: Transcript): AnalysisTurn[] {
  return turns.map((t) => {
    const turn: AnalysisTurn = { turnId: t.id, speaker: t.speaker, text: t.text, startMs: t.startMs, isMind: t.isMind };
    if (transcript?.turns[t.seq]?.continues) turn.continues = true;
    return turn;
  });
}

/** Loads the parsers and analysis models in this thread (they load lazily on first use otherwise). */
export async function warmUp(): Promise<null> {
  await import('../../lib/ingest/parse.ts');
  analyseTurns([{ turnId: 'warm', speaker: 'A', text: 'I think this works well, and I am glad we tried it.', startMs: null, isMind: true }]);
  return null;
}
