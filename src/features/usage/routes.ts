import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { Usage, UsageQuery } from './schemas.ts';
import { usageFor } from './service.ts';

export const usageRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/usage', {
    schema: {
      tags: ['Usage'],
      summary: 'Usage of the calling API key',
      description: 'Request counts and latencies (ms, measured in the server) of the calling key between `from` and `to` (inclusive UTC days; default the last 30 days). Percentiles come from a log-scale histogram (±2.5%).',
      querystring: UsageQuery,
      response: { 200: Usage, ...errorResponses() },
    },
  }, async (req) => usageFor(deps, req.caller, req.query));
};
