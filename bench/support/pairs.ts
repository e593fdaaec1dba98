/**
 * Question → answer pairs of the real conversations, with the memory each is put to, in memory
 * (no database): the reranker's training data (scripts/train-reranker.ts) and the candidate
 * study (bench/support/candidate-study.ts).
 *
 * For each conversation and person interviewed in it, each question an interviewer asked ("?",
 * ≥ 4 words; the answer ≥ 8 words) is put to a memory holding the person's turns of the other
 * given conversations and of the other half of this one (leave one half out: most guests have one
 * conversation). The real answer is the whole reply (a long turn's parts joined).
 */
import type { MemoryTurn } from '../../src/engines/types.ts';
import { words } from '../../src/lib/language/text.ts';
import { replyWordCounts } from '../../src/features/snapshots/digest.ts';
import { wholeReply, type Conversation } from './fidelity-split.ts';

export const MIN_QUESTION_WORDS = 4;
export const MIN_ANSWER_WORDS = 8;
const MAX_CONTEXT_CHARS = 1_000;
const MIN_MEMORY_TURNS = 10;

/** The person's turns of `c` between `from` and `to` as memory (context = the other speaker's turn before, as ingest stores it). */
export function memoryOf(c: Conversation, person: string, from: number, to: number): MemoryTurn[] {
  const replies = replyWordCounts(c.turns);
  const out: MemoryTurn[] = [];
  let lastOther: string | null = null;
  c.turns.forEach((t, seq) => {
    const mine = t.speaker === person;
    if (mine && seq >= from && seq < to) {
      out.push({
        turnId: `${c.id}#${seq}`,
        snapshotId: `${c.id}@${from}`,
        text: t.text,
        context: lastOther,
        startMs: t.startMs ?? null,
        mindsetDate: c.date,
        seq,
        ...(replies[seq] === null ? {} : { replyWords: replies[seq]! }),
      });
    }
    if (!mine) lastOther = t.text.length > MAX_CONTEXT_CHARS ? t.text.slice(-MAX_CONTEXT_CHARS) : t.text;
  });
  return out;
}

export interface Pair {
  conversation: string;
  person: string;
  /** The interviewer's question. */
  message: string;
  /** The person's whole reply. */
  gold: string;
  memory: MemoryTurn[];
}

/** Every pair of `convs`, each half of each conversation asked against the other half and the person's other conversations. */
export function pairsOf(convs: readonly Conversation[]): Pair[] {
  const out: Pair[] = [];
  for (const conv of convs) {
    const half = Math.floor(conv.turns.length / 2);
    for (const person of conv.subjects) {
      const others = convs.filter((c) => c !== conv && c.subjects.includes(person)).flatMap((c) => memoryOf(c, person, 0, c.turns.length));
      for (const [from, to, memFrom, memTo] of [[1, half, half, conv.turns.length], [half, conv.turns.length, 0, half]] as const) {
        const memory = [...others, ...memoryOf(conv, person, memFrom, memTo)];
        if (memory.length < MIN_MEMORY_TURNS) continue;
        for (let i = Math.max(1, from); i < to; i++) {
          const t = conv.turns[i]!;
          const q = conv.turns[i - 1]!;
          if (t.speaker !== person || t.continues || conv.subjects.includes(q.speaker)) continue;
          if (!q.text.includes('?') || words(q.text).length < MIN_QUESTION_WORDS || words(t.text).length < MIN_ANSWER_WORDS) continue;
          out.push({ conversation: conv.id, person, message: q.text, gold: wholeReply(conv.turns, i), memory });
        }
      }
    }
  }
  return out;
}

/** The whole replies of a memory: each turn with the parts that continue it (same snapshot, next seq, same replyWords). */
export function wholeReplies(memory: readonly MemoryTurn[]): { first: MemoryTurn; text: string; turns: MemoryTurn[] }[] {
  const bySeq = new Map(memory.map((t) => [`${t.snapshotId}\u0000${t.seq}`, t]));
  const isContinuation = (t: MemoryTurn) => {
    const prev = bySeq.get(`${t.snapshotId}\u0000${t.seq - 1}`);
    return t.replyWords !== undefined && prev !== undefined && prev.replyWords === t.replyWords;
  };
  const out: { first: MemoryTurn; text: string; turns: MemoryTurn[] }[] = [];
  for (const t of memory) {
    if (isContinuation(t)) continue;
    const turns = [t];
    for (let n = bySeq.get(`${t.snapshotId}\u0000${t.seq + 1}`); n && n.replyWords !== undefined && n.replyWords === t.replyWords; n = bySeq.get(`${n.snapshotId}\u0000${n.seq + 1}`)) turns.push(n);
    out.push({ first: t, text: turns.map((x) => x.text).join(' '), turns });
  }
  return out;
}
