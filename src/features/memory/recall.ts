/**
 * What a simulation remembers for a message: the query (the message, widened by the conversation
 * for a follow-up), its embedding, and the hybrid retrieval over the scope — the one entry point
 * of the simulation service (engineInput) and of the benchmarks.
 */
import { searchTerms, type Understanding } from '../../lib/language/understand.ts';
import type { ConversationMessage, MemoryTurn } from '../../engines/types.ts';
import { retrieveMemory, type RetrieveOptions, type SemanticQuery } from './retrieve.ts';
import type { MindScope } from './scope.ts';
import type { Memory } from './service.ts';
import { isZero } from './vectors.ts';

/** A follow-up's query vector: the message, the question it follows (the anchor) and, fainter, the answer given. */
export const FOLLOW_UP_WEIGHTS = { message: 1, question: 1, answer: 0.35 } as const;
/** A new question after others keeps its own meaning: the previous question only tilts it. */
export const NEW_QUESTION_PREVIOUS = 0.15;

export interface Recall {
  memory: MemoryTurn[];
  /** Unit embedding of the message alone (null when the embedder could not be reached). */
  messageEmbedding: Float32Array | null;
  /** Whether the message was read as a follow-up, so the conversation widened the query. */
  followUp: boolean;
  /** Why the semantic rankings were left out, when they were (no index yet, embedder unreachable). */
  semanticSkipped: 'no_index' | 'embedder_failed' | 'empty_query' | null;
}

/** Openings of a message that goes on from the last exchange: "And how soon?", "Why?", "What about B2B?". */
const CONTINUES = /^\s*(and|but|so|also|then|why|how come|what about|how about|what if|really|meaning|such as|for example|like what)\b/i;
/** At most this many words: a message this short leans on the conversation for its topic. */
const SHORT_MESSAGE_WORDS = 5;

/**
 * Whether `message` continues the conversation rather than asking something new: the engine's
 * reading of it (`understood.leansOnHistory`: no topic of its own, or one pointing back at what
 * was said), or a short message or one opening like a continuation.
 */
export function leansOnConversation(message: string, history: readonly ConversationMessage[], understood: Pick<Understanding, 'leansOnHistory'>): boolean {
  if (!history.some((m) => m.role === 'user')) return false;
  if (understood.leansOnHistory) return true;
  return CONTINUES.test(message) || message.trim().split(/\s+/).length <= SHORT_MESSAGE_WORDS;
}

/** The latest user message that is not this one, and the answer to it. */
function previousExchange(history: readonly ConversationMessage[]): { question: string | null; answer: string | null } {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'user') {
      const next = history[i + 1];
      return { question: m.text, answer: next?.role === 'assistant' ? next.text : null };
    }
  }
  return { question: null, answer: null };
}

function combine(parts: { v: Float32Array | undefined; w: number }[]): Float32Array | null {
  const present = parts.filter((p): p is { v: Float32Array; w: number } => p.v !== undefined && !isZero(p.v) && p.w > 0);
  if (!present.length) return null;
  const d = present[0]!.v.length;
  const out = new Float32Array(d);
  for (const { v, w } of present) for (let i = 0; i < d; i++) out[i]! += w * v[i]!;
  let n = 0;
  for (let i = 0; i < d; i++) n += out[i]! * out[i]!;
  if (n === 0) return null;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < d; i++) out[i]! *= inv;
  return out;
}

export interface RecallOptions extends Omit<RetrieveOptions, 'semantic' | 'neighbours'> {
  /** Called when the embedder fails (the simulation goes on with full text only). */
  onEmbedderError?: (err: unknown) => void;
  signal?: AbortSignal;
}

/**
 * Recalls memory for `message`, read once by the caller (`understood`: `understand(message,
 * history, …)` of src/lib/language): its search terms feed full-text search, its follow-up
 * reading decides whether the conversation widens the semantic query.
 */
export async function recall(memory: Memory, scope: MindScope, message: string, history: readonly ConversationMessage[], understood: Pick<Understanding, 'query' | 'leansOnHistory'>, options: RecallOptions = {}): Promise<Recall> {
  // Loaded (once per scope) while the message is embedded.
  const lexical = memory.lexicalIndex(scope);
  lexical.catch(() => {}); // awaited below; an embedder failure first must not leave it unhandled
  const followUp = leansOnConversation(message, history, understood);
  const prev = previousExchange(history);
  let messageEmbedding: Float32Array | null = null;
  let semantic: SemanticQuery | null = null;
  let semanticSkipped: Recall['semanticSkipped'] = null;
  const embedder = memory.embedder;
  const indexed = scope.embedder === embedder.id && Boolean(scope.semanticFingerprint);
  try {
    const texts = [message, ...(prev.question ? [prev.question] : []), ...(followUp && prev.answer ? [prev.answer] : [])];
    const [search, vectors] = await Promise.all([memory.vectorSearch(), embedder.embed(texts, { signal: options.signal })]);
    const [m, q, a] = vectors;
    messageEmbedding = m ?? null;
    const query = followUp
      ? combine([{ v: m, w: FOLLOW_UP_WEIGHTS.message }, { v: q, w: FOLLOW_UP_WEIGHTS.question }, { v: a, w: FOLLOW_UP_WEIGHTS.answer }])
      : combine([{ v: m, w: 1 }, { v: q, w: NEW_QUESTION_PREVIOUS }]);
    if (!query) semanticSkipped = 'empty_query';
    else if (search === 'pgvector') semantic = { embedder: embedder.id, vector: query, search: { kind: 'pgvector' } };
    else {
      const index = indexed ? await memory.index(scope) : null;
      if (index && index.size > 0) semantic = { embedder: embedder.id, vector: query, search: { kind: 'process', index } };
      else semanticSkipped = 'no_index';
    }
  } catch (err) {
    if (options.signal?.aborted) throw err;
    options.onEmbedderError?.(err);
    semanticSkipped = 'embedder_failed';
  }
  const found = await retrieveMemory(memory.db, scope, searchTerms(understood), {
    lexical: await lexical,
    citedTurnIds: options.citedTurnIds,
    openings: options.openings,
    neighbours: followUp,
    semantic,
  });
  return { memory: found, messageEmbedding, followUp, semanticSkipped };
}
