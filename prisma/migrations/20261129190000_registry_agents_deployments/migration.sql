-- CreateEnum
CREATE TYPE "ModelSource" AS ENUM ('zoo', 'upload');

-- CreateEnum
CREATE TYPE "JobState" AS ENUM ('queued', 'running', 'done', 'failed', 'cancelled');

-- AlterTable
ALTER TABLE "agent_token" ADD COLUMN     "agentId" TEXT;

-- CreateTable
CREATE TABLE "model" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "sloDeadlineMs" DOUBLE PRECISION,
    "sloQuantile" DOUBLE PRECISION,
    "sloTtftMs" DOUBLE PRECISION,
    "sloTpotMs" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "model_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "artifact" (
    "sha256" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "artifact_pkey" PRIMARY KEY ("sha256")
);

-- CreateTable
CREATE TABLE "model_version" (
    "id" TEXT NOT NULL,
    "modelId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "artifactSha256" TEXT NOT NULL,
    "source" "ModelSource" NOT NULL,
    "zooName" TEXT,
    "zooBuilderVersion" TEXT,
    "zooSeed" INTEGER,
    "syntheticWeights" BOOLEAN NOT NULL DEFAULT false,
    "analysis" JSONB NOT NULL,
    "servingDims" JSONB NOT NULL DEFAULT '{}',
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "model_version_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" "JobState" NOT NULL DEFAULT 'queued',
    "progress" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "progressMessage" TEXT,
    "params" JSONB NOT NULL,
    "result" JSONB,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdById" TEXT,
    "agentId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent" (
    "id" TEXT NOT NULL,
    "hostName" TEXT NOT NULL,
    "agentVersion" TEXT NOT NULL,
    "protocolVersion" INTEGER NOT NULL,
    "bootId" TEXT NOT NULL,
    "topology" JSONB NOT NULL,
    "allowedCpus" INTEGER[],
    "cpuModel" TEXT NOT NULL,
    "memoryBytes" BIGINT NOT NULL,
    "ortVersion" TEXT NOT NULL,
    "inferenceUrl" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "appliedRevision" INTEGER NOT NULL DEFAULT 0,
    "lastHeartbeatAt" TIMESTAMP(3),
    "lastHost" JSONB,
    "registeredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decommissionedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deployment" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "modelVersionId" TEXT NOT NULL,
    "cpus" INTEGER[],
    "generation" INTEGER NOT NULL DEFAULT 1,
    "observedGeneration" INTEGER NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "failureReason" TEXT,
    "lastReport" JSONB,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "removedAt" TIMESTAMP(3),

    CONSTRAINT "deployment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deployment_generation" (
    "id" TEXT NOT NULL,
    "deploymentId" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "modelVersionId" TEXT NOT NULL,
    "plan" JSONB NOT NULL,
    "label" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" TEXT,
    "outcomeAt" TIMESTAMP(3),
    "failureReason" TEXT,
    "report" JSONB,

    CONSTRAINT "deployment_generation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_heartbeat" (
    "id" BIGSERIAL NOT NULL,
    "agentId" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "body" JSONB NOT NULL,

    CONSTRAINT "agent_heartbeat_pkey" PRIMARY KEY ("id")
);

-- CreateTable
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

    CONSTRAINT "metrics_rollup_pkey" PRIMARY KEY ("deploymentId","minute")
);

-- CreateTable
CREATE TABLE "enrollment_token" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3),
    "maxUses" INTEGER,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "enrollment_token_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "model_name_key" ON "model"("name");

-- CreateIndex
CREATE INDEX "model_version_artifactSha256_idx" ON "model_version"("artifactSha256");

-- CreateIndex
CREATE UNIQUE INDEX "model_version_modelId_number_key" ON "model_version"("modelId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "model_version_zooName_zooBuilderVersion_zooSeed_key" ON "model_version"("zooName", "zooBuilderVersion", "zooSeed");

-- CreateIndex
CREATE INDEX "job_state_kind_idx" ON "job"("state", "kind");

-- CreateIndex
CREATE INDEX "job_agentId_state_idx" ON "job"("agentId", "state");

-- CreateIndex
CREATE INDEX "deployment_agentId_idx" ON "deployment"("agentId");

-- CreateIndex
CREATE UNIQUE INDEX "deployment_generation_deploymentId_generation_key" ON "deployment_generation"("deploymentId", "generation");

-- CreateIndex
CREATE INDEX "agent_heartbeat_agentId_receivedAt_idx" ON "agent_heartbeat"("agentId", "receivedAt");

-- CreateIndex
CREATE INDEX "agent_heartbeat_receivedAt_idx" ON "agent_heartbeat"("receivedAt");

-- CreateIndex
CREATE INDEX "metrics_rollup_minute_idx" ON "metrics_rollup"("minute");

-- CreateIndex
CREATE UNIQUE INDEX "enrollment_token_tokenHash_key" ON "enrollment_token"("tokenHash");

-- CreateIndex
CREATE INDEX "agent_token_agentId_idx" ON "agent_token"("agentId");

-- AddForeignKey
ALTER TABLE "agent_token" ADD CONSTRAINT "agent_token_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "model_version" ADD CONSTRAINT "model_version_modelId_fkey" FOREIGN KEY ("modelId") REFERENCES "model"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "model_version" ADD CONSTRAINT "model_version_artifactSha256_fkey" FOREIGN KEY ("artifactSha256") REFERENCES "artifact"("sha256") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployment" ADD CONSTRAINT "deployment_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployment" ADD CONSTRAINT "deployment_modelVersionId_fkey" FOREIGN KEY ("modelVersionId") REFERENCES "model_version"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployment_generation" ADD CONSTRAINT "deployment_generation_deploymentId_fkey" FOREIGN KEY ("deploymentId") REFERENCES "deployment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_heartbeat" ADD CONSTRAINT "agent_heartbeat_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metrics_rollup" ADD CONSTRAINT "metrics_rollup_deploymentId_fkey" FOREIGN KEY ("deploymentId") REFERENCES "deployment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

