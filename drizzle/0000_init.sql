CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "artifacts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL,
	"storage_key" text NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"kind" text,
	"size" bigint,
	"sha256" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"uploaded_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "digital_twins" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"mind_id" uuid NOT NULL,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "findings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL,
	"snapshot_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"statement" text NOT NULL,
	"quote" text NOT NULL,
	"turn_id" uuid NOT NULL,
	"start_ms" integer,
	"polarity" text NOT NULL,
	"confidence" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key_topics" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL,
	"snapshot_id" uuid NOT NULL,
	"rank" integer NOT NULL,
	"label" text NOT NULL,
	"keywords" jsonb NOT NULL,
	"share" double precision NOT NULL,
	"sentiment" double precision NOT NULL,
	"evidence" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"conversation_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"status" text NOT NULL,
	"framework" text DEFAULT 'mindprint' NOT NULL,
	"version" text NOT NULL,
	"content" jsonb,
	"errors" jsonb,
	"seq" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mind_tags" (
	"mind_id" uuid NOT NULL,
	"tag_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mind_tags_mind_id_tag_id_pk" PRIMARY KEY("mind_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "minds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"email" text,
	"image_url" text,
	"social_media" jsonb,
	"scope" text DEFAULT 'private' NOT NULL,
	"is_self" boolean DEFAULT false NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "psychometrics" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL,
	"snapshot_id" uuid NOT NULL,
	"instrument" text NOT NULL,
	"name" text NOT NULL,
	"score" double precision,
	"percentile" double precision,
	"confidence" double precision NOT NULL,
	"note" text,
	"evidence" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "simulation_shares" (
	"simulation_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "simulation_shares_simulation_id_user_id_pk" PRIMARY KEY("simulation_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "simulations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL,
	"mind_assessment_id" uuid,
	"as_of_snapshot_id" uuid,
	"digital_twin_id" uuid,
	"user_id" uuid NOT NULL,
	"title" text NOT NULL,
	"model" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "snapshots" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL,
	"digital_twin_id" uuid,
	"artifact_id" uuid NOT NULL,
	"mindset_date" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" text,
	"linked" boolean DEFAULT true NOT NULL,
	"requested_speaker" text,
	"mind_speaker" text,
	"attribution" text,
	"speakers" jsonb,
	"mind_words" integer DEFAULT 0 NOT NULL,
	"psychometric_count" integer DEFAULT 0 NOT NULL,
	"key_topic_count" integer DEFAULT 0 NOT NULL,
	"finding_count" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "turns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"mind_id" uuid NOT NULL,
	"snapshot_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"speaker" text NOT NULL,
	"text" text NOT NULL,
	"start_ms" integer,
	"end_ms" integer,
	"is_mind" boolean NOT NULL,
	"context" text,
	"tsv" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', "turns"."text"), 'A') || setweight(to_tsvector('english', coalesce("turns"."context", '')), 'B')) STORED
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"api_key_id" uuid NOT NULL,
	"day" text NOT NULL,
	"operation" text NOT NULL,
	"success_count" bigint DEFAULT 0 NOT NULL,
	"error_count" bigint DEFAULT 0 NOT NULL,
	"latency_sum_ms" double precision DEFAULT 0 NOT NULL,
	"latency_min_ms" double precision,
	"latency_max_ms" double precision,
	"histogram" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "usage_daily_api_key_id_day_operation_pk" PRIMARY KEY("api_key_id","day","operation")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"image_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "digital_twins" ADD CONSTRAINT "digital_twins_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_topics" ADD CONSTRAINT "key_topics_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_topics" ADD CONSTRAINT "key_topics_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_conversation_id_simulations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."simulations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mind_tags" ADD CONSTRAINT "mind_tags_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mind_tags" ADD CONSTRAINT "mind_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "minds" ADD CONSTRAINT "minds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "psychometrics" ADD CONSTRAINT "psychometrics_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "psychometrics" ADD CONSTRAINT "psychometrics_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulation_shares" ADD CONSTRAINT "simulation_shares_simulation_id_simulations_id_fk" FOREIGN KEY ("simulation_id") REFERENCES "public"."simulations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulation_shares" ADD CONSTRAINT "simulation_shares_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulations" ADD CONSTRAINT "simulations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulations" ADD CONSTRAINT "simulations_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulations" ADD CONSTRAINT "simulations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_digital_twin_id_digital_twins_id_fk" FOREIGN KEY ("digital_twin_id") REFERENCES "public"."digital_twins"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_artifact_id_artifacts_id_fk" FOREIGN KEY ("artifact_id") REFERENCES "public"."artifacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "turns" ADD CONSTRAINT "turns_mind_id_minds_id_fk" FOREIGN KEY ("mind_id") REFERENCES "public"."minds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "turns" ADD CONSTRAINT "turns_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "artifacts_mind_idx" ON "artifacts" USING btree ("mind_id");--> statement-breakpoint
CREATE INDEX "artifacts_org_idx" ON "artifacts" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "digital_twins_mind_idx" ON "digital_twins" USING btree ("mind_id");--> statement-breakpoint
CREATE INDEX "findings_snapshot_idx" ON "findings" USING btree ("snapshot_id");--> statement-breakpoint
CREATE INDEX "findings_mind_idx" ON "findings" USING btree ("mind_id");--> statement-breakpoint
CREATE INDEX "key_topics_snapshot_idx" ON "key_topics" USING btree ("snapshot_id");--> statement-breakpoint
CREATE INDEX "key_topics_mind_idx" ON "key_topics" USING btree ("mind_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_conversation_seq_key" ON "messages" USING btree ("conversation_id","seq");--> statement-breakpoint
CREATE INDEX "mind_tags_tag_idx" ON "mind_tags" USING btree ("tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "minds_org_slug_key" ON "minds" USING btree ("organization_id","slug");--> statement-breakpoint
CREATE INDEX "minds_org_created_idx" ON "minds" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "minds_search_trgm_idx" ON "minds" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_name_key" ON "organizations" USING btree ("name");--> statement-breakpoint
CREATE INDEX "psychometrics_snapshot_idx" ON "psychometrics" USING btree ("snapshot_id");--> statement-breakpoint
CREATE INDEX "psychometrics_mind_idx" ON "psychometrics" USING btree ("mind_id");--> statement-breakpoint
CREATE INDEX "simulation_shares_user_idx" ON "simulation_shares" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "simulations_org_mind_idx" ON "simulations" USING btree ("organization_id","mind_id");--> statement-breakpoint
CREATE INDEX "simulations_user_idx" ON "simulations" USING btree ("user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "snapshots_mind_date_idx" ON "snapshots" USING btree ("mind_id","mindset_date" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "snapshots_org_idx" ON "snapshots" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "snapshots_artifact_idx" ON "snapshots" USING btree ("artifact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_org_lower_name_key" ON "tags" USING btree ("organization_id",lower("name"));--> statement-breakpoint
CREATE INDEX "turns_snapshot_seq_idx" ON "turns" USING btree ("snapshot_id","seq");--> statement-breakpoint
CREATE INDEX "turns_mind_idx" ON "turns" USING btree ("mind_id") WHERE "turns"."is_mind";--> statement-breakpoint
CREATE INDEX "turns_tsv_idx" ON "turns" USING gin ("tsv");--> statement-breakpoint
CREATE UNIQUE INDEX "users_org_email_key" ON "users" USING btree ("organization_id",lower("email"));