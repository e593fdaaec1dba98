-- Cross-process invalidation of the read caches (see src/db/change-feed.ts). Every write that can
-- change a Mind as the API returns it (the mind, its tag links, a tag's name, its snapshots and
-- their analysis counts) notifies 'mindprint_minds' with the organization's id; every write that
-- can change what a key lookup answers notifies 'mindprint_keys' with the key's hash. PostgreSQL
-- delivers notifications at commit and folds identical ones of a transaction into one, so a
-- bulk change costs one message per organization. Without a listener (PGlite, where this process
-- invalidates its own cache) a notification is simply dropped.
CREATE OR REPLACE FUNCTION mindprint_notify_mind_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  org uuid;
  r record;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  IF TG_TABLE_NAME = 'mind_tags' THEN
    SELECT organization_id INTO org FROM minds WHERE id = r.mind_id;
    IF org IS NULL THEN SELECT organization_id INTO org FROM tags WHERE id = r.tag_id; END IF;
  ELSE
    org := r.organization_id;
  END IF;
  -- A cascade from a deleted mind or tag finds neither; that delete notified already.
  IF org IS NOT NULL THEN PERFORM pg_notify('mindprint_minds', org::text); END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER minds_notify AFTER INSERT OR UPDATE OR DELETE ON minds FOR EACH ROW EXECUTE FUNCTION mindprint_notify_mind_change();
--> statement-breakpoint
CREATE TRIGGER mind_tags_notify AFTER INSERT OR UPDATE OR DELETE ON mind_tags FOR EACH ROW EXECUTE FUNCTION mindprint_notify_mind_change();
--> statement-breakpoint
CREATE TRIGGER tags_notify AFTER UPDATE OR DELETE ON tags FOR EACH ROW EXECUTE FUNCTION mindprint_notify_mind_change();
--> statement-breakpoint
CREATE TRIGGER snapshots_notify_insert_delete AFTER INSERT OR DELETE ON snapshots FOR EACH ROW EXECUTE FUNCTION mindprint_notify_mind_change();
--> statement-breakpoint
CREATE TRIGGER snapshots_notify_counts AFTER UPDATE ON snapshots FOR EACH ROW
  WHEN (OLD.mind_id IS DISTINCT FROM NEW.mind_id OR OLD.psychometric_count IS DISTINCT FROM NEW.psychometric_count
    OR OLD.key_topic_count IS DISTINCT FROM NEW.key_topic_count OR OLD.finding_count IS DISTINCT FROM NEW.finding_count)
  EXECUTE FUNCTION mindprint_notify_mind_change();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION mindprint_notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('mindprint_keys', OLD.key_hash);
  ELSE
    PERFORM pg_notify('mindprint_keys', NEW.key_hash);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER api_keys_notify_insert_delete AFTER INSERT OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION mindprint_notify_key_change();
--> statement-breakpoint
CREATE TRIGGER api_keys_notify_changes AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.key_hash IS DISTINCT FROM NEW.key_hash OR OLD.organization_id IS DISTINCT FROM NEW.organization_id OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION mindprint_notify_key_change();
