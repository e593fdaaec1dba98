DROP INDEX "simulations_org_mind_idx";--> statement-breakpoint
DROP INDEX "simulations_user_idx";--> statement-breakpoint
CREATE INDEX "simulations_user_updated_idx" ON "simulations" USING btree ("user_id","organization_id","updated_at" DESC NULLS FIRST,"created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "simulations_mind_user_updated_idx" ON "simulations" USING btree ("mind_id","user_id","updated_at" DESC NULLS FIRST,"created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);