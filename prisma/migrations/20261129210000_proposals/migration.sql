-- CreateTable
CREATE TABLE "proposal" (
    "id" TEXT NOT NULL,
    "deploymentId" TEXT NOT NULL,
    "items" JSONB NOT NULL,
    "plan" JSONB NOT NULL,
    "batchSize" INTEGER NOT NULL,
    "batchTimeoutMs" DOUBLE PRECISION NOT NULL,
    "baseGeneration" INTEGER NOT NULL,
    "profileId" TEXT,
    "predictedLatencyMs" DOUBLE PRECISION,
    "predictedThroughputPerS" DOUBLE PRECISION,
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "reason" TEXT NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'manual',
    "state" TEXT NOT NULL DEFAULT 'pending',
    "proposedById" TEXT,
    "decidedById" TEXT,
    "decisionComment" TEXT,
    "decidedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "appliedGeneration" INTEGER,
    "outcomeAt" TIMESTAMP(3),
    "failureReason" TEXT,
    "measuredBatchLatencyMs" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "proposal_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "proposal_deploymentId_state_idx" ON "proposal"("deploymentId", "state");

-- CreateIndex
CREATE INDEX "proposal_state_createdAt_idx" ON "proposal"("state", "createdAt");

