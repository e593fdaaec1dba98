/**
 * Bearer-key authentication. The key lookup is the one query every request would make, so
 * verified keys are cached for a few seconds (revocation through this process drops the entry
 * at once; other replicas see it within the TTL). Last use is recorded in memory and written
 * in batches by the usage flusher, never once per request.
 */
import { eq, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';
import { unauthorized } from '../errors.ts';
import { looksLikeKey } from './key-shape.ts';
import { hashKey } from './keys.ts';
import { LRUCache } from 'lru-cache';

export interface Caller {
  organizationId: string;
  userId: string;
  apiKeyId: string;
}

interface CachedKey {
  caller: Caller | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** The key lookup, a named prepared statement on PostgreSQL (parsed and planned once per connection). */
const prepareKeyLookup = (db: Db) =>
  db
    .select({
      id: apiKeys.id,
      organizationId: apiKeys.organizationId,
      userId: apiKeys.userId,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .prepare('mp_key_lookup');

export class Authenticator {
  /** Verified (and unknown) key hashes for ttlMs, the least recently used dropped past maxEntries. */
  private readonly cache: LRUCache<string, CachedKey>;
  /** keyId → last time it was used, waiting to be flushed. */
  readonly pendingLastUsed = new Map<string, Date>();
  private readonly lookup: ReturnType<typeof prepareKeyLookup>;

  constructor(
    db: Db,
    ttlMs = 2_000,
    maxEntries = 10_000,
  ) {
    this.lookup = prepareKeyLookup(db);
    this.cache = new LRUCache({ max: maxEntries, ttl: ttlMs });
  }

  async authenticate(request: FastifyRequest): Promise<Caller> {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API key>"');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('Malformed Authorization header; expected "Bearer <API key>"');
    const secret = match[1]!;
    if (!looksLikeKey(secret)) throw unauthorized('Invalid API key', true);
    const hash = hashKey(secret);
    const now = Date.now();
    const entry = this.cache.get(hash) ?? (await this.load(hash));
    if (!entry.caller) throw unauthorized('Invalid API key', true);
    if (entry.revokedAt) throw unauthorized('This API key has been revoked', true);
    if (entry.expiresAt && entry.expiresAt.getTime() <= now) throw unauthorized('This API key has expired', true);
    this.pendingLastUsed.set(entry.caller.apiKeyId, new Date(now));
    return entry.caller;
  }

  private async load(hash: string): Promise<CachedKey> {
    const [row] = await this.lookup.execute({ hash });
    const entry: CachedKey = {
      caller: row ? { organizationId: row.organizationId, userId: row.userId, apiKeyId: row.id } : null,
      expiresAt: row?.expiresAt ?? null,
      revokedAt: row?.revokedAt ?? null,
    };
    this.cache.set(hash, entry);
    return entry;
  }

  /** Drop cached entries of a key (after it is revoked through this process). */
  forgetKey(keyId: string): void {
    for (const [hash, entry] of this.cache.entries()) if (entry.caller?.apiKeyId === keyId) this.cache.delete(hash);
  }

  /** Drop the cached entry of a key hash: the key was created, revoked or deleted, possibly by another process. */
  forgetHash(hash: string): void {
    this.cache.delete(hash);
  }

  /** Drop every cached key (changes may have been missed). */
  forgetAll(): void {
    this.cache.clear();
  }
}
