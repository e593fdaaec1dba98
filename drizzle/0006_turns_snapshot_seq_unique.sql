-- Two attempts of one snapshot job storing at once (pg-boss handing an expired job to a second
-- worker while the first still ran) could each insert a full set of turns. Keep one row per
-- (snapshot_id, seq) so the unique index can be built: both copies hold the same speaker and words,
-- since each attempt parsed the same file.
DELETE FROM "turns" t USING "turns" u
WHERE u."snapshot_id" = t."snapshot_id" AND u."seq" = t."seq" AND u."id" < t."id";
--> statement-breakpoint
DROP INDEX "turns_snapshot_seq_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "turns_snapshot_seq_key" ON "turns" USING btree ("snapshot_id","seq");
