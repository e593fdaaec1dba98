/**
 * minds.search_text is derived data kept by the SQL function mindprint_search_text() (drizzle/
 * 0001_search_separator.sql): a mind's own writes and a tag's rename or deletion both refresh it,
 * so it lives here, below both features, rather than in either.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from './client.ts';

/**
 * Recomputes minds.search_text (what GET /minds/search matches, through a trigram index) from
 * the mind's name, email, slug, tag names and social-media values, for the minds matching `where`.
 */
export async function refreshSearchText(db: Db, where: SQL): Promise<void> {
  await db.execute(sql`update minds m set search_text = mindprint_search_text(m) where ${where}`);
}
