-- CreateTable
CREATE TABLE "hardware_price_change" (
    "id" BIGSERIAL NOT NULL,
    "hardwareClass" TEXT NOT NULL,
    "hourlyUsd" DOUBLE PRECISION,
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT NOT NULL DEFAULT '',
    "effectiveFrom" TIMESTAMP(3) NOT NULL,
    "changedById" TEXT,

    CONSTRAINT "hardware_price_change_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "hardware_price_change_hardwareClass_effectiveFrom_idx" ON "hardware_price_change"("hardwareClass", "effectiveFrom");


-- Backfill: one change per existing price, effective from its updatedAt (when that price began). Not from the epoch:
-- the price before updatedAt is unknown here (another price, or none), and the report must not price earlier
-- minutes at a later price, so they count as unpriced, as for a class that never had a price.
INSERT INTO "hardware_price_change" ("hardwareClass", "hourlyUsd", "demo", "note", "effectiveFrom", "changedById")
SELECT "hardwareClass", "hourlyUsd", "demo", "note", "updatedAt", "updatedById" FROM "hardware_price";
