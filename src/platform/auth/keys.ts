/**
 * API keys: `mp_` + 32 random bytes (base64url). Only the SHA-256 of a key is stored; the secret
 * is returned once, when it is created. Organizations and users are created on demand here too,
 * since a key always belongs to a user of an organization.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { apiKeys, organizations, users } from '../db/schema.ts';

export const KEY_PREFIX = 'mp_';

export function generateKeySecret(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * The first characters of a key, stored to tell keys apart in listings. A generated key shows
 * `mp_` and four of its 43 random characters; a secret chosen by hand (MINDPRINT_BOOTSTRAP_KEY,
 * perhaps only 16 characters) shows at most a sixth of itself, so the listing never gives away
 * a useful part of a short secret.
 */
export function displayPrefix(secret: string): string {
  return secret.slice(0, Math.min(7, Math.floor(secret.length / 6)));
}

export interface IssuedKey {
  key: string;
  keyId: string;
  userId: string;
  organizationId: string;
  name: string | null;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface ApiKeyInfo {
  id: string;
  name: string | null;
  prefix: string;
  organizationId: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export async function ensureOrganization(db: Db, name: string): Promise<string> {
  await db.insert(organizations).values({ name }).onConflictDoNothing();
  const [org] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.name, name));
  return org!.id;
}

export async function ensureUser(db: Db, organizationId: string, email: string, name?: string): Promise<string> {
  const existing = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organizationId, organizationId), sql`lower(${users.email}) = lower(${email})`));
  if (existing[0]) return existing[0].id;
  const [user] = await db
    .insert(users)
    .values({ organizationId, email, name: name ?? email.split('@')[0]! })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (user) return user.id;
  return ensureUser(db, organizationId, email, name);
}

export async function issueKey(
  db: Db,
  input: { organizationId: string; userId: string; name?: string | null; expiresInDays?: number | null; secret?: string },
): Promise<IssuedKey> {
  const key = input.secret ?? generateKeySecret();
  const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null;
  const [row] = await db
    .insert(apiKeys)
    .values({
      organizationId: input.organizationId,
      userId: input.userId,
      name: input.name ?? null,
      keyHash: hashKey(key),
      prefix: displayPrefix(key),
      expiresAt,
    })
    .returning();
  return {
    key,
    keyId: row!.id,
    userId: row!.userId,
    organizationId: row!.organizationId,
    name: row!.name,
    createdAt: row!.createdAt,
    expiresAt: row!.expiresAt,
  };
}

/** Creates the organization and user when missing, then a key: what `mindprint keys create` does. */
export async function createKeyFor(
  db: Db,
  input: { org: string; user: string; name?: string | null; expiresInDays?: number | null; secret?: string },
): Promise<IssuedKey> {
  const organizationId = await ensureOrganization(db, input.org);
  const userId = await ensureUser(db, organizationId, input.user);
  return issueKey(db, { organizationId, userId, name: input.name, expiresInDays: input.expiresInDays, secret: input.secret });
}

const keyInfoColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  organizationId: apiKeys.organizationId,
  userId: apiKeys.userId,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
  lastUsedAt: apiKeys.lastUsedAt,
};

export async function listKeys(db: Db, filter: { organizationId?: string; userId?: string }): Promise<ApiKeyInfo[]> {
  const conditions = [];
  if (filter.organizationId) conditions.push(eq(apiKeys.organizationId, filter.organizationId));
  if (filter.userId) conditions.push(eq(apiKeys.userId, filter.userId));
  return db
    .select(keyInfoColumns)
    .from(apiKeys)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(apiKeys.createdAt));
}

export async function listKeysWithOrg(db: Db, orgName?: string) {
  return db
    .select({ ...keyInfoColumns, organization: organizations.name, userEmail: users.email })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(orgName ? eq(organizations.name, orgName) : undefined)
    .orderBy(desc(apiKeys.createdAt));
}

/** Revokes a key; `scope` limits which keys may be revoked (a caller may revoke only their own). Returns false when no such key. */
export async function revokeKey(db: Db, keyId: string, scope: { userId?: string } = {}): Promise<ApiKeyInfo | null> {
  const conditions = [eq(apiKeys.id, keyId)];
  if (scope.userId) conditions.push(eq(apiKeys.userId, scope.userId));
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(and(...conditions))
    .returning(keyInfoColumns);
  return row ?? null;
}

export async function countKeys(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(apiKeys);
  return row!.n;
}
