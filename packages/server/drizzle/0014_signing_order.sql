ALTER TABLE "signers" ADD COLUMN "signing_order" smallint;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "invited_at" timestamp with time zone;--> statement-breakpoint
-- Every signer before signing orders was invited when their document was sent.
UPDATE "signers" SET "invited_at" = "created_at";
