-- AlterTable
ALTER TABLE "proposal" ADD COLUMN     "autoApprovedPolicy" JSONB,
ADD COLUMN     "blockedReason" TEXT,
ADD COLUMN     "lastProposedAt" TIMESTAMP(3),
ADD COLUMN     "policyNote" TEXT;

-- CreateTable
CREATE TABLE "approval_policy" (
    "deploymentId" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'require_approval',
    "minBatch" INTEGER NOT NULL DEFAULT 1,
    "maxBatch" INTEGER NOT NULL DEFAULT 64,
    "singleStep" BOOLEAN NOT NULL DEFAULT true,
    "changes" TEXT NOT NULL DEFAULT 'scale_only',
    "maxPerHour" INTEGER NOT NULL DEFAULT 4,
    "updatedById" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approval_policy_pkey" PRIMARY KEY ("deploymentId")
);

-- CreateTable
CREATE TABLE "alert" (
    "id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "objectType" TEXT NOT NULL,
    "objectId" TEXT NOT NULL,
    "objectLabel" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "state" TEXT NOT NULL DEFAULT 'open',
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acknowledgedAt" TIMESTAMP(3),
    "acknowledgedById" TEXT,
    "resolvedAt" TIMESTAMP(3),
    "resolvedById" TEXT,
    "comment" TEXT,

    CONSTRAINT "alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_webhook" (
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "minSeverity" TEXT NOT NULL DEFAULT 'warning',
    "updatedById" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_delivery" (
    "id" TEXT NOT NULL,
    "alertId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "log" JSONB NOT NULL DEFAULT '[]',
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "alert_delivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_state_severity_idx" ON "alert"("state", "severity");

-- CreateIndex
CREATE INDEX "alert_key_state_idx" ON "alert"("key", "state");

-- CreateIndex
CREATE INDEX "alert_firstSeenAt_idx" ON "alert"("firstSeenAt");

-- CreateIndex
CREATE INDEX "alert_delivery_status_nextAttemptAt_idx" ON "alert_delivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "alert_delivery_alertId_idx" ON "alert_delivery"("alertId");

-- CreateIndex
CREATE INDEX "alert_delivery_createdAt_idx" ON "alert_delivery"("createdAt");

