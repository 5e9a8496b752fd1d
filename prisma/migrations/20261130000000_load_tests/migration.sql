-- CreateTable
CREATE TABLE "load_test" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "deploymentId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "modelVersionId" TEXT NOT NULL,
    "modelName" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "generationAtStart" INTEGER,
    "planAtStart" JSONB,
    "generationAtEnd" INTEGER,
    "confirmedServing" BOOLEAN NOT NULL DEFAULT false,
    "report" JSONB,
    "error" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "load_test_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "load_test_jobId_key" ON "load_test"("jobId");

-- CreateIndex
CREATE INDEX "load_test_deploymentId_createdAt_idx" ON "load_test"("deploymentId", "createdAt");

