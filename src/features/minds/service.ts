/**
 * Minds: the people whose transcripts make up a memory bank. Every function takes the caller
 * first and scopes every query by the caller's organization; another organization's mind is
 * indistinguishable from one that does not exist.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import { inTransaction } from '../../platform/events/index.ts';
import { lockForTransaction, rowsOf, runStatement, statement, type Db } from '../../platform/db/client.ts';
import { digitalTwins, minds } from '../../platform/db/schema.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import { ensureTags, parseTagNames, setMindTagIds } from '../tags/index.ts';
import { SEARCH_LIMIT, type CreateMindBody, type DigitalTwin, type Mind, type UpdateMindBody } from './schemas.ts';
import { searchPatterns } from './search.ts';
import { refreshSearchText } from '../../platform/db/search-text.ts';
import { slugify } from './slug.ts';

interface MindRow {
  id: string;
  name: string;
  slug: string;
  email: string | null;
  imageUrl: string | null;
  socialMedia: Record<string, unknown> | null;
  scope: string;
  isSelf: boolean;
  organizationId: string;
  createdAt: string | Date;
  updatedAt: string | Date;
  tags: { id: string; name: string; organizationId: string; createdAt: string; updatedAt: string }[] | string;
  snapshotCount: number | string;
  psychometricCount: number | string;
  keyTopicCount: number | string;
  findingCount: number | string;
}

/** A timestamptz as ISO 8601 UTC text (what the API returns), formatted by the database. */
const isoText = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface Page {
  limit?: number;
  offset?: number;
}

const NEWEST_FIRST = sql`m.created_at desc, m.id`;

/** One statement fetches minds with their tags and counts: no query per mind. */
function selectMinds(where: SQL, orderBy: SQL | null, tail: SQL = sql``): SQL {
  return sql`
    select m.id, m.name, m.slug, m.email, m.image_url as "imageUrl", m.social_media as "socialMedia",
      m.scope, m.is_self as "isSelf", m.organization_id as "organizationId",
      m.created_at as "createdAt", m.updated_at as "updatedAt",
      coalesce((
        select json_agg(json_build_object('id', t.id, 'name', t.name, 'organizationId', t.organization_id,
          'createdAt', ${isoText(sql`t.created_at`)}, 'updatedAt', ${isoText(sql`t.updated_at`)}) order by lower(t.name))
        from mind_tags mt join tags t on t.id = mt.tag_id where mt.mind_id = m.id
      ), '[]'::json) as tags,
      c.snapshot_count as "snapshotCount", c.psychometric_count as "psychometricCount",
      c.key_topic_count as "keyTopicCount", c.finding_count as "findingCount"
    from minds m
    cross join lateral (
      select count(*)::int as snapshot_count,
        coalesce(sum(s.psychometric_count), 0)::int as psychometric_count,
        coalesce(sum(s.key_topic_count), 0)::int as key_topic_count,
        coalesce(sum(s.finding_count), 0)::int as finding_count
      -- A failed snapshot counts nowhere (a failed re-run may still hold its earlier counts).
      from snapshots s where s.mind_id = m.id and s.status <> 'failed'
    ) c
    where ${where}
    ${orderBy ? sql`order by ${orderBy}` : sql``}
    ${tail}
  `;
}

// The hot reads, prepared (see Statement). Listing pages has statements of its own: with LIMIT
// as a parameter PostgreSQL keeps planning the unpaged list per execution instead of settling on a
// generic plan.
const GET_MIND = statement('mp_get_mind', selectMinds(sql.raw('m.id = $1 and m.organization_id = $2'), null));
const TAGGED = `exists (select 1 from mind_tags mt join tags t on t.id = mt.tag_id where mt.mind_id = m.id and lower(t.name) = any($2::text[]))`;
const LIST_MINDS = {
  all: statement('mp_list_minds', selectMinds(sql.raw('m.organization_id = $1'), NEWEST_FIRST)),
  allPage: statement('mp_list_minds_page', selectMinds(sql.raw('m.organization_id = $1'), NEWEST_FIRST, sql.raw('limit $2 offset $3'))),
  tagged: statement('mp_list_minds_tagged', selectMinds(sql.raw(`m.organization_id = $1 and ${TAGGED}`), NEWEST_FIRST)),
  taggedPage: statement('mp_list_minds_tagged_page', selectMinds(sql.raw(`m.organization_id = $1 and ${TAGGED}`), NEWEST_FIRST, sql.raw('limit $3 offset $4'))),
};

function toMind(r: MindRow): Mind {
  const tagList = typeof r.tags === 'string' ? JSON.parse(r.tags) : r.tags;
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    email: r.email,
    imageUrl: r.imageUrl,
    socialMedia: r.socialMedia,
    scope: r.scope,
    isSelf: r.isSelf,
    organizationId: r.organizationId,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    tags: tagList,
    snapshotCount: Number(r.snapshotCount),
    psychometricCount: Number(r.psychometricCount),
    keyTopicCount: Number(r.keyTopicCount),
    findingCount: Number(r.findingCount),
  };
}

const toTwin = (t: typeof digitalTwins.$inferSelect): DigitalTwin => ({
  id: t.id,
  name: t.name,
  mindId: t.mindId,
  isDefault: t.isDefault,
  createdAt: iso(t.createdAt)!,
  updatedAt: iso(t.updatedAt)!,
});

export async function getMind(db: Db, caller: Caller, mindId: string): Promise<Mind> {
  const [row] = await runStatement<MindRow>(db, GET_MIND, [mindId, caller.organizationId]);
  if (!row) throw notFound('Mind');
  return toMind(row);
}

/** Throws 404 unless the mind exists in the caller's organization; cheaper than getMind. */
export async function assertMindExists(db: Db, caller: Caller, mindId: string): Promise<{ id: string; name: string }> {
  const [row] = await db
    .select({ id: minds.id, name: minds.name })
    .from(minds)
    .where(and(eq(minds.id, mindId), eq(minds.organizationId, caller.organizationId)));
  if (!row) throw notFound('Mind');
  return row;
}

/** Newest first; with tag names, the minds carrying any of them. An empty `tagNames` is no filter. */
export async function listMinds(db: Db, caller: Caller, filter: { tagNames?: string } & Page): Promise<Mind[]> {
  const names = filter.tagNames !== undefined ? parseTagNames(filter.tagNames.split(',').filter((s) => s.trim()), 'querystring.tagNames') : [];
  const paged = filter.limit !== undefined || Boolean(filter.offset);
  const values: unknown[] = [caller.organizationId];
  if (names.length) values.push(names.map((n) => n.toLowerCase()));
  if (paged) values.push(filter.limit ?? null, filter.offset ?? 0);
  const st = names.length ? (paged ? LIST_MINDS.taggedPage : LIST_MINDS.tagged) : paged ? LIST_MINDS.allPage : LIST_MINDS.all;
  return (await runStatement<MindRow>(db, st, values)).map(toMind);
}

/**
 * Case-insensitive partial match on name, email, slug, tag names and social-media values, through
 * the trigram index on search_text. Best first: a field equal to the query, then a field starting
 * with it, then any containing it; within each, by name.
 */
export async function searchMinds(db: Db, caller: Caller, query: { query: string; limit?: number }): Promise<Mind[]> {
  // Control characters are no one's search; removing them keeps the field separator out of the query.
  const q = [...query.query].filter((c) => c > '\u001f' && c !== '\u007f').join('').trim().toLowerCase();
  if (!q) throw invalid('querystring.query must not be empty', { field: 'querystring.query' });
  const p = searchPatterns(q);
  const rows = await db.execute(
    selectMinds(
      sql`m.organization_id = ${caller.organizationId} and m.search_text like ${p.substring}`,
      sql`case when m.search_text like ${p.exact} then 0 when m.search_text like ${p.prefix} then 1 else 2 end, lower(m.name), m.created_at desc`,
      sql`limit ${query.limit ?? SEARCH_LIMIT}`,
    ),
  );
  return rowsOf<MindRow>(rows).map(toMind);
}

/**
 * A slug for `name` that no other mind of the organization has. Call inside a transaction: it
 * first takes a transaction-scoped advisory lock on the slug's stem, so concurrent creates and
 * renames that could pick the same slug run one after another (the second then sees the first's
 * committed row), on PostgreSQL as on PGlite.
 */
async function uniqueSlug(tx: Db, organizationId: string, name: string, exceptMindId?: string): Promise<string> {
  const base = slugify(name);
  // Every candidate is base or base-N, and "ada-2" (a mind named "Ada 2") competes with "ada"'s
  // second slug: lock on the base without trailing -N groups, which all of them share.
  const stem = base.replace(/(-\d+)+$/, '') || base;
  await lockForTransaction(tx, `${organizationId}:slug:${stem}`);
  const taken = await tx
    .select({ slug: minds.slug })
    .from(minds)
    .where(
      and(
        eq(minds.organizationId, organizationId),
        sql`(${minds.slug} = ${base} or ${minds.slug} ~ ${`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[0-9]+$`})`,
        exceptMindId ? sql`${minds.id} <> ${exceptMindId}` : undefined,
      ),
    );
  const used = new Set(taken.map((t) => t.slug));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

export async function createMind(db: Db, caller: Caller, input: CreateMindBody): Promise<{ mind: Mind; digitalTwin: DigitalTwin }> {
  const tagNames = parseTagNames(input.tags, 'body.tags');
  const name = input.name.trim();
  const created = await db.transaction(async (tx) => {
    const slug = await uniqueSlug(tx, caller.organizationId, name);
    const [row] = await tx
      .insert(minds)
      .values({
        organizationId: caller.organizationId,
        name,
        slug,
        email: input.email ?? null,
        imageUrl: input.imageUrl ?? null,
        socialMedia: input.socialMedia ?? null,
        isSelf: input.isSelf ?? false,
      })
      .returning({ id: minds.id });
    const [twin] = await tx.insert(digitalTwins).values({ mindId: row!.id, name: 'Default Twin', isDefault: true }).returning();
    await setMindTagIds(tx, row!.id, await ensureTags(tx, caller.organizationId, tagNames));
    await refreshSearchText(tx, sql`id = ${row!.id}`);
    // The answer is read before the commit: a connection lost after committing would otherwise
    // answer 503 for a mind that was stored (found by the PostgreSQL-restart test).
    return { mind: await getMind(tx, caller, row!.id), twin: twin! };
  });
  return { mind: created.mind, digitalTwin: toTwin(created.twin) };
}

export async function updateMind(db: Db, caller: Caller, mindId: string, input: UpdateMindBody): Promise<Mind> {
  const tagNames = input.tags !== undefined ? parseTagNames(input.tags, 'body.tags') : null;
  return db.transaction(async (tx) => {
    const existing = await assertMindExists(tx, caller, mindId);
    const changes: Partial<typeof minds.$inferInsert> = { updatedAt: new Date() };
    if (input.name !== undefined && input.name.trim() !== existing.name) {
      changes.name = input.name.trim();
      changes.slug = await uniqueSlug(tx, caller.organizationId, changes.name, mindId);
    }
    if (input.email !== undefined) changes.email = input.email;
    if (input.imageUrl !== undefined) changes.imageUrl = input.imageUrl;
    if (input.socialMedia !== undefined) changes.socialMedia = input.socialMedia;
    if (input.isSelf !== undefined) changes.isSelf = input.isSelf;
    await tx.update(minds).set(changes).where(eq(minds.id, mindId));
    if (tagNames) await setMindTagIds(tx, mindId, await ensureTags(tx, caller.organizationId, tagNames));
    await refreshSearchText(tx, sql`id = ${mindId}`);
    return getMind(tx, caller, mindId);
  });
}

export async function setMindTags(db: Db, caller: Caller, mindId: string, tagNamesInput: string | string[]): Promise<Mind> {
  const names = parseTagNames(tagNamesInput, 'body.tagNames');
  await db.transaction(async (tx) => {
    await assertMindExists(tx, caller, mindId);
    await setMindTagIds(tx, mindId, await ensureTags(tx, caller.organizationId, names));
    await tx.update(minds).set({ updatedAt: new Date() }).where(eq(minds.id, mindId));
    await refreshSearchText(tx, sql`id = ${mindId}`);
  });
  return getMind(db, caller, mindId);
}

/**
 * Deletes the mind and, through cascades, its twin, tag links, snapshots, turns, analysis and
 * simulations, emitting `mind.deleted` in the same transaction: what keeps more of a mind
 * (the snapshots' stored files) follows the event, after the commit.
 */
export async function deleteMind(ctx: Pick<Deps, 'db' | 'events'>, caller: Caller, mindId: string): Promise<void> {
  await inTransaction(ctx.db, async (tx, after) => {
    const [deleted] = await tx
      .delete(minds)
      .where(and(eq(minds.id, mindId), eq(minds.organizationId, caller.organizationId)))
      .returning({ id: minds.id });
    if (!deleted) throw notFound('Mind');
    await ctx.events.emit(tx, 'mind.deleted', { organizationId: caller.organizationId, mindId }, after);
  });
}

export async function getDefaultTwinId(db: Db, mindId: string): Promise<string | null> {
  const [twin] = await db
    .select({ id: digitalTwins.id })
    .from(digitalTwins)
    .where(and(eq(digitalTwins.mindId, mindId), eq(digitalTwins.isDefault, true)));
  return twin?.id ?? null;
}
