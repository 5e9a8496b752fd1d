-- CreateTable
CREATE TABLE "hardware_price" (
    "hardwareClass" TEXT NOT NULL,
    "hourlyUsd" DOUBLE PRECISION NOT NULL,
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT NOT NULL DEFAULT '',
    "updatedById" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hardware_price_pkey" PRIMARY KEY ("hardwareClass")
);

