-- What GET /minds/search matches: the mind's name, email, slug, tag names and social-media values,
-- lower-cased, each between unit separators (U+001F, which nobody types). A query cannot match
-- across two fields ("lovelace ada" no longer finds "Ada Lovelace" through name + slug), and
-- '%' || sep || q || sep || '%' finds an exact field, '%' || sep || q || '%' a field's prefix.
-- refreshSearchText (src/minds/search.ts) calls this after every change to a mind or its tags.
CREATE OR REPLACE FUNCTION mindprint_search_text(m minds) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT E'\x1f' || lower(concat_ws(E'\x1f',
    m.name, m.email, m.slug,
    (SELECT string_agg(t.name, E'\x1f') FROM mind_tags mt JOIN tags t ON t.id = mt.tag_id WHERE mt.mind_id = m.id),
    (SELECT string_agg(v.value, E'\x1f') FROM jsonb_each_text(CASE WHEN jsonb_typeof(m.social_media) = 'object' THEN m.social_media ELSE '{}'::jsonb END) v)
  )) || E'\x1f'
$$;
--> statement-breakpoint
UPDATE minds m SET search_text = mindprint_search_text(m);
