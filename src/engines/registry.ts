/**
 * The simulation engines this process offers (GET /models): the embedded extractive engine
 * always, and one LLM engine per configured model when MINDPRINT_LLM_* is set. The default is
 * MINDPRINT_DEFAULT_MODEL when set, else the configured LLM when there is one (it writes a reply
 * in the person's voice from the same retrieved memory), else the extractive engine.
 */
import type { LlmConfig } from './llm/config.ts';
import { createExtractiveEngine } from './extractive/index.ts';
import { createLlmEngines } from './llm/index.ts';
import type { SimulationEngine } from './types.ts';

export interface ModelInfo {
  id: string;
  engine: 'extractive' | 'llm';
  streams: boolean;
  default: boolean;
}

/** A model id no engine of this process answers to (the caller turns it into its own error). */
export class UnknownModelError extends Error {
  constructor(
    readonly requested: string,
    readonly available: string[],
  ) {
    super(`"${requested}" is not an available model; available models: ${available.join(', ')}`);
    this.name = 'UnknownModelError';
  }
}

export class EngineRegistry {
  private readonly byId: Map<string, SimulationEngine>;
  readonly defaultEngine: SimulationEngine;

  constructor(readonly engines: SimulationEngine[], defaultId?: string) {
    if (engines.length === 0) throw new Error('at least one simulation engine is needed');
    this.byId = new Map(engines.map((e) => [e.id, e]));
    this.defaultEngine = (defaultId !== undefined ? this.byId.get(defaultId) : undefined) ?? engines[0]!;
  }

  models(): ModelInfo[] {
    return this.engines.map((e) => ({ id: e.id, engine: e.engine, streams: e.streams, default: e === this.defaultEngine }));
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The engine for a requested model id; an unknown id throws UnknownModelError, which lists the choices. */
  select(requested: string | undefined): SimulationEngine {
    if (requested === undefined) return this.defaultEngine;
    const engine = this.byId.get(requested);
    if (!engine) throw new UnknownModelError(requested, this.engines.map((e) => e.id));
    return engine;
  }

  /** The engine for a stored conversation's model, or the default when that model is no longer configured. */
  forStored(modelId: string): SimulationEngine {
    return this.byId.get(modelId) ?? this.defaultEngine;
  }
}

/** `defaultModel`: the id to use when none is named (config.defaultModel); the first LLM model, else extractive, when absent. */
export function createEngineRegistry(llm: LlmConfig | null, defaultModel?: string): EngineRegistry {
  // An LLM model named like the extractive one would be unreachable; the extractive id wins.
  const extractive = createExtractiveEngine();
  const llmEngines = llm ? createLlmEngines(llm).filter((e) => e.id !== extractive.id) : [];
  return new EngineRegistry([extractive, ...llmEngines], defaultModel ?? llmEngines[0]?.id);
}
