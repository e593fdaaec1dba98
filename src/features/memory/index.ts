/**
 * Memory: which snapshots count (scope.ts), the profile loader and persona cache (profile.ts),
 * the semantic index (indexer.ts: embedding at ingest and re-embedding; vector-index.ts: exact
 * in-process search; lexical-index.ts: full-text search in process), hybrid retrieval (retrieve.ts, recall.ts) and per-mind rerankers (rerankers.ts).
 */
export { inScope, loadMindScope, type AsOfProblem, type MindScope } from './scope.ts';
export { FALLBACK_TURNS, MAX_CANDIDATES, MAX_CITED_TURNS, OPENING_SEQ, OPENING_TURNS, RRF_K, SEMANTIC_CANDIDATES, retrieveMemory, scopeTurns, tsQueryText, type RetrieveOptions, type SemanticQuery } from './retrieve.ts';
export { leansOnConversation, recall, type Recall, type RecallOptions } from './recall.ts';
export { Memory, type LexicalSearch, type VectorSearch } from './service.ts';
export { LexicalIndex, type LexicalHit, type LexicalTurn } from './lexical-index.ts';
export { embedSnapshot } from './indexer.ts';
export { queueEmbedding, queueStaleSnapshots, type EmbedSnapshotJob } from './state.ts';
export { IndexCache } from './index-cache.ts';
export { VectorIndex } from './vector-index.ts';
export { MindRerankers } from './rerankers.ts';
export { memoryModule } from './module.ts';
export { toDate } from './scope.ts';
