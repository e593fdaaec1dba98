-- Rate-limit counters shared by API replicas on PostgreSQL (src/http/rate-limit-store.ts): one row
-- per limited key (an API key, or a client address's failed authentications) per fixed window,
-- named "<key>@<window start>". Each replica counts in memory and adds its counts here in one
-- batched upsert about twice a second, so no request waits on it. Rows of past windows are
-- deleted by the replicas as they go. Counters are worth nothing after a crash, so the table is
-- unlogged (no WAL). The embedded database does not use it (counters stay in the process).
CREATE UNLOGGED TABLE IF NOT EXISTS "rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "rate_limit_counters_window_end_idx" ON "rate_limit_counters" USING btree ("window_end");
