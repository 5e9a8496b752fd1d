// The deployment page's estimator section: the agent's recent decisions (kept from heartbeats), its state, the
// running B, the estimator's proposals for this deployment and the approval policy.
import type { PrismaClient } from "@/generated/prisma/client";
import type { EstimatorDecisionReport } from "@/contracts/agent-protocol";
import { planBatchSize, servingPlanSchema } from "@/contracts/serving-plan";
import { db } from "@/server/db/client";
import { notFound } from "@/server/errors/domain-errors";
import { getApprovalPolicy } from "./approval-policy-service";
import type { EstimatorEvidence } from "./estimator-proposals-service";
import { expireStaleProposals } from "./proposals-service";

interface ReportedState { qTilde?: number | null; stable?: number | null; estimates?: number[]; params?: { reconfigurationTimeoutMs?: number; minDwellMs?: number; alpha?: number; ringSize?: number } }

export async function estimatorView(deploymentId: string, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUnique({ where: { id: deploymentId } });
  if (!deployment) throw notFound("deployment", deploymentId);
  await expireStaleProposals(prisma);
  const report = deployment.lastReport as { at?: string; estimator?: ReportedState; estimatorTimeline?: EstimatorDecisionReport[] } | null;
  const running = await prisma.deploymentGeneration.findUnique({ where: { deploymentId_generation: { deploymentId, generation: deployment.generation } } });
  const plan = running ? servingPlanSchema.safeParse(running.plan) : null;
  const proposals = await prisma.proposal.findMany({ where: { deploymentId, source: "estimator" }, orderBy: { createdAt: "desc" }, take: 10 });
  const state = report?.estimator ?? null;
  return {
    deploymentId,
    currentB: plan?.success ? planBatchSize(plan.data) : null,
    reportedAt: report?.at ?? null,
    state: state ? { qTilde: state.qTilde ?? null, stable: state.stable ?? null, estimates: state.estimates ?? [], params: state.params ?? null } : null,
    timeline: report?.estimatorTimeline ?? [],
    proposals: proposals.map((p) => {
      const evidence = (p.evidence ?? {}) as Partial<EstimatorEvidence>;
      return {
        id: p.id, state: p.state, reason: p.reason, batchSize: p.batchSize, createdAt: p.createdAt, lastProposedAt: p.lastProposedAt,
        items: p.items as Array<{ count: number; threads: number; batch: number }>, predictedLatencyMs: p.predictedLatencyMs, predictedThroughputPerS: p.predictedThroughputPerS,
        blockedReason: p.blockedReason, policyNote: p.policyNote, autoApproved: p.autoApprovedPolicy !== null, appliedGeneration: p.appliedGeneration,
        failureReason: p.failureReason, decisionComment: p.decisionComment,
        reports: evidence.estimator?.reports ?? 1, change: evidence.change ?? null,
        timeline: evidence.estimator?.timeline ?? [],
      };
    }),
    policy: await getApprovalPolicy(deploymentId, prisma),
  };
}
