CREATE TABLE "cluster_nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"public_url" text NOT NULL,
	"fingerprints" jsonb NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
