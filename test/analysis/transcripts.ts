/**
 * Test helper: turns from the real transcripts in ../shared/data/transcripts, read with two small
 * line parsers (the full ingest parsers live in src/ingest; these tests do not depend on them).
 */
import { readFileSync } from 'node:fs';
import type { AnalysisTurn } from '../../src/analysis/index.ts';

export const TRANSCRIPTS = new URL('../../../shared/data/transcripts/', import.meta.url);

interface RawTurn {
  speaker: string;
  text: string;
  startMs: number | null;
}

/** Debates `*.said.txt`: `Full Name: text`; a line without a known name continues the last speaker. */
export function readDebate(date: string): RawTurn[] {
  const meta = JSON.parse(readFileSync(new URL(`us-presidential-debates/${date}.json`, TRANSCRIPTS), 'utf8')) as {
    speakers: { fullName: string }[];
  };
  const names = meta.speakers.map((s) => s.fullName);
  const turns: RawTurn[] = [];
  for (const line of readFileSync(new URL(`us-presidential-debates/${date}.said.txt`, TRANSCRIPTS), 'utf8').split('\n')) {
    const text = line.trim();
    if (!text) continue;
    const name = names.find((n) => text.startsWith(`${n}:`));
    if (name) turns.push({ speaker: name, text: text.slice(name.length + 1).trim(), startMs: null });
    else if (turns.length > 0) turns[turns.length - 1]!.text += `\n${text}`;
  }
  return turns;
}

/** Lex Fridman transcripts: `Name [(hh:mm:ss)](link) text`, one turn per line; other lines are headers. */
export function readLex(file: string): RawTurn[] {
  const turns: RawTurn[] = [];
  for (const line of readFileSync(new URL(`lex-fridman-podcast/${file}`, TRANSCRIPTS), 'utf8').split('\n')) {
    const m = /^(.+?) \[\((\d+):(\d\d):(\d\d)\)\]\([^)]*\)\s*(.*)$/.exec(line.trim());
    if (!m) continue;
    const startMs = ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4])) * 1000;
    turns.push({ speaker: m[1]!.trim(), text: m[5]!.trim(), startMs });
  }
  return turns;
}

/** Turns with ids (`t0`, `t1`, …) and the mind marked by speaker name. */
export function asAnalysisTurns(raw: RawTurn[], mind: string): AnalysisTurn[] {
  return raw.map((t, i) => ({ turnId: `t${i}`, speaker: t.speaker, text: t.text, startMs: t.startMs, isMind: t.speaker === mind }));
}
