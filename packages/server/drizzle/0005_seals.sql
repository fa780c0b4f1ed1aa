CREATE TABLE "instance_pki" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"pki" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "self_seals" (
	"document_id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"source_pdf_sha256" text NOT NULL,
	"source_filename" text,
	"source_page_count" integer NOT NULL,
	"certificate_mode" text NOT NULL,
	"legal_name" text NOT NULL,
	"identity_verified_at" timestamp with time zone NOT NULL,
	"certificate_pdf_sha256" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "sealed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "seal_tsa" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "seal_error" text;--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "legal_name" text;--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "identity_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "self_seals" ADD CONSTRAINT "self_seals_document_id_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."documents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "self_seals" ADD CONSTRAINT "self_seals_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "self_seals" ADD CONSTRAINT "self_seals_source_pdf_sha256_blobs_sha256_fk" FOREIGN KEY ("source_pdf_sha256") REFERENCES "public"."blobs"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "self_seals" ADD CONSTRAINT "self_seals_certificate_pdf_sha256_blobs_sha256_fk" FOREIGN KEY ("certificate_pdf_sha256") REFERENCES "public"."blobs"("sha256") ON DELETE no action ON UPDATE no action;