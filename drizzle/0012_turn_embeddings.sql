-- Semantic memory (issue 11): a sentence embedding of each of the mind's turns and of the question
-- it answered, in a table of their own so the full-text scan over `turns` reads no more bytes than
-- before. `embedder` names the vector space (src/embeddings: `glove-6b-100d-sif@1` by default);
-- vectors of another space are never compared, and a change of embedder re-embeds in the
-- background (src/memory/indexer.ts). The vectors are float32, little-endian, unit length.
CREATE TABLE "turn_embeddings" (
	"turn_id" uuid PRIMARY KEY NOT NULL REFERENCES "turns"("id") ON DELETE CASCADE,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL REFERENCES "minds"("id") ON DELETE CASCADE,
	"snapshot_id" uuid NOT NULL REFERENCES "snapshots"("id") ON DELETE CASCADE,
	"embedder" text NOT NULL,
	"dimensions" integer NOT NULL,
	"embedding" bytea NOT NULL,
	"context_embedding" bytea,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "turn_embeddings_mind_idx" ON "turn_embeddings" USING btree ("mind_id","embedder");
--> statement-breakpoint
CREATE INDEX "turn_embeddings_snapshot_idx" ON "turn_embeddings" USING btree ("snapshot_id");
--> statement-breakpoint
-- The state of each snapshot's semantic index: the embedder its turns were embedded with and when
-- (null until the background job has run), the embedder a job was queued for (so that several
-- processes starting at once queue a re-embedding once), and the last error of that job.
ALTER TABLE "snapshots" ADD COLUMN "embedder" text;
--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "embedded_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "embedding_queued" text;
--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "embedding_error" text;
--> statement-breakpoint
-- pgvector where the server has it (PGlite ships it; managed PostgreSQL services do; Debian's
-- PostgreSQL 15 does not): the same vectors as `vector` columns, searched in the database with
-- `<=>`. Without the extension these columns do not exist and src/memory searches the mind's
-- vectors in process instead (src/memory/vector-index.ts).
DO $$
BEGIN
	BEGIN
		CREATE EXTENSION IF NOT EXISTS vector;
	EXCEPTION WHEN others THEN
		RAISE NOTICE 'pgvector is not available: semantic search runs in process';
	END;
	IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
		ALTER TABLE "turn_embeddings" ADD COLUMN "text_vector" vector;
		ALTER TABLE "turn_embeddings" ADD COLUMN "context_vector" vector;
	END IF;
END $$;
