CREATE TABLE "embed_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"signer_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"vouched_by" text NOT NULL,
	"signer_authenticated" boolean DEFAULT false NOT NULL,
	"parent_origin" text,
	"used_at" timestamp with time zone,
	"used_ip" text,
	"used_user_agent" text,
	"page_token_hash" text,
	"page_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "embed_origins" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "embed_links" ADD CONSTRAINT "embed_links_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "embed_links" ADD CONSTRAINT "embed_links_signer_id_signers_id_fk" FOREIGN KEY ("signer_id") REFERENCES "public"."signers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "embed_links_token_hash" ON "embed_links" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "embed_links_page_token_hash" ON "embed_links" USING btree ("page_token_hash");