import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../platform/db/client.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import { mindTags, tags } from '../../platform/db/schema.ts';
import { conflict, invalid, notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import { refreshSearchText } from '../../platform/db/search-text.ts';
import type { RenameTagBody, TagParams } from './schemas.ts';

type TagRow = typeof tags.$inferSelect;

export const toTag = (t: TagRow) => ({
  id: t.id,
  name: t.name,
  organizationId: t.organizationId,
  createdAt: iso(t.createdAt),
  updatedAt: iso(t.updatedAt),
});

/** Tag names are matched as a comma-separated list (?tagNames=a,b), so a name with a comma could never be found. */
function assertNoComma(name: string, field: string): void {
  if (name.includes(',')) throw invalid(`${field} must not contain a comma: tag names are filtered as a comma-separated list`, { field });
}

/** Parses tag names from "a, b,A" or ["a","b"]: trimmed, de-duplicated without regard to case, first spelling kept. */
export function parseTagNames(input: string | string[] | undefined, field = 'tags'): string[] {
  if (input === undefined) return [];
  const raw = Array.isArray(input) ? input : input.split(',');
  const seen = new Set<string>();
  const names: string[] = [];
  for (const [i, part] of raw.entries()) {
    const name = part.trim().replace(/\s+/g, ' ');
    const at = Array.isArray(input) ? `${field}.${i}` : field;
    if (!name) {
      if (Array.isArray(input) || input.trim() !== '') {
        // "a,,b" or [" "]: a name that is empty after trimming is a mistake worth reporting.
        throw invalid(`${at} contains an empty tag name`, { field: at });
      }
      continue;
    }
    if (name.length > 100) throw invalid(`${at} has a tag name longer than 100 characters`, { field: at });
    assertNoComma(name, at);
    const key = name.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      names.push(name);
    }
  }
  return names;
}

/** Finds or creates the organization's tags with these names; returns their ids. */
export async function ensureTags(db: Db, organizationId: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  // In a stable order, so two transactions inserting the same new names cannot deadlock.
  const sorted = [...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
  await db
    .insert(tags)
    .values(sorted.map((name) => ({ organizationId, name })))
    .onConflictDoNothing();
  const lower = names.map((n) => n.toLowerCase());
  const rows = await db
    .select({ id: tags.id })
    .from(tags)
    .where(and(eq(tags.organizationId, organizationId), inArray(sql`lower(${tags.name})`, lower)));
  return rows.map((r) => r.id);
}

/** Replaces a mind's tag set (inside the caller's transaction). */
export async function setMindTagIds(db: Db, mindId: string, tagIds: string[]): Promise<void> {
  await db.delete(mindTags).where(eq(mindTags.mindId, mindId));
  if (tagIds.length) await db.insert(mindTags).values(tagIds.map((tagId) => ({ mindId, tagId }))).onConflictDoNothing();
}

export async function listTags({ db }: Pick<Deps, 'db'>, caller: Caller) {
  const rows = await db
    .select({ tag: tags, mindCount: sql<number>`(select count(*)::int from ${mindTags} where ${mindTags.tagId} = ${tags.id})` })
    .from(tags)
    .where(eq(tags.organizationId, caller.organizationId))
    .orderBy(sql`lower(${tags.name})`);
  return rows.map((r) => ({ ...toTag(r.tag), mindCount: Number(r.mindCount) }));
}

export async function renameTag({ db }: Pick<Deps, 'db'>, caller: Caller, { tagId, name }: TagParams & RenameTagBody) {
  const clean = name.trim().replace(/\s+/g, ' ');
  if (!clean) throw invalid('body.name must not be empty', { field: 'body.name' });
  assertNoComma(clean, 'body.name');
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .update(tags)
        .set({ name: clean, updatedAt: new Date() })
        .where(and(eq(tags.id, tagId), eq(tags.organizationId, caller.organizationId)))
        .returning();
      if (!row) throw notFound('Tag');
      await refreshSearchText(tx, sql`id in (select mind_id from mind_tags where tag_id = ${tagId})`);
      return toTag(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A tag named "${clean}" already exists`);
    throw err;
  }
}

export async function deleteTag({ db }: Pick<Deps, 'db'>, caller: Caller, { tagId }: TagParams): Promise<void> {
  await db.transaction(async (tx) => {
    const affected = await tx.select({ mindId: mindTags.mindId }).from(mindTags).where(eq(mindTags.tagId, tagId));
    const [row] = await tx
      .delete(tags)
      .where(and(eq(tags.id, tagId), eq(tags.organizationId, caller.organizationId)))
      .returning({ id: tags.id });
    if (!row) throw notFound('Tag');
    if (affected.length) await refreshSearchText(tx, sql`id in (${sql.join(affected.map((a) => sql`${a.mindId}::uuid`), sql`, `)})`);
  });
}
