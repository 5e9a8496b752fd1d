-- metrics_rollup becomes RANGE-partitioned by "minute", one partition per UTC day (metrics_rollup_pYYYYMMDD), so
-- retention drops whole days instead of deleting rows. schema.prisma cannot say "partitioned": the parent keeps
-- exactly the columns, defaults, primary key, index and foreign key Prisma describes, and the schema-drift test
-- compares the parent only. The job runner (maintainMetricsPartitions) creates the days ahead and drops the
-- expired ones; rows for a day without a partition land in the DEFAULT partition until that day gets one.
-- The migrator runs this file in one transaction: a failure leaves the old table as it was.

-- Out of the way, names included (index names share the schema's namespace with tables).
ALTER TABLE "metrics_rollup" RENAME TO "metrics_rollup_unpartitioned";
ALTER INDEX "metrics_rollup_pkey" RENAME TO "metrics_rollup_unpartitioned_pkey";
ALTER INDEX "metrics_rollup_minute_idx" RENAME TO "metrics_rollup_unpartitioned_minute_idx";
ALTER TABLE "metrics_rollup_unpartitioned" RENAME CONSTRAINT "metrics_rollup_deploymentId_fkey" TO "metrics_rollup_unpartitioned_deploymentId_fkey";

-- The primary key includes the partition key ("minute"), as PostgreSQL requires of a partitioned table's unique keys.
CREATE TABLE "metrics_rollup" (
    "deploymentId" TEXT NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "intervalMs" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "requestsCompleted" INTEGER NOT NULL DEFAULT 0,
    "requestsRejected" INTEGER NOT NULL DEFAULT 0,
    "requestsWithinSlo" INTEGER NOT NULL DEFAULT 0,
    "rowsCompleted" INTEGER NOT NULL DEFAULT 0,
    "rowsRejected" INTEGER NOT NULL DEFAULT 0,
    "queueDepthMax" INTEGER NOT NULL DEFAULT 0,
    "histograms" JSONB NOT NULL DEFAULT '{}',
    "busyMs" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "metrics_rollup_pkey" PRIMARY KEY ("deploymentId","minute")
) PARTITION BY RANGE ("minute");

CREATE INDEX "metrics_rollup_minute_idx" ON "metrics_rollup"("minute");

ALTER TABLE "metrics_rollup" ADD CONSTRAINT "metrics_rollup_deploymentId_fkey" FOREIGN KEY ("deploymentId") REFERENCES "deployment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "metrics_rollup_default" PARTITION OF "metrics_rollup" DEFAULT;

-- A partition for every UTC day the old table has rows for, so that history too is dropped by the day. "minute" is
-- a timestamp without time zone holding UTC (Prisma's convention), so date_trunc('day', …) is the UTC day.
DO $$
DECLARE
    d TIMESTAMP;
BEGIN
    FOR d IN SELECT DISTINCT date_trunc('day', "minute") FROM "metrics_rollup_unpartitioned" ORDER BY 1 LOOP
        EXECUTE format(
            'CREATE TABLE %I PARTITION OF "metrics_rollup" FOR VALUES FROM (%L) TO (%L)',
            'metrics_rollup_p' || to_char(d, 'YYYYMMDD'), d, d + INTERVAL '1 day'
        );
    END LOOP;
END $$;

INSERT INTO "metrics_rollup" ("deploymentId", "minute", "intervalMs", "requestsCompleted", "requestsRejected",
    "requestsWithinSlo", "rowsCompleted", "rowsRejected", "queueDepthMax", "histograms", "busyMs")
SELECT "deploymentId", "minute", "intervalMs", "requestsCompleted", "requestsRejected",
    "requestsWithinSlo", "rowsCompleted", "rowsRejected", "queueDepthMax", "histograms", "busyMs"
FROM "metrics_rollup_unpartitioned";

DROP TABLE "metrics_rollup_unpartitioned";
