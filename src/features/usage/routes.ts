import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses, named } from '../../platform/http/schemas.ts';
import { usageFor } from './service.ts';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-11-01' });
const Ms = (description: string) => Type.Number({ description, example: 4.2 });

const Usage = named('Usage', Type.Object({
  from: Day,
  to: Day,
  successCount: Type.Number(),
  errorCount: Type.Number(),
  totalCount: Type.Number(),
  averageLatency: Ms('Mean latency'),
  minLatency: Ms('Fastest request'),
  maxLatency: Ms('Slowest request'),
  medianLatency: Ms('50th percentile'),
  p90Latency: Ms('90th percentile'),
  p95Latency: Ms('95th percentile'),
  p99Latency: Ms('99th percentile'),
  operations: Type.Array(
    Type.Object({ operation: Type.String({ example: 'GET /minds/{mindId}' }), successCount: Type.Number(), errorCount: Type.Number(), totalCount: Type.Number() }),
  ),
  days: Type.Array(Type.Object({ day: Day, successCount: Type.Number(), errorCount: Type.Number(), totalCount: Type.Number() }), {
    description: 'Requests per UTC day, oldest first; days without requests are left out',
  }),
}));

export const usageRoutes: FastifyPluginAsyncTypebox<{ ctx: Deps }> = async (app, { ctx }) => {
  app.get('/usage', {
    schema: {
      tags: ['Usage'],
      summary: 'Usage of the calling API key',
      description: 'Request counts and latencies (ms, measured in the server) of the calling key between `from` and `to` (inclusive UTC days; default the last 30 days). Percentiles come from a log-scale histogram (±2.5%).',
      querystring: Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) }),
      response: { 200: Usage, ...errorResponses() },
    },
  }, async (req) => usageFor(ctx.db, ctx.usage, req.caller, req.query));
};
