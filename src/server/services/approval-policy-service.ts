// Approval policies per deployment (issue #17): an SRE decides whether the estimator's proposals wait for a person
// (the default) or are approved by the control plane within bounds. An auto-approval goes through the one approve
// path (a new generation, its audit event naming the policy); a proposal the policy refuses stays pending, saying why.
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { planBatchSize, servingPlanSchema, type PlanItem } from "@/contracts/serving-plan";
import {
  changeKind,
  DEFAULT_APPROVAL_POLICY,
  evaluateAutoApproval,
  validateApprovalPolicy,
  type ApprovalPolicy,
} from "@/core/estimator/approval-policy";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { notFound } from "@/server/errors/domain-errors";
import { approveProposalAs } from "./proposals-service";
import type { ServiceCaller } from "./users-service";

const HOUR_MS = 3_600_000;

function fromRow(row: {
  mode: string;
  minBatch: number;
  maxBatch: number;
  singleStep: boolean;
  changes: string;
  maxPerHour: number;
}): ApprovalPolicy {
  return {
    mode: row.mode as ApprovalPolicy["mode"],
    minBatch: row.minBatch,
    maxBatch: row.maxBatch,
    singleStep: row.singleStep,
    changes: row.changes as ApprovalPolicy["changes"],
    maxPerHour: row.maxPerHour,
  };
}

export async function getApprovalPolicy(deploymentId: string, prisma: PrismaClient = db()) {
  const row = await prisma.approvalPolicy.findUnique({ where: { deploymentId } });
  const updatedBy = row?.updatedById
    ? await prisma.user.findUnique({ where: { id: row.updatedById }, select: { email: true } })
    : null;
  return {
    policy: row ? fromRow(row) : { ...DEFAULT_APPROVAL_POLICY },
    isDefault: !row,
    updatedAt: row?.updatedAt ?? null,
    updatedBy: updatedBy?.email ?? null,
    autoApprovalsLastHour: await autoApprovalsLastHour(deploymentId, prisma),
  };
}

/** The deployment's policy (the default when none was set). */
export async function policyOf(
  deploymentId: string,
  prisma: PrismaClient | Prisma.TransactionClient = db(),
): Promise<ApprovalPolicy> {
  const row = await prisma.approvalPolicy.findUnique({ where: { deploymentId } });
  return row ? fromRow(row) : { ...DEFAULT_APPROVAL_POLICY };
}

export function autoApprovalsLastHour(deploymentId: string, prisma: PrismaClient = db()): Promise<number> {
  return prisma.proposal.count({
    where: {
      deploymentId,
      decidedAt: { gte: new Date(Date.now() - HOUR_MS) },
      autoApprovedPolicy: { not: Prisma.DbNull },
    },
  });
}

export async function setApprovalPolicy(
  caller: ServiceCaller,
  input: { deploymentId: string } & ApprovalPolicy,
  prisma: PrismaClient = db(),
) {
  const policy = validateApprovalPolicy(input);
  return prisma.$transaction(async (tx) => {
    const deployment = await tx.deployment.findUnique({
      where: { id: input.deploymentId },
      include: { agent: true, modelVersion: { include: { model: true } } },
    });
    if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
    const before = await tx.approvalPolicy.findUnique({ where: { deploymentId: deployment.id } });
    await tx.approvalPolicy.upsert({
      where: { deploymentId: deployment.id },
      create: { deploymentId: deployment.id, ...policy, updatedById: caller.user.id },
      update: { ...policy, updatedById: caller.user.id },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "approval_policy.update",
      target: {
        type: "deployment",
        id: deployment.id,
        label: `${deployment.modelVersion.model.name} on ${deployment.agent.hostName}`,
      },
      before: before ? fromRow(before) : { ...DEFAULT_APPROVAL_POLICY, default: true },
      after: policy,
      requestId: caller.requestId,
    });
    return { policy };
  });
}

/**
 * Applies the deployment's policy to a pending estimator proposal: approves it when every bound holds (returns
 * true), otherwise leaves it pending with the policy's reasons in `policyNote`.
 */
export async function applyApprovalPolicy(proposalId: string, prisma: PrismaClient = db()): Promise<boolean> {
  const proposal = await prisma.proposal.findUnique({ where: { id: proposalId } });
  if (!proposal || proposal.state !== "pending" || proposal.source !== "estimator") return false;
  const row = await prisma.approvalPolicy.findUnique({ where: { deploymentId: proposal.deploymentId } });
  const policy = row ? fromRow(row) : { ...DEFAULT_APPROVAL_POLICY };
  if (policy.mode === "require_approval") {
    if (proposal.policyNote !== null)
      await prisma.proposal.update({ where: { id: proposal.id }, data: { policyNote: null } });
    return false;
  }
  const deployment = await prisma.deployment.findUniqueOrThrow({ where: { id: proposal.deploymentId } });
  const running = await prisma.deploymentGeneration.findUniqueOrThrow({
    where: { deploymentId_generation: { deploymentId: deployment.id, generation: deployment.generation } },
  });
  const currentPlan = servingPlanSchema.parse(running.plan);
  const proposedItems = (proposal.items ?? []) as PlanItem[];
  const used = await autoApprovalsLastHour(deployment.id, prisma);
  const verdict = evaluateAutoApproval({
    policy,
    currentB: planBatchSize(currentPlan),
    proposedB: proposal.batchSize,
    // A blocked proposal has no items: its change kind does not matter (it is refused for being blocked).
    change: proposedItems.length ? changeKind(currentPlan.instances, proposedItems) : "batch-only",
    autoApprovalsLastHour: used,
    blockedReason: proposal.blockedReason,
  });
  if (!verdict.allow) {
    const note = `auto-approval refused: ${verdict.reasons.join("; ")}`;
    if (proposal.policyNote !== note)
      await prisma.proposal.update({ where: { id: proposal.id }, data: { policyNote: note } });
    return false;
  }
  await approveProposalAs(
    {
      actor: { type: "system", label: "approval policy" },
      userId: null,
      isAdmin: false,
      policy: {
        ...policy,
        deploymentId: deployment.id,
        autoApprovalsBefore: used,
        updatedById: row?.updatedById ?? null,
      },
    },
    {
      proposalId: proposal.id,
      comment: `auto-approved: B ${planBatchSize(currentPlan)} → ${proposal.batchSize} within the deployment's policy`,
    },
    prisma,
  );
  return true;
}
