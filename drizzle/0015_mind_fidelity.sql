-- The fidelity check every mind carries (src/features/fidelity, issue 22): each of the mind's
-- conversations held out in turn, the questions asked in it put to a mind built from the rest,
-- the answers measured against what the person really said (src/lib/fidelity/measure.ts). One
-- row per mind, replaced by each computation (a background job after the mind's snapshots
-- change); memory_key is the state of the memory it was computed for (the scope's fingerprint and
-- that of its semantic index), so GET /minds/{id}/fidelity tells a current result from an
-- outdated one. `status` is 'ready' or 'insufficient' (with `reason`). Self-contained: one new
-- table, nothing else changes.
CREATE TABLE IF NOT EXISTS "mind_fidelity" (
	"mind_id" uuid PRIMARY KEY NOT NULL REFERENCES "minds"("id") ON DELETE CASCADE,
	"organization_id" uuid NOT NULL REFERENCES "organizations"("id") ON DELETE CASCADE,
	"status" text NOT NULL,
	"reason" text,
	"memory_key" text NOT NULL,
	"engine" text NOT NULL,
	"embedder" text,
	"conversations" integer DEFAULT 0 NOT NULL,
	"questions" integer DEFAULT 0 NOT NULL,
	"specificity" double precision,
	"beyond_question" double precision,
	"abstention_rate" double precision,
	"median_source_turns" double precision,
	"examples" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"duration_ms" integer,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "mind_fidelity_org_idx" ON "mind_fidelity" USING btree ("organization_id");
