/**
 * The fidelity check of one mind (issue 22): each conversation (a completed, linked snapshot) is
 * held out in turn; the questions asked in it — another speaker's turn ending in "?" of at least
 * MIN_QUESTION_WORDS words, answered by the person in at least MIN_ANSWER_WORDS — are put to a
 * mind built from the rest, and each simulated answer is measured against the person's real
 * answer (src/lib/fidelity/measure.ts): specificity AUC against the held-out conversation's other
 * real answers, the same beyond the question's own words, how often the mind declined (no
 * evidence), and how many of the person's turns an answer rests on.
 *
 * How the held-out mind is built, honestly and without copies in the database: the mind's turns
 * of the other conversations are read once (scopeTurns, as served) and, for each fold, held in an
 * in-process full-text index (LexicalIndex) and an in-process vector index of their stored
 * embeddings (VectorIndex) — the same two indexes the service searches in process. Retrieval is
 * then the service's own `retrieveMemory` given those indexes (BM25 and vector rankings, fused by
 * reciprocal rank, openings and fallback alike), and the answer the extractive engine's
 * `generate`, given what `engineInput` gives it (message, no history, the persona card and other
 * speakers, the message's embedding, the embedder). Two deliberate differences from a served
 * answer, both against leaking the held-out conversation: no reranker adapted to the mind (it was
 * trained on every turn, the held-out ones too), and the persona card is the mind's whole one
 * (the extractive engine takes only the usual answer length from it, as a fallback, and the
 * topics and findings of its analysis lines, which are not measured).
 *
 * One long conversation alone is split in time (LONG_CONVERSATION_TURNS): its two halves are held
 * out in turn. Bounded: at most MAX_QUESTIONS questions per mind, sampled with the project's
 * seeded PRNG (the same sample for the same memory), and the event loop is yielded between
 * questions, so a serving process keeps answering requests while a check runs.
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { mulberry32 } from '../../lib/prng.ts';
import { questionStems, specificity, tfidfSpace } from '../../lib/fidelity/measure.ts';
import { contentStems, wordCount } from '../../lib/language/text.ts';
import { searchTerms, understand } from '../../lib/language/understand.ts';
import type { EngineInput, MemoryTurn, PersonaCard, SimulationEngine } from '../../engines/types.ts';
import type { Embedder } from '../../lib/embeddings/index.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import { LexicalIndex, VectorIndex, inScope, retrieveMemory, scopeTurns, type MindScope } from '../memory/index.ts';

/** Questions shorter than this (words) are back-channel ("Really?"), not questions (as bench/fidelity.ts). */
export const MIN_QUESTION_WORDS = 4;
/** Replies shorter than this (words) are interjections, not answers (as bench/fidelity.ts). */
export const MIN_ANSWER_WORDS = 8;
/** A held-out conversation needs the rest to hold at least this many of the person's turns to answer from. */
export const MIN_MEMORY_TURNS = 10;
/** A single conversation with at least this many of the person's turns is split in time into two halves held out in turn. */
export const LONG_CONVERSATION_TURNS = 40;
/** At most this many questions are put per mind (about a second of work on the offline engine). */
export const MAX_QUESTIONS = 40;
/** Example question / real answer / simulated answer triples stored with the measures. */
export const EXAMPLES = 2;
/** Characters of each text of an example (cut at a word). */
export const EXAMPLE_CHARS = 600;
/** Seed of the question sample (mixed with the mind's id). */
const SAMPLE_SEED = 0x22f1de;

export interface Example {
  question: string;
  real: string;
  simulated: string;
  snapshotId: string;
  specificity: number | null;
}

export type FidelityOutcome =
  | { status: 'insufficient'; reason: string; conversations: number; questions: number }
  | {
      status: 'ready';
      conversations: number;
      questions: number;
      specificity: number | null;
      beyondQuestion: number | null;
      abstentionRate: number;
      medianSourceTurns: number;
      examples: Example[];
    };

/** A question asked in a conversation and the person's whole reply. */
interface Item {
  unit: string;
  snapshotId: string;
  question: string;
  real: string;
  /** Order: mindset date, snapshot, seq (for a deterministic sample). */
  order: number;
}

/** The state of a mind's memory a result was computed for: the scope's snapshots and its semantic index. */
export function memoryKey(scope: MindScope): string {
  return `${scope.fingerprint ?? 'none'}/${scope.semanticFingerprint ?? 'none'}`;
}

/** What a check needs from the process: the database, the embedder, the engine and the persona. */
export interface FidelityServices {
  db: Db;
  embedder: Embedder;
  engine: SimulationEngine;
  material(scope: MindScope): Promise<{ persona: PersonaCard; otherSpeakers: string[] }>;
  /** Checked between questions: a check of a mind whose memory changed meanwhile stops early. */
  signal?: AbortSignal;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A text cut at a word to at most `max` characters. */
export function cut(text: string, max = EXAMPLE_CHARS): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const head = t.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:.-]+$/, '')}…`;
}

/** A 32-bit seed from the mind's id, so each mind has its own sample, the same every time. */
function seedOf(mindId: string): number {
  return (createHash('sha256').update(mindId).digest().readUInt32LE(0) ^ SAMPLE_SEED) >>> 0;
}

/** float32 little-endian bytes (turn_embeddings), as either driver returns a bytea. */
function decode(bytes: Uint8Array | string): Float32Array {
  const b = typeof bytes === 'string' ? Buffer.from(bytes.startsWith('\\x') ? bytes.slice(2) : bytes, 'hex') : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(b.length >>> 2);
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}

/** The questions of each conversation in scope: another speaker's turn ending in "?", then the person's reply. */
async function questionTurns(db: Db, scope: MindScope): Promise<Map<string, string>> {
  const rows = rowsOf<{ id: string; question: string }>(
    await db.execute(sql`
      select t.id, q.text as question
      from turns t join snapshots s on s.id = t.snapshot_id
        join turns q on q.snapshot_id = t.snapshot_id and q.seq = t.seq - 1
      where t.organization_id = ${scope.organizationId} and t.mind_id = ${scope.mindId} and t.is_mind and not q.is_mind
        and ${inScope(scope.organizationId, scope.mindId, scope.asOfDate)}
        and rtrim(q.text) like '%?'`),
  );
  return new Map(rows.map((r) => [r.id, r.question]));
}

/** The stored vectors of the scope's snapshots embedded with `embedder` (what the served in-process index holds). */
async function storedVectors(db: Db, scope: MindScope, embedder: string): Promise<{ vectors: Map<string, { embedding: Float32Array; contextEmbedding: Float32Array | null }>; dimensions: number | null }> {
  if (scope.embedder !== embedder || !scope.semanticFingerprint) return { vectors: new Map(), dimensions: null };
  const rows = rowsOf<{ turn_id: string; dimensions: number; embedding: Uint8Array | string; context_embedding: Uint8Array | string | null }>(
    await db.execute(sql`
      select e.turn_id, e.dimensions, e.embedding, e.context_embedding
      from turn_embeddings e join snapshots s on s.id = e.snapshot_id
      where ${inScope(scope.organizationId, scope.mindId, scope.asOfDate)}
        and s.embedder = ${embedder} and s.embedded_at is not null
        and e.mind_id = ${scope.mindId} and e.embedder = ${embedder}`),
  );
  const vectors = new Map(rows.map((r) => [r.turn_id, { embedding: decode(r.embedding), contextEmbedding: r.context_embedding === null ? null : decode(r.context_embedding) }]));
  return { vectors, dimensions: rows.length ? Number(rows[0]!.dimensions) : null };
}

/** The held-out units: one per conversation, or the two halves (in time) of a single long one. */
function unitsOf(turns: readonly MemoryTurn[]): { units: Map<string, MemoryTurn[]>; split: boolean } {
  const bySnapshot = new Map<string, MemoryTurn[]>();
  for (const t of turns) bySnapshot.set(t.snapshotId, [...(bySnapshot.get(t.snapshotId) ?? []), t]);
  if (bySnapshot.size !== 1) return { units: bySnapshot, split: false };
  const [[id, all]] = [...bySnapshot];
  if (all.length < LONG_CONVERSATION_TURNS) return { units: bySnapshot, split: false };
  const half = Math.floor(all.length / 2);
  return { units: new Map([[`${id}#1`, all.slice(0, half)], [`${id}#2`, all.slice(half)]]), split: true };
}

/** The questions of a unit with the person's whole reply (the turn and the parts that follow it without another speaker between). */
function itemsOf(unit: string, turns: readonly MemoryTurn[], questions: ReadonlyMap<string, string>, order: { n: number }): Item[] {
  const items: Item[] = [];
  turns.forEach((t, i) => {
    const question = questions.get(t.turnId);
    if (question === undefined) return;
    const parts = [t.text];
    for (let j = i + 1; j < turns.length && turns[j]!.snapshotId === t.snapshotId && turns[j]!.seq === turns[j - 1]!.seq + 1; j++) parts.push(turns[j]!.text);
    const real = parts.join(' ');
    order.n++;
    if (wordCount(question) < MIN_QUESTION_WORDS || wordCount(real) < MIN_ANSWER_WORDS) return;
    items.push({ unit, snapshotId: t.snapshotId, question: question.trim(), real, order: order.n });
  });
  return items;
}

/** Fisher–Yates with the seeded generator: the first `k` of a deterministic permutation. */
function sample<T>(xs: readonly T[], k: number, seed: number): T[] {
  const a = [...xs];
  const rnd = mulberry32(seed);
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, k);
}

/** Normalised copy of a vector (null for the zero vector). */
function unit(v: Float32Array | undefined): Float32Array | null {
  if (!v) return null;
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  if (n === 0) return null;
  const out = new Float32Array(v.length);
  const k = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * k;
  return out;
}

/** The check of one mind's current memory (its scope: every completed, linked snapshot). */
export async function computeFidelity(s: FidelityServices, scope: MindScope): Promise<FidelityOutcome> {
  if (scope.snapshotCount === 0) return { status: 'insufficient', reason: 'The mind has no completed, linked conversation yet.', conversations: 0, questions: 0 };
  const turns = await scopeTurns(s.db, scope);
  const questions = await questionTurns(s.db, scope);
  const { units, split } = unitsOf(turns);
  const order = { n: 0 };
  const itemsByUnit = new Map([...units].map(([u, ts]) => [u, itemsOf(u, ts, questions, order)]));
  // A unit can be held out when it has two questions (one is measured against the other's real
  // answer) and the rest hold enough of the person to answer from.
  const usable = [...units.keys()].filter((u) => itemsByUnit.get(u)!.length >= 2 && turns.length - units.get(u)!.length >= MIN_MEMORY_TURNS);
  const allItems = [...itemsByUnit.values()].flat();
  if (units.size === 1) {
    const n = turns.length;
    return {
      status: 'insufficient',
      reason: `One conversation with ${plural(n, 'turn')} of the person: a fidelity check needs a second conversation, or one of at least ${LONG_CONVERSATION_TURNS} turns of theirs to split in time.`,
      conversations: 1,
      questions: allItems.length,
    };
  }
  if (usable.length === 0) {
    return {
      status: 'insufficient',
      reason: `No conversation${split ? ' half' : ''} has two questions put to the person (another speaker's turn ending in "?", of at least ${MIN_QUESTION_WORDS} words, answered in at least ${MIN_ANSWER_WORDS}) with enough of the rest to answer from: ${plural(allItems.length, 'such question')} in ${plural(units.size, split ? 'half' : 'conversation', split ? 'halves' : 'conversations')}.`,
      conversations: units.size,
      questions: allItems.length,
    };
  }

  const candidates = usable.flatMap((u) => itemsByUnit.get(u)!);
  const picked = new Set(sample(candidates, MAX_QUESTIONS, seedOf(scope.mindId)));
  const { vectors, dimensions } = await storedVectors(s.db, scope, s.embedder.id);
  const { persona, otherSpeakers } = await s.material(scope);
  const nameWords = scope.mindName.split(/\s+/);

  interface Scored extends Item {
    simulated: string;
    specificity: number | null;
    beyond: number | null;
    abstained: boolean;
    sources: number;
  }
  const scored: Scored[] = [];
  for (const u of usable) {
    const asked = itemsByUnit.get(u)!.filter((it) => picked.has(it));
    if (!asked.length) continue;
    const held = new Set(units.get(u)!.map((t) => t.turnId));
    const memory = turns.filter((t) => !held.has(t.turnId));
    const lexical = new LexicalIndex<MemoryTurn>(memory);
    const indexed = memory.flatMap((t) => {
      const v = vectors.get(t.turnId);
      return v ? [{ turnId: t.turnId, ...v }] : [];
    });
    const vectorIndex = dimensions !== null && indexed.length ? new VectorIndex(indexed, dimensions) : null;
    const space = tfidfSpace(memory.map((t) => t.text), contentStems);
    const reals = itemsByUnit.get(u)!.map((it) => it.real);
    for (const it of asked) {
      s.signal?.throwIfAborted();
      await yieldToLoop();
      const result = await s.engine.generate(await heldOutInput(s, scope, lexical, vectorIndex, it.question, nameWords, persona, otherSpeakers));
      const others = reals.filter((r, i) => itemsByUnit.get(u)![i] !== it);
      scored.push({
        ...it,
        simulated: result.text,
        specificity: specificity(space, result.text, it.real, others),
        beyond: specificity(space, result.text, it.real, others, questionStems(space, it.question)),
        abstained: result.evidence.length === 0,
        sources: new Set(result.evidence.map((e) => e.turnId)).size,
      });
    }
  }
  const specs = scored.flatMap((x) => (x.specificity === null ? [] : [x.specificity]));
  const beyond = scored.flatMap((x) => (x.beyond === null ? [] : [x.beyond]));
  const spec = specs.length ? mean(specs) : null;
  // Typical answers, not the best: the ones whose specificity is nearest the mind's mean, answered from memory, one per conversation first.
  const byTypical = scored
    .filter((x) => !x.abstained && x.simulated.trim())
    .sort((a, b) => Math.abs((a.specificity ?? 0.5) - (spec ?? 0.5)) - Math.abs((b.specificity ?? 0.5) - (spec ?? 0.5)) || a.order - b.order);
  const examples: Scored[] = [];
  for (const x of byTypical) if (examples.length < EXAMPLES && !examples.some((e) => e.unit === x.unit)) examples.push(x);
  for (const x of byTypical) if (examples.length < EXAMPLES && !examples.includes(x)) examples.push(x);
  return {
    status: 'ready',
    conversations: new Set(scored.map((x) => x.unit)).size,
    questions: scored.length,
    specificity: spec,
    beyondQuestion: beyond.length ? mean(beyond) : null,
    abstentionRate: scored.filter((x) => x.abstained).length / scored.length,
    medianSourceTurns: median(scored.map((x) => x.sources)),
    examples: examples
      .sort((a, b) => a.order - b.order)
      .map((x) => ({ question: cut(x.question), real: cut(x.real), simulated: cut(x.simulated), snapshotId: x.snapshotId, specificity: x.specificity })),
  };
}

/**
 * What `engineInput` (src/features/simulations/engine-input.ts) gives the engine for a first message,
 * with the held-out fold's in-process indexes in place of the scope's: the message read once, its
 * search terms, the openings for a greeting, the message's embedding as the semantic query, the hybrid retrieval.
 */
async function heldOutInput(
  s: FidelityServices,
  scope: MindScope,
  lexical: LexicalIndex<MemoryTurn>,
  vectorIndex: VectorIndex | null,
  message: string,
  nameWords: string[],
  persona: PersonaCard,
  otherSpeakers: string[],
): Promise<EngineInput> {
  const understood = understand(message, [], nameWords);
  let messageEmbedding: Float32Array | null = null;
  try {
    [messageEmbedding = null] = await s.embedder.embed([message]);
  } catch {
    messageEmbedding = null; // as served: the embedder unreachable, full text only
  }
  const query = unit(messageEmbedding ?? undefined);
  const memory = await retrieveMemory(s.db, scope, searchTerms(understood), {
    lexical,
    openings: understood.social !== null,
    semantic: query && vectorIndex && vectorIndex.size > 0 ? { embedder: s.embedder.id, vector: query, search: { kind: 'process', index: vectorIndex } } : null,
  });
  return { mindName: scope.mindName, message, history: [], understanding: understood, memory, persona, otherSpeakers, messageEmbedding, embedder: s.embedder };
}
