ALTER TABLE "event_stream_sessions" ADD COLUMN "last_seen_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "event_stream_sessions" ADD COLUMN "end_reason" text;--> statement-breakpoint
CREATE INDEX "event_stream_sessions_live" ON "event_stream_sessions" USING btree ("org_id","last_seen_at") WHERE ended_at is null;