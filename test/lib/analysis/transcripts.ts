/**
 * Test and benchmark helper: the turns of the real transcripts in ../shared/data/transcripts (or of
 * the debate excerpts in test/fixtures, fixtureDebate), read
 * the way the service reads an upload (src/lib/ingest's parser, speaker attribution and
 * src/features/snapshots/digest.ts), so tests and the benchmark analyse exactly what the service analyses,
 * continuation lines included. Turn ids are `t0`, `t1`, … in transcript order.
 */
import { fileURLToPath } from 'node:url';
import type { AnalysisTurn } from '../../../src/lib/analysis/index.ts';
import { parseInThisThread } from '../../../src/lib/ingest/parse.ts';
import type { Transcript } from '../../../src/lib/ingest/types.ts';
import { analysisTurns, attributeTurns } from '../../../src/features/snapshots/digest.ts';
import { FIXTURES_URL, SHARED_DATA_URL } from '../../support/shared-data.ts';

export const TRANSCRIPTS = new URL('transcripts/', SHARED_DATA_URL);

const parsed = new Map<string, Promise<Transcript>>();

/** The parsed transcript at `file` (relative to the transcripts folder), parsed once per process. */
export function parseTranscript(file: string): Promise<Transcript> {
  let p = parsed.get(file);
  if (!p) {
    p = parseInThisThread(fileURLToPath(new URL(file, TRANSCRIPTS)), 'txt');
    parsed.set(file, p);
  }
  return p;
}

/** Sequential ids: `t0`, `t1`, … (or with another prefix). */
export const counterIds = (prefix = 't'): (() => string) => {
  let n = 0;
  return () => `${prefix}${n++}`;
};

/**
 * The analyser's input for `file` with `speaker` as the mind (the label as the transcript writes
 * it, chosen as a user choosing the speaker would), ids from `newId` (default `t0`, `t1`, …).
 */
export async function transcriptTurns(file: string, speaker: string, newId: () => string = counterIds()): Promise<AnalysisTurn[]> {
  const transcript = await parseTranscript(file);
  const { turns } = attributeTurns(transcript, { mindName: speaker, requestedSpeaker: speaker }, newId);
  return analysisTurns(turns, transcript);
}

/** Where each conversation lives under the transcripts folder. */
export const debate = (date: string): string => `us-presidential-debates/${date}.said.txt`;
/** The first two thirds of a 2012 debate, in test/fixtures (an absolute URL, so it resolves the same against TRANSCRIPTS). */
export const fixtureDebate = (date: string): string => new URL(`transcripts/us-presidential-debates/${date}.said.txt`, FIXTURES_URL).href;
export const lex = (file: string): string => `lex-fridman-podcast/${file}`;
export const lenny = (guest: string): string => `lennys-podcast/${guest}.transcript.md.txt`;
