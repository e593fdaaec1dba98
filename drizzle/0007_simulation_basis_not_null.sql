-- Every simulation is created with both set (src/simulations/run.ts). Should a row lack its twin, it
-- takes the mind's default twin rather than stopping the migration.
UPDATE "simulations" SET "digital_twin_id" = (SELECT t."id" FROM "digital_twins" t WHERE t."mind_id" = "simulations"."mind_id" AND t."is_default" ORDER BY t."created_at" LIMIT 1) WHERE "digital_twin_id" IS NULL;--> statement-breakpoint
ALTER TABLE "simulations" ALTER COLUMN "mind_assessment_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "simulations" ALTER COLUMN "digital_twin_id" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "artifacts_unfinished_created_idx" ON "artifacts" USING btree ("created_at") WHERE "artifacts"."status" in ('awaiting_upload', 'uploading');