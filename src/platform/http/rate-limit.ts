/**
 * Rate limits (@fastify/rate-limit), on every authenticated surface (the API and /mcp):
 *
 * - per API key: MINDPRINT_RATE_LIMIT_PER_MINUTE requests per minute (default 3000), counted
 *   after the key is verified, so one client's burst never slows another's;
 * - per client address, for failed keys: after MINDPRINT_AUTH_FAILURES_PER_MINUTE refused keys
 *   (default 60) within a minute, every request from that address that carries a key is refused
 *   until the minute is over, before its key is even looked up (guessing keys, a client with a
 *   revoked key retrying in a loop). Only requests that present a key count: a request without
 *   one (a browser's CORS preflight, a health check, a page behind a shared NAT) cannot guess
 *   anything, and counting it would let keyless traffic lock out every valid key from the same
 *   address. One limiter serves the API and /mcp (registered on the root, decorated as
 *   `authenticateCaller`), so no surface gives a guesser a separate budget.
 *
 * Over a limit: 429 RATE_LIMITED with Retry-After and RateLimit-Limit/-Remaining/-Reset (the
 * IETF draft headers), which every limited response carries. Counters are in the process on the
 * embedded database (one process), shared by the replicas through PostgreSQL otherwise
 * (rate-limit-store.ts).
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Caller } from '../auth/authenticate.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../db/client.ts';
import { DomainError } from '../errors.ts';
import { HttpError } from './errors.ts';
import { SharedCounters } from './rate-limit-store.ts';

const MINUTE_MS = 60_000;

interface LimitState {
  max: number;
  remaining: number;
  ttlInSeconds: number;
}

function rateLimited(message: string, state: LimitState): HttpError {
  const seconds = Math.max(1, state.ttlInSeconds);
  return new HttpError('RATE_LIMITED', `${message}; try again in ${seconds} s`, { retryAfterSeconds: seconds }, {
    'retry-after': String(seconds),
    'ratelimit-limit': String(state.max),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(seconds),
  });
}

export interface RateLimits {
  /** Authenticates the request, counting failed keys per client address and refusing an address over its limit. */
  authenticate(req: FastifyRequest): Promise<Caller>;
  /** Registers the per-key limiter on `api` (every route registered in it afterwards). */
  limitKeys(api: FastifyInstance): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The authentication step of every authenticated surface, with the failed-key limit (see registerRateLimits). */
    authenticateCaller(req: FastifyRequest): Promise<Caller>;
  }
}

/** A request that presents a key (a Bearer token, well-formed or not): only these count as failures. */
export function presentsKey(req: FastifyRequest): boolean {
  return /^\s*Bearer\s+\S/i.test(req.headers.authorization ?? '');
}

/**
 * Registers the failed-key limiter on the root `app` (decorating it with `authenticateCaller`, for
 * the scopes outside the API such as /mcp) and returns it with the per-key limiter to register on
 * the API scope. Call before any authenticated route is registered.
 */
/** What the limits need of the process: its settings, its database (shared counters on PostgreSQL) and the key check. */
export interface RateLimitDeps {
  config: Config;
  database: Pick<Database, 'kind' | 'execute'>;
  auth: Pick<Authenticator, 'authenticate'>;
}

export async function registerRateLimits(app: FastifyInstance, ctx: RateLimitDeps): Promise<RateLimits> {
  const { config } = ctx;
  const counters = ctx.database.kind === 'postgres' ? new SharedCounters(ctx.database.execute) : null;
  if (counters) app.addHook('onClose', () => counters.close());
  const store = () => (counters ? { store: counters.storeClass() } : { cache: 50_000 });
  // On the root with no global limit: it limits no route itself, it provides createRateLimit
  // (the failed-key counter) to every scope. The per-key limiter registers again in the API scope.
  await app.register(rateLimit, { global: false, hook: 'onRequest', enableDraftSpec: true, ...store() });
  const failureLimit = config.authFailuresPerMinute;
  const failures = failureLimit > 0
    ? app.createRateLimit({ max: failureLimit, timeWindow: MINUTE_MS, keyGenerator: (req: FastifyRequest) => `auth-failures:${normalizeIP(req.ip)}` })
    : null;
  const refuse = (state: LimitState) =>
    rateLimited(`Too many failed authentications from this address (${failureLimit} per minute): every request from it with a key is refused until the minute is over`, state);

  const authenticate = async (req: FastifyRequest): Promise<Caller> => {
    // Without a key the answer is a 401 whatever the count: nothing to guess, nothing to count.
    if (!failures || !presentsKey(req)) return ctx.auth.authenticate(req);
    const before = await failures(req, { increment: false });
    if (!before.isAllowed && before.isExceeded) throw refuse(before);
    try {
      return await ctx.auth.authenticate(req);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'AUTH_FAILED') {
        const after = await failures(req);
        if (!after.isAllowed && after.isExceeded) throw refuse(after);
      }
      throw err;
    }
  };
  app.decorate('authenticateCaller', authenticate);

  return {
    authenticate,
    async limitKeys(api) {
      await api.register(rateLimit, {
        global: config.rateLimitPerMinute > 0,
        max: config.rateLimitPerMinute,
        timeWindow: MINUTE_MS,
        // Route hooks run after the scope's onRequest hook, which has authenticated the caller by now.
        hook: 'onRequest',
        keyGenerator: (req: FastifyRequest) => `key:${req.caller?.apiKeyId ?? `ip:${normalizeIP(req.ip)}`}`,
        enableDraftSpec: true,
        ...store(),
        errorResponseBuilder: (_req, context) =>
          rateLimited(`Rate limit exceeded: this API key may make ${context.max} requests per minute`, { max: context.max, remaining: 0, ttlInSeconds: Math.ceil(context.ttl / 1000) }),
      });
    },
  };
}
