-- A minute's histogram parts move out of metrics_rollup into metrics_rollup_part, one row per metrics message and
-- deployment, inserted and never updated: a message's WAL is then about the size of what it brings, where the old
-- `histograms = histograms || part` rewrote the minute's whole row with all its parts (≈ 25 KB of WAL a message).
-- metrics_rollup keeps the counters; its "histograms" column stays (empty, no longer written or read).
-- metrics_rollup_part is partitioned by UTC day of "minute" exactly like metrics_rollup (metrics_rollup_part_pYYYYMMDD
-- plus a DEFAULT partition); maintainMetricsPartitions creates and drops both tables' days in one transaction.
-- The migrator runs this file in one transaction.

-- The primary key's ("deploymentId", "minute") prefix serves the readers' range scans; "id" keeps arrival order.
CREATE TABLE "metrics_rollup_part" (
    "id" BIGSERIAL NOT NULL,
    "deploymentId" TEXT NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "histograms" JSONB NOT NULL,

    CONSTRAINT "metrics_rollup_part_pkey" PRIMARY KEY ("deploymentId","minute","id")
) PARTITION BY RANGE ("minute");

-- The alert evaluator reads the parts inserted since its last round, by id.
CREATE INDEX "metrics_rollup_part_id_idx" ON "metrics_rollup_part"("id");

ALTER TABLE "metrics_rollup_part" ADD CONSTRAINT "metrics_rollup_part_deploymentId_fkey" FOREIGN KEY ("deploymentId") REFERENCES "deployment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "metrics_rollup_part_default" PARTITION OF "metrics_rollup_part" DEFAULT;

-- The same days as metrics_rollup's partitions.
DO $$
DECLARE
    p RECORD;
BEGIN
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class t ON t.oid = i.inhparent
        JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE t.relname = 'metrics_rollup' AND n.nspname = current_schema() AND c.relname <> 'metrics_rollup_default'
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF "metrics_rollup_part" %s',
            'metrics_rollup_part_' || substr(p.name, length('metrics_rollup_') + 1), p.bound);
    END LOOP;
END $$;

-- Existing parts, in their order (an array of parts, or one object as the oldest rows hold).
INSERT INTO "metrics_rollup_part" ("deploymentId", "minute", "histograms")
SELECT r."deploymentId", r."minute", e.part
FROM "metrics_rollup" r,
    jsonb_array_elements(CASE WHEN jsonb_typeof(r."histograms") = 'array' THEN r."histograms"
        ELSE jsonb_build_array(r."histograms") END) WITH ORDINALITY AS e(part, k)
WHERE jsonb_typeof(e.part) = 'object' AND e.part <> '{}'::jsonb
ORDER BY r."deploymentId", r."minute", e.k;

UPDATE "metrics_rollup" SET "histograms" = '{}' WHERE "histograms" <> '{}';
