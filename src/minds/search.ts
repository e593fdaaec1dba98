import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';

/**
 * Recomputes minds.search_text (what GET /minds/search matches, through a trigram index) from
 * the mind's name, email, slug, tag names and social-media values, for the minds matching `where`.
 */
export async function refreshSearchText(db: Db, where: SQL): Promise<void> {
  await db.execute(sql`
    update minds m set search_text = lower(concat_ws(' ',
      m.name, m.email, m.slug,
      (select string_agg(t.name, ' ') from mind_tags mt join tags t on t.id = mt.tag_id where mt.mind_id = m.id),
      (select string_agg(v.value, ' ') from jsonb_each_text(case when jsonb_typeof(m.social_media) = 'object' then m.social_media else '{}'::jsonb end) v)
    ))
    where ${where}
  `);
}

/** Escapes LIKE wildcards so a user's "%" or "_" is matched literally. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}
