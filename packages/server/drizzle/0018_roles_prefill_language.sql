ALTER TABLE "documents" ADD COLUMN "prefill" jsonb;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "signer_language" text;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "role_name" text;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "role_names" jsonb;