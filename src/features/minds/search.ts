/**
 * The separator between the fields of minds.search_text (U+001F, "unit separator"): nobody types
 * it, so a query cannot match across two fields, and a field's exact value and prefix can be
 * matched by putting it around the query. See mindprint_search_text() in drizzle/0001_search_separator.sql.
 */
export const SEARCH_SEPARATOR = '\u001f';

/** Escapes LIKE wildcards so a user's "%" or "_" is matched literally. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** LIKE patterns for a (lower-cased) query: any field equal to it, starting with it, containing it. */
export function searchPatterns(q: string): { exact: string; prefix: string; substring: string } {
  const e = likeEscape(q);
  return { exact: `%${SEARCH_SEPARATOR}${e}${SEARCH_SEPARATOR}%`, prefix: `%${SEARCH_SEPARATOR}${e}%`, substring: `%${e}%` };
}
