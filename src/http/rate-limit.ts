/**
 * Rate limits (@fastify/rate-limit), on the authenticated API:
 *
 * - per API key: MINDPRINT_RATE_LIMIT_PER_MINUTE requests per minute (default 3000), counted
 *   after the key is verified, so one client's burst never slows another's;
 * - per client address, for failed authentication: after MINDPRINT_AUTH_FAILURES_PER_MINUTE
 *   failures (default 60) within a minute, every request from that address is refused until the
 *   minute is over, before its key is even looked up (guessing keys, a client with a revoked key
 *   retrying in a loop).
 *
 * Over a limit: 429 RATE_LIMITED with Retry-After and RateLimit-Limit/-Remaining/-Reset (the
 * IETF draft headers), which every limited response carries. Counters are in the process on the
 * embedded database (one process), shared by the replicas through PostgreSQL otherwise
 * (rate-limit-store.ts).
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../auth/authenticate.ts';
import type { AppContext } from '../context.ts';
import { AppError } from './errors.ts';
import { SharedCounters } from './rate-limit-store.ts';

const MINUTE_MS = 60_000;

interface LimitState {
  max: number;
  remaining: number;
  ttlInSeconds: number;
}

function rateLimited(message: string, state: LimitState): AppError {
  const seconds = Math.max(1, state.ttlInSeconds);
  return new AppError('RATE_LIMITED', `${message}; try again in ${seconds} s`, { retryAfterSeconds: seconds }, {
    'retry-after': String(seconds),
    'ratelimit-limit': String(state.max),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(seconds),
  });
}

export interface RateLimits {
  /** Authenticates the request, counting failures per client address and refusing an address over its limit. */
  authenticate(req: FastifyRequest): Promise<Caller>;
}

/**
 * Registers the per-key limiter on `api` (every route registered in it afterwards) and returns
 * the authentication step that applies the per-address limit on failures.
 */
export async function registerRateLimits(api: FastifyInstance, ctx: AppContext): Promise<RateLimits> {
  const { config } = ctx;
  const counters = ctx.database.kind === 'postgres' ? new SharedCounters(ctx.database.execute) : null;
  if (counters) api.addHook('onClose', () => counters.close());
  await api.register(rateLimit, {
    global: config.rateLimitPerMinute > 0,
    max: config.rateLimitPerMinute,
    timeWindow: MINUTE_MS,
    // Route hooks run after the scope's onRequest hook, which has authenticated the caller by now.
    hook: 'onRequest',
    keyGenerator: (req: FastifyRequest) => `key:${req.caller?.apiKeyId ?? `ip:${normalizeIP(req.ip)}`}`,
    enableDraftSpec: true,
    ...(counters ? { store: counters.storeClass() } : { cache: 50_000 }),
    errorResponseBuilder: (_req, context) =>
      rateLimited(`Rate limit exceeded: this API key may make ${context.max} requests per minute`, { max: context.max, remaining: 0, ttlInSeconds: Math.ceil(context.ttl / 1000) }),
  });
  const failureLimit = config.authFailuresPerMinute;
  const failures = failureLimit > 0
    ? api.createRateLimit({ max: failureLimit, timeWindow: MINUTE_MS, keyGenerator: (req: FastifyRequest) => `auth-failures:${normalizeIP(req.ip)}` })
    : null;
  const refuse = (state: LimitState) =>
    rateLimited(`Too many failed authentications from this address (${failureLimit} per minute): every request from it is refused until the minute is over`, state);

  return {
    async authenticate(req) {
      if (!failures) return ctx.auth.authenticate(req);
      const before = await failures(req, { increment: false });
      if (!before.isAllowed && before.isExceeded) throw refuse(before);
      try {
        return await ctx.auth.authenticate(req);
      } catch (err) {
        if (err instanceof AppError && err.code === 'AUTH_FAILED') {
          const after = await failures(req);
          if (!after.isAllowed && after.isExceeded) throw refuse(after);
        }
        throw err;
      }
    },
  };
}
