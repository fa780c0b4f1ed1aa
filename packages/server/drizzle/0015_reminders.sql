ALTER TABLE "documents" ADD COLUMN "reminders" jsonb;--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "reminders" jsonb;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "reminders_sent" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signers" ADD COLUMN "next_reminder_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "signers_reminder_due" ON "signers" USING btree ("next_reminder_at") WHERE next_reminder_at is not null;