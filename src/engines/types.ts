/**
 * The seam between the simulation service (conversations, storage, HTTP) and the engines
 * that produce an answer. Engines never touch the database or HTTP: the service retrieves
 * memory and builds the persona, the engine turns them into an answer.
 */
import type { Understanding } from '../lib/language/understand.ts';

export interface RetrievalScores {
  /** Reciprocal-rank-fusion score over the retrievers below (higher is better). */
  fused: number;
  /** 1-based rank in each retriever's list, null when that retriever did not return the turn. */
  lexicalRank: number | null;   // full-text search over the turn text (and its question)
  semanticRank: number | null;  // vector similarity of the message to the turn text
  questionRank: number | null;  // vector similarity of the message to the question the turn answered
  /** Cosine similarities (unit vectors of the mind's embedder), null when not computed. */
  semantic: number | null;
  question: number | null;
}

/** One of the mind's own turns, as retrieved from the memory bank. */
export interface MemoryTurn {
  turnId: string;
  snapshotId: string;
  /** What the mind said in this turn. */
  text: string;
  /** The other speaker's turn just before it (the question it answered), if any. */
  context: string | null;
  startMs: number | null;
  /** The snapshot's mindsetDate: when the person said it. */
  mindsetDate: Date;
  /** Order of the turn inside its transcript. */
  seq: number;
  /**
   * From a file that named no speakers (auto-captions): the turn is a ~120-word piece of everyone's
   * speech, not a turn the person took, so its length says nothing about how long they speak.
   */
  unlabelled?: boolean;
  /** Words of the whole reply when this turn is one part of a long turn that ingest cut in parts. */
  replyWords?: number;
  /** How retrieval found this turn (absent for turns added for other reasons: cited, openings). */
  retrieval?: RetrievalScores;
}

/** A compact description of the person, from the analysis of their snapshots. */
export interface PersonaCard {
  name: string;
  traits: { name: string; score: number | null; percentile: number | null; confidence: number | null }[];
  /** Communication-style measures by name (wordsPerTurn, questionRate, hedging, formality, …). */
  style: Record<string, number | null>;
  topics: { label: string; keywords: string[] }[];
  findings: { kind: string; statement: string; quote: string }[];
}

export interface ConversationMessage {
  role: 'user' | 'assistant';
  text: string;
  /** For an earlier answer: the turns it quoted, so a follow-up can say something new. */
  evidence?: Evidence[];
}

export interface Evidence {
  turnId: string;
  snapshotId: string;
  quote: string;
  startMs: number | null;
}

/** What the person would be thinking, feeling, saying and doing in the scenario. */
export interface SimulationAnalysis {
  thinking: string;
  feeling: string;
  saying: string;
  acting: string;
}

export interface EngineInput {
  mindName: string;
  /** The scenario's message: what the person is asked or told now. */
  message: string;
  /** The conversation so far, oldest first, without the current message. */
  history: ConversationMessage[];
  /**
   * The message read once by the service (src/lib/language: `understand(message, history, the
   * person's name words)`), the same reading its recall used. The extractive engine answers from
   * it; an input built by hand (tests, benchmarks) may leave it out, and the engine reads the
   * message itself. The LLM engine reads the message in its own way and ignores it.
   */
  understanding?: Understanding;
  /** Candidate memory, already restricted to linked snapshots as of the requested date. */
  memory: MemoryTurn[];
  persona: PersonaCard;
  /**
   * Names of the other speakers in the mind's transcripts (interviewers, moderators, opponents):
   * a sentence addressed to one of them ("Jim, if I can just respond") belonged to that setting.
   */
  otherSpeakers?: string[];
  signal?: AbortSignal;
  /** Unit embedding of `message` (and of the conversation-widened query, if any), same space as the turns'. */
  messageEmbedding?: Float32Array | null;
  /** The extractive engine's reranker adapted to this mind (src/engines/extractive/adapt.ts), when one is ready; else the shipped model. */
  reranker?: import('./extractive/rerank/model.ts').RerankModel | null;
  /** The embedder itself (pure library, src/lib/embeddings), for sentence-level similarity inside the engine. */
  embedder?: import('../lib/embeddings/types.ts').Embedder;
}

export interface EngineResult {
  text: string;
  evidence: Evidence[];
  analysis: SimulationAnalysis;
}

export interface SimulationEngine {
  /** Model id as listed by GET /models. */
  id: string;
  engine: 'extractive' | 'llm';
  streams: boolean;
  /** Produce the answer; `onDelta` receives text pieces as they are produced (in order). */
  generate(input: EngineInput, onDelta?: (text: string) => void): Promise<EngineResult>;
}
