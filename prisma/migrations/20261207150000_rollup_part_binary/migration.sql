-- A rollup part's histograms as bytes (metrics_rollup_part.encoded, see rollupPartColumn in
-- src/contracts/deployment-columns.ts): a format byte (1), then per stage its code, its length (two bytes, big-endian)
-- and HdrHistogram's compressed encoding, the wire's base64 decoded. The JSONB of base64 strings it replaces was a
-- third larger and, at ≈ 7 KB a part, stored out of line in TOAST (chunks and their index: ≈ 8 KB of WAL a metrics
-- message). STORAGE MAIN keeps a part in its row: deflated histograms do not compress, and a row of a few KB fits a page;
-- "deploymentId" too (else a row over 2 KB would move the id, the one EXTENDED column left, into TOAST).
-- The migrator runs this file in one transaction.

ALTER TABLE "metrics_rollup_part" ADD COLUMN "encoded" BYTEA;
ALTER TABLE "metrics_rollup_part" ALTER COLUMN "encoded" SET STORAGE MAIN, ALTER COLUMN "deploymentId" SET STORAGE MAIN;

-- Existing parts, stage by stage in code order; a value that is not base64 (never readable) is left out.
UPDATE "metrics_rollup_part" p SET "encoded" = '\x01'::bytea || COALESCE((
    SELECT string_agg(set_byte('\x00'::bytea, 0, s.code) || substring(int4send(length(decode(e.value, 'base64')))
        FROM 3 FOR 2) || decode(e.value, 'base64'), ''::bytea ORDER BY s.code)
    FROM jsonb_each_text(p."histograms") e
    JOIN (VALUES ('deserialize', 0), ('queue', 1), ('formation', 2), ('busy', 3), ('compute', 4), ('system', 5),
        ('serialize', 6), ('total', 7)) AS s(stage, code) ON s.stage = e.key
    WHERE length(e.value) BETWEEN 12 AND 65536 AND length(e.value) % 4 = 0 AND e.value ~ '^[A-Za-z0-9+/]+={0,2}$'
), ''::bytea);

ALTER TABLE "metrics_rollup_part" ALTER COLUMN "encoded" SET NOT NULL;
ALTER TABLE "metrics_rollup_part" DROP COLUMN "histograms";
