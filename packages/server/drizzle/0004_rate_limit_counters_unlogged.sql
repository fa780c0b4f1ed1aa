-- Rate-limit counters are short-lived and cheap to lose: skipping the WAL makes the
-- upsert every limited request does cheaper; after a crash the counters start empty.
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
