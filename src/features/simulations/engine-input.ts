/**
 * What an engine is given to answer a message: the conversation before it, the message read once
 * (src/lib/language), the memory recalled with that reading, the persona and the other speakers.
 */
import { sql } from 'drizzle-orm';
import type { Config } from '../../config.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import { rankMemory } from '../../engines/extractive/index.ts';
import type { ConversationMessage, EngineInput, Evidence, MemoryTurn, SimulationEngine } from '../../engines/types.ts';
import { searchTerms, understand, type Understanding } from '../../lib/language/understand.ts';
import { recall, retrieveMemory, type MindScope } from '../memory/index.ts';
import type { RunServices } from './run.ts';

/**
 * The conversation before the message being answered: completed messages only, oldest first,
 * each earlier answer with its evidence (so the next answer can say something new).
 */
async function historyBefore(db: Db, simulationId: string, userSeq: number): Promise<ConversationMessage[]> {
  if (userSeq <= 1) return [];
  const rows = rowsOf<{ role: 'user' | 'assistant'; text: string | null; evidence: Evidence[] | string | null }>(
    await db.execute(sql`
      select role, content->>'text' as text, content->'evidence' as evidence from messages
      where conversation_id = ${simulationId} and seq < ${userSeq} and status = 'completed'
      order by seq`),
  );
  return rows
    .filter((r) => r.text)
    .map((r) => {
      const evidence = typeof r.evidence === 'string' ? (JSON.parse(r.evidence) as Evidence[]) : r.evidence;
      return r.role === 'assistant' && Array.isArray(evidence) ? { role: r.role, text: r.text!, evidence } : { role: r.role, text: r.text! };
    });
}

/** Turns quoted by the latest answers of the conversation: fetched again so a follow-up can go on from them. */
const CITED_ANSWERS = 2;
function citedTurnIds(history: readonly ConversationMessage[]): string[] {
  return history
    .filter((m) => m.role === 'assistant')
    .slice(-CITED_ANSWERS)
    .flatMap((m) => (m.evidence ?? []).map((e) => e.turnId));
}

/**
 * LLM engines read the first excerpts in the order given: put the turns the extractive ranking
 * (BM25F over what was said and what was asked) likes best first, the rest after.
 */
function rankForLlm(memory: MemoryTurn[], understood: Understanding): MemoryTurn[] {
  const { ranked } = rankMemory(memory, understood.query);
  const first = new Set(ranked.map((r) => r.turn.turnId));
  return [...ranked.map((r) => r.turn), ...memory.filter((t) => !first.has(t.turnId))];
}

/**
 * What an engine is given to answer `message` in a conversation: the history before it (with
 * the earlier answers' evidence), the memory retrieved for it (plus the turns the conversation
 * quoted, and the opening turns for a greeting or "who are you?"), the persona, and the other
 * speakers' names. The one path every caller takes — POST /simulate, background jobs and the
 * fidelity benchmark — so what is measured is what is served.
 */
export async function engineInput(s: Pick<RunServices, 'db' | 'personas' | 'memory'> & Partial<Pick<RunServices, 'log' | 'rerankers'>> & { config?: Pick<Config, 'rerankerAdapt'> }, scope: MindScope, engine: SimulationEngine, simulationId: string | null, userSeq: number, message: string): Promise<EngineInput> {
  const history = simulationId ? await historyBefore(s.db, simulationId, userSeq) : [];
  // The message is read once, here: recall searches with this reading and the engine answers from it.
  // The person's name words are the ones the engine uses (the persona card carries the mind's name).
  const understood = understand(message, history, scope.mindName.split(/\s+/));
  const options = { citedTurnIds: citedTurnIds(history), openings: understood.social !== null };
  // Hybrid retrieval (src/features/memory): full text, and vector similarity to what the person said and to
  // what they were asked, fused; a follow-up widens the query with the previous exchange.
  const retrieved = s.memory
    ? recall(s.memory, scope, message, history, understood, { ...options, onEmbedderError: (err) => s.log?.error({ err, mindId: scope.mindId }, 'embedding the message failed; answering from full-text search') })
    : retrieveMemory(s.db, scope, searchTerms(understood), options).then((memory) => ({ memory, messageEmbedding: null }));
  const [found, material] = await Promise.all([retrieved, s.personas.material(s.db, scope)]);
  const memory = engine.engine === 'llm' ? rankForLlm(found.memory, understood) : found.memory;
  // The extractive reranker adapted to this mind, once it is ready (computed in the background, never waited for).
  const reranker =
    engine.engine === 'extractive' && s.rerankers && s.config?.rerankerAdapt ? s.rerankers.peek(s.db, scope) : undefined;
  return {
    mindName: scope.mindName,
    message,
    history,
    understanding: understood,
    memory,
    persona: material.persona,
    otherSpeakers: material.otherSpeakers,
    messageEmbedding: found.messageEmbedding,
    ...(s.memory ? { embedder: s.memory.embedder } : {}),
    ...(reranker ? { reranker } : {}),
  };
}

