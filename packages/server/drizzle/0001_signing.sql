CREATE TABLE "audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"document_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"signer_id" uuid,
	"actor_email" text,
	"actor_name" text,
	"ip" text,
	"user_agent" text,
	"auth_method" text,
	"agent_triggered" boolean DEFAULT false NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signer_codes" (
	"signer_id" uuid PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"signer_id" uuid NOT NULL,
	"secret_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "completed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "signed_pdf_sha256" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "render_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "next_render_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "outbound_emails" ADD COLUMN "sensitive" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "outbound_emails" ADD COLUMN "attachment_sha256" text;--> statement-breakpoint
ALTER TABLE "outbound_emails" ADD COLUMN "attachment_name" text;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "viewed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "declined_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "decline_reason" text;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "field_values" jsonb;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_document_id_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."documents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_signer_id_signers_id_fk" FOREIGN KEY ("signer_id") REFERENCES "public"."signers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signer_codes" ADD CONSTRAINT "signer_codes_signer_id_signers_id_fk" FOREIGN KEY ("signer_id") REFERENCES "public"."signers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signing_sessions" ADD CONSTRAINT "signing_sessions_signer_id_signers_id_fk" FOREIGN KEY ("signer_id") REFERENCES "public"."signers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_document_seq" ON "audit_events" USING btree ("document_id","seq");--> statement-breakpoint
CREATE INDEX "audit_events_id_type" ON "audit_events" USING btree ("id","type");--> statement-breakpoint
CREATE UNIQUE INDEX "signing_sessions_secret_hash" ON "signing_sessions" USING btree ("secret_hash");--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_signed_pdf_sha256_blobs_sha256_fk" FOREIGN KEY ("signed_pdf_sha256") REFERENCES "public"."blobs"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_emails" ADD CONSTRAINT "outbound_emails_attachment_sha256_blobs_sha256_fk" FOREIGN KEY ("attachment_sha256") REFERENCES "public"."blobs"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "documents_render_due" ON "documents" USING btree ("next_render_at") WHERE status = 'completed' and signed_pdf_sha256 is null;--> statement-breakpoint
CREATE INDEX "documents_expiry_due" ON "documents" USING btree ("expires_at") WHERE status = 'sent' and expires_at is not null;