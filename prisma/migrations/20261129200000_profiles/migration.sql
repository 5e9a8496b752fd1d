-- CreateTable
CREATE TABLE "profile" (
    "id" TEXT NOT NULL,
    "modelVersionId" TEXT NOT NULL,
    "jobId" TEXT,
    "agentId" TEXT NOT NULL,
    "deploymentId" TEXT,
    "dimensions" JSONB NOT NULL DEFAULT '{}',
    "hardwareClass" TEXT NOT NULL,
    "runtimeSignature" TEXT NOT NULL,
    "cores" INTEGER NOT NULL,
    "threads" INTEGER[],
    "batches" INTEGER[],
    "stoppingRule" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "perturbed" BOOLEAN NOT NULL DEFAULT false,
    "perturbedRatePerS" DOUBLE PRECISION,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "profile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "profile_cell" (
    "profileId" TEXT NOT NULL,
    "threads" INTEGER NOT NULL,
    "batch" INTEGER NOT NULL,
    "meanMs" DOUBLE PRECISION NOT NULL,
    "p50Ms" DOUBLE PRECISION NOT NULL,
    "p90Ms" DOUBLE PRECISION NOT NULL,
    "p99Ms" DOUBLE PRECISION NOT NULL,
    "stddevMs" DOUBLE PRECISION NOT NULL,
    "ciHalfWidthMs" DOUBLE PRECISION NOT NULL,
    "iterations" INTEGER NOT NULL,
    "stopReason" TEXT NOT NULL,
    "peakRssBytes" BIGINT,
    "histogram" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "profile_cell_pkey" PRIMARY KEY ("profileId","threads","batch")
);

-- CreateIndex
CREATE UNIQUE INDEX "profile_jobId_key" ON "profile"("jobId");

-- CreateIndex
CREATE INDEX "profile_modelVersionId_idx" ON "profile"("modelVersionId");

-- AddForeignKey
ALTER TABLE "profile" ADD CONSTRAINT "profile_modelVersionId_fkey" FOREIGN KEY ("modelVersionId") REFERENCES "model_version"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "profile_cell" ADD CONSTRAINT "profile_cell_profileId_fkey" FOREIGN KEY ("profileId") REFERENCES "profile"("id") ON DELETE CASCADE ON UPDATE CASCADE;

