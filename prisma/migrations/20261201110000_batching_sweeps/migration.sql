-- CreateTable
CREATE TABLE "batching_sweep" (
    "id" TEXT NOT NULL,
    "proposalId" TEXT NOT NULL,
    "deploymentId" TEXT NOT NULL,
    "candidates" JSONB NOT NULL,
    "durationS" INTEGER NOT NULL,
    "ratePerS" DOUBLE PRECISION NOT NULL,
    "baseGeneration" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "pointIndex" INTEGER NOT NULL DEFAULT 0,
    "phase" TEXT,
    "phaseStartedAt" TIMESTAMP(3),
    "pointGeneration" INTEGER,
    "loadTestId" TEXT,
    "restoreGeneration" INTEGER,
    "points" JSONB NOT NULL DEFAULT '[]',
    "expiredProposals" INTEGER NOT NULL DEFAULT 0,
    "failureReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "batching_sweep_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "batching_sweep_proposalId_key" ON "batching_sweep"("proposalId");

-- CreateIndex
CREATE INDEX "batching_sweep_deploymentId_state_idx" ON "batching_sweep"("deploymentId", "state");

