import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { MindParams } from '../minds/index.ts';
import { SemanticIndexResponse } from './schemas.ts';
import { semanticIndexState } from './state.ts';

export const memoryRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const memory = deps.memory;
  app.get('/minds/:mindId/semantic-index', {
    schema: {
      tags: ['Analysis'],
      summary: 'Semantic index of a mind',
      description:
        'Where the semantic memory stands: every turn of the mind and the question it answered get a sentence embedding after the snapshot completes (a background job, so `completed` does not wait for it), and a change of embedder re-embeds every snapshot. Simulations search full text and these vectors together; snapshots not embedded yet are found by full text only.',
      params: MindParams,
      response: { 200: SemanticIndexResponse, ...errorResponses(404) },
    },
  }, async (req) => semanticIndexState(memory, req.caller, req.params.mindId));
};
