// The deployment page's estimator section: the agent's recent decisions (kept from heartbeats), its state, the
// running B, the estimator's proposals for this deployment and the approval policy.
import type { PrismaClient } from "@/generated/prisma/client";
import { planBatchSize } from "@/contracts/serving-plan";
import { db } from "@/server/db/client";
import { notFound } from "@/server/errors/domain-errors";
import { getApprovalPolicy } from "./approval-policy-service";
import { expireStaleProposals } from "./proposals-service";
import { deploymentLastReportColumn, generationPlanColumn } from "@/contracts/deployment-columns";
import { proposalEvidenceColumn, proposalItemsColumn } from "@/contracts/proposal-columns";

export async function estimatorView(deploymentId: string, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUnique({ where: { id: deploymentId } });
  if (!deployment) throw notFound("deployment", deploymentId);
  await expireStaleProposals(prisma);
  const report = deploymentLastReportColumn.read(deployment.lastReport);
  const running = await prisma.deploymentGeneration.findUnique({
    where: { deploymentId_generation: { deploymentId, generation: deployment.generation } },
  });
  const plan = running ? generationPlanColumn.schema.safeParse(running.plan) : null;
  const proposals = await prisma.proposal.findMany({
    where: { deploymentId, source: "estimator" },
    orderBy: { createdAt: "desc" },
    take: 10,
  });
  const state = report?.estimator ?? null;
  return {
    deploymentId,
    currentB: plan?.success ? planBatchSize(plan.data) : null,
    reportedAt: report?.at ?? null,
    state: state
      ? { qTilde: state.qTilde, stable: state.stable, estimates: state.estimates, params: state.params }
      : null,
    timeline: report?.estimatorTimeline ?? [],
    proposals: proposals.map((p) => {
      const evidence = proposalEvidenceColumn.read(p.evidence);
      return {
        id: p.id,
        state: p.state,
        reason: p.reason,
        batchSize: p.batchSize,
        createdAt: p.createdAt,
        lastProposedAt: p.lastProposedAt,
        items: proposalItemsColumn.read(p.items),
        predictedLatencyMs: p.predictedLatencyMs,
        predictedThroughputPerS: p.predictedThroughputPerS,
        blockedReason: p.blockedReason,
        policyNote: p.policyNote,
        autoApproved: p.autoApprovedPolicy !== null,
        appliedGeneration: p.appliedGeneration,
        failureReason: p.failureReason,
        decisionComment: p.decisionComment,
        reports: evidence.estimator?.reports ?? 1,
        change: evidence.change ?? null,
        timeline: evidence.estimator?.timeline ?? [],
      };
    }),
    policy: await getApprovalPolicy(deploymentId, prisma),
  };
}
