/**
 * The calling user's API keys: list, create, revoke. Keys belong to a user; every query is scoped
 * to the caller's own (the hashing and storing of keys is platform/auth/keys.ts).
 */
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../platform/auth/authenticate.ts';
import { issueKey, listKeys, revokeKey } from '../../platform/auth/keys.ts';
import { notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { ApiKey, CreatedKey, CreateKeyBody, KeyParams } from './schemas.ts';

const toApiKey = (k: Awaited<ReturnType<typeof listKeys>>[number]): ApiKey => ({
  ...k,
  createdAt: iso(k.createdAt)!,
  expiresAt: iso(k.expiresAt),
  revokedAt: iso(k.revokedAt),
  lastUsedAt: iso(k.lastUsedAt),
});

export async function listApiKeys({ db }: Pick<Deps, 'db'>, caller: Caller): Promise<ApiKey[]> {
  return (await listKeys(db, { userId: caller.userId })).map(toApiKey);
}

/** A new key for the caller; its secret is in the answer once and never again. */
export async function createApiKey({ db }: Pick<Deps, 'db'>, caller: Caller, input: CreateKeyBody): Promise<CreatedKey> {
  const issued = await issueKey(db, { organizationId: caller.organizationId, userId: caller.userId, name: input.name, expiresInDays: input.expiresInDays });
  const [info] = (await listKeys(db, { userId: caller.userId })).filter((k) => k.id === issued.keyId);
  return { key: issued.key, apiKey: toApiKey(info!) };
}

/** Revokes one of the caller's own keys; this process forgets it at once (the others through the change feed). */
export async function revokeApiKey({ db, auth }: Pick<Deps, 'db' | 'auth'>, caller: Caller, { keyId }: KeyParams): Promise<ApiKey> {
  const revoked = await revokeKey(db, keyId, { userId: caller.userId });
  if (!revoked) throw notFound('API key');
  auth.forgetKey(revoked.id);
  return toApiKey(revoked);
}
