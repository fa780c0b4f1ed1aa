ALTER TABLE "documents" ADD COLUMN "voided_reason" text;--> statement-breakpoint
-- Documents voided before this column existed: an expiry left document.expired in the trail.
UPDATE "documents" SET "voided_reason" = CASE
  WHEN EXISTS (SELECT 1 FROM "audit_events" e WHERE e."document_id" = "documents"."id" AND e."type" = 'document.expired') THEN 'expired'
  ELSE 'sender' END
WHERE "status" = 'voided';
