/**
 * Moved to src/features/memory (issue 11): scope, retrieval and the persona cache live there now. This
 * file re-exports them for the callers that still import from here (benchmarks).
 */
export {
  FALLBACK_TURNS,
  MAX_CANDIDATES,
  MAX_CITED_TURNS,
  OPENING_SEQ,
  OPENING_TURNS,
  loadMindScope,
  loadProfile,
  PersonaCache,
  retrieveMemory,
  tsQueryText,
  type AsOfProblem,
  type MindMaterial,
  type MindScope,
  type RetrieveOptions,
} from '../memory/index.ts';
