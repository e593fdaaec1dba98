-- Webhooks (src/features/webhooks): endpoints an organization registers for domain events, and
-- one delivery row per message and endpoint. A delivery row is written, with its pg-boss job, in
-- the transaction of the state change whose event it carries; its `payload` is the exact body
-- every attempt sends and `message_id` its `webhook-id` (Standard Webhooks), so retries are
-- recognisable as the same message. `secret` signs the deliveries (whsec_…); it is shown once.
CREATE TABLE IF NOT EXISTS "webhooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text,
	"events" text[] NOT NULL,
	"secret" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"disabled_reason" text,
	"disabled_at" timestamp with time zone,
	"failing_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"webhook_id" uuid NOT NULL,
	"message_id" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"is_test" boolean DEFAULT false NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"status_code" integer,
	"duration_ms" integer,
	"error" text,
	"response_excerpt" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- GET /webhooks: the organization's endpoints, newest first (NULLS FIRST is what `desc` means).
CREATE INDEX IF NOT EXISTS "webhooks_org_created_idx" ON "webhooks" USING btree ("organization_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
-- Every domain event asks for the organization's active endpoints, inside the state change's transaction.
CREATE INDEX IF NOT EXISTS "webhooks_org_active_idx" ON "webhooks" USING btree ("organization_id") WHERE "webhooks"."status" = 'active';--> statement-breakpoint
-- GET /webhooks/{id}/deliveries (newest first, paged, counted) and the cascade from webhooks.
CREATE INDEX IF NOT EXISTS "webhook_deliveries_webhook_created_idx" ON "webhook_deliveries" USING btree ("webhook_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
-- The retention sweep: finished deliveries older than 30 days are deleted.
CREATE INDEX IF NOT EXISTS "webhook_deliveries_created_idx" ON "webhook_deliveries" USING btree ("created_at");
