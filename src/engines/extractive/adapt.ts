/**
 * The reranker adapted to one mind from its own question → answer pairs (issue 11: "adaptable
 * per mind from its own pairs"). Every turn of the mind that answered a question is a pair: its
 * question is put to the mind's memory without the conversation it comes from (leave one
 * conversation out, so the pair's own answer is never a candidate), the engine builds its
 * candidates exactly as it does for a real message, and each candidate's passage is scored by
 * token F1 against the real reply — the shipped model's training target. The shipped weights
 * are then moved a few steps towards this mind's pairs and held near them (rerank/model.ts
 * `adapt`), so a mind with few pairs keeps the shipped model.
 *
 * Pure and deterministic; the cost grows with the memory (one engine run per pair over it), so
 * the service computes it in the background, once per mind and scope (src/features/memory/rerankers.ts),
 * yielding between pairs.
 */
import type { MemoryTurn } from '../types.ts';
import { adapt, type Candidate, type Embed, type Group, type RerankModel } from './rerank/index.ts';
import { tokenF1 } from './rerank/target.ts';
import { answer } from './index.ts';
import { words } from '../../lib/language/text.ts';
import { indexTurn } from './turn-index.ts';

/** A question shorter than this (words) is back-channel; an answer shorter, an interjection (as the benchmarks count them). */
const MIN_QUESTION_WORDS = 4;
const MIN_ANSWER_WORDS = 8;
/** The memory a pair is asked against needs this many turns of other conversations. */
const MIN_MEMORY_TURNS = 10;
/** At most this many pairs (evenly spread over the memory): the adaptation's cost is bounded. */
export const MAX_ADAPT_PAIRS = 40;
/** Fewer usable pairs than this: the shipped model as it is. */
export const MIN_ADAPT_PAIRS = 8;

export interface MindPair {
  question: string;
  /** The whole reply (a long turn's parts joined). */
  answer: string;
  /** The conversation (snapshot) it comes from: left out of the memory it is asked against. */
  snapshotId: string;
}

/** The mind's question → answer pairs in `memory`: turns answering a question, a long reply once, at most `max`, evenly spread. */
export function mindPairs(memory: readonly MemoryTurn[], max = MAX_ADAPT_PAIRS): MindPair[] {
  const bySeq = new Map(memory.map((t) => [`${t.snapshotId}\u0000${t.seq}`, t]));
  const sameReply = (a: MemoryTurn | undefined, b: MemoryTurn) => a !== undefined && a.replyWords !== undefined && a.replyWords === b.replyWords;
  const out: MindPair[] = [];
  for (const t of memory) {
    if (t.unlabelled || !t.context || sameReply(bySeq.get(`${t.snapshotId}\u0000${t.seq - 1}`), t)) continue;
    if (!indexTurn(t).context.asks || words(t.context).length < MIN_QUESTION_WORDS) continue;
    const parts = [t.text];
    for (let n = bySeq.get(`${t.snapshotId}\u0000${t.seq + 1}`); n && sameReply(t, n); n = bySeq.get(`${n.snapshotId}\u0000${n.seq + 1}`)) parts.push(n.text);
    const reply = parts.join(' ');
    if (words(reply).length < MIN_ANSWER_WORDS) continue;
    out.push({ question: t.context, answer: reply, snapshotId: t.snapshotId });
  }
  if (out.length <= max) return out;
  return Array.from({ length: max }, (_, i) => out[Math.floor((i * out.length) / max)]!);
}

/** The candidates of one pair, scored: the engine's own, as for a real message, with F1 against the real reply. */
export function pairGroup(pair: MindPair, memory: readonly MemoryTurn[], mindName: string, embed: Embed, model: RerankModel): Group | null {
  const rest = memory.filter((t) => t.snapshotId !== pair.snapshotId);
  if (rest.length < MIN_MEMORY_TURNS) return null;
  let seen: readonly Candidate[] | null = null;
  answer({ mindName, message: pair.question, history: [], memory: rest, persona: { name: mindName, traits: [], style: {}, topics: [], findings: [] } }, { embed, model, onCandidates: (c) => (seen ??= c) });
  const cands: readonly Candidate[] = seen ?? [];
  if (cands.length < 2) return null;
  const gold = words(pair.answer);
  return { x: cands.map((c) => c.features), y: cands.map((c) => tokenF1(words(c.passage.used.map((u) => u.span.text).join(' ')), gold)) };
}

/**
 * `model` adapted to the mind whose memory is `memory`, or null when it has too few pairs that
 * can be asked against another of its conversations. `pause` runs between pairs (the service
 * yields to the event loop there).
 */
export async function adaptToMind(model: RerankModel, memory: readonly MemoryTurn[], o: { mindName: string; embed: Embed; pause?: () => Promise<void>; signal?: AbortSignal }): Promise<RerankModel | null> {
  const groups: Group[] = [];
  for (const pair of mindPairs(memory)) {
    o.signal?.throwIfAborted();
    const g = pairGroup(pair, memory, o.mindName, o.embed, model);
    if (g) groups.push(g);
    await o.pause?.();
  }
  if (groups.length < MIN_ADAPT_PAIRS) return null;
  return { ...adapt(model, groups), trainedOn: { ...model.trainedOn, adaptedOnPairs: groups.length } };
}
