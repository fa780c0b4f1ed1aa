CREATE TABLE "event_stream_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"api_key_id" uuid,
	"auth_method" text NOT NULL,
	"ip" text,
	"user_agent" text,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"events_sent" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotent_requests" (
	"org_id" uuid NOT NULL,
	"route" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" smallint,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotent_requests_org_id_route_key_pk" PRIMARY KEY("org_id","route","key")
);
--> statement-breakpoint
CREATE TABLE "stream_test_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"type" text NOT NULL,
	"payload" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_stream_sessions" ADD CONSTRAINT "event_stream_sessions_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotent_requests" ADD CONSTRAINT "idempotent_requests_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stream_test_events" ADD CONSTRAINT "stream_test_events_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_stream_sessions_org" ON "event_stream_sessions" USING btree ("org_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "idempotent_requests_created" ON "idempotent_requests" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "stream_test_events_org" ON "stream_test_events" USING btree ("org_id","id");