-- Keep a turn's full-text vector in its table row. By default PostgreSQL compresses or moves out of
-- line (TOAST) the largest values of a row over ~2 kB; a tsvector barely compresses, so for long
-- turns the vector went out of line, and every search (src/simulations/retrieval.ts: `tsv @@ q`
-- over the mind's turns, then ts_rank on the matches) fetched it from the TOAST table, twice for a
-- match. With STORAGE MAIN the text and the question (context) are compressed or moved out of line
-- first, and only the ~300 turns a search returns read them. Nothing else changes: same vectors,
-- same index, same ranking.
ALTER TABLE "turns" ALTER COLUMN "tsv" SET STORAGE MAIN;
--> statement-breakpoint
-- SET STORAGE applies to rows written from now on: recompute the vector of the existing rows long
-- enough to have been toasted (their values add up to more than ~1.8 kB), so they are stored the new way.
UPDATE "turns" SET "tsv" = DEFAULT
WHERE pg_column_size("tsv") + pg_column_size("text") + coalesce(pg_column_size("context"), 0) > 1800;
