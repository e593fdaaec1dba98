/** TypeBox schemas of GET /usage: validation, OpenAPI and TS types. */
import { Type, type Static } from 'typebox';
import { named } from '../../platform/http/schemas.ts';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-11-01' });
export const UsageQuery = Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) });
export type UsageQuery = Static<typeof UsageQuery>;

const Ms = (description: string) => Type.Number({ description, example: 4.2 });

export const Usage = named('Usage', Type.Object({
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
