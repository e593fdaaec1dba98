/** Model ids shared by the engines, the configuration and GET /models. */

/** The embedded extractive engine: always available. */
export const EXTRACTIVE_MODEL_ID = 'mindprint-extractive-1';

/**
 * The model a simulation uses when none is named: MINDPRINT_DEFAULT_MODEL when set (it must be an
 * available model), else the first configured LLM model, else the extractive engine.
 */
export function defaultModelFrom(env: NodeJS.ProcessEnv, llmModels: readonly string[]): string {
  const named = env.MINDPRINT_DEFAULT_MODEL?.trim() ?? '';
  const available = [EXTRACTIVE_MODEL_ID, ...llmModels];
  if (named !== '') {
    if (!available.includes(named)) {
      throw new Error(`MINDPRINT_DEFAULT_MODEL "${named}" is not an available model; available models: ${available.join(', ')}`);
    }
    return named;
  }
  return llmModels[0] ?? EXTRACTIVE_MODEL_ID;
}
