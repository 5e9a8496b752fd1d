// Proposals: a configuration reaches agents only through an SRE's approval. Approve writes a new generation; the
// agent's heartbeat reports it applied or failed; a failed one is auto-reverted to the last applied configuration.
// Every transition is an audit event in the same transaction. Rollback copies any earlier applied generation.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { servingPlanSchema, planBatchSize } from "@/contracts/serving-plan";
import { recordAudit, userActor, type AuditActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import { planForVersion } from "./model-serving-axes";
import { activeSweep, startApprovedSweep } from "./batching-sweeps-service";
import { writeGeneration } from "./deployments-service";
import { optimizeForDeployment } from "./optimizer-service";
import { expireUnclaimedTrials, queueProposalTrial, trialEndedWithProposal } from "./plan-trial-service";
import { proposalTrialSchema } from "@/contracts/plan-trial";
import type { ServiceCaller } from "./users-service";
import { deploymentLastReportColumn, generationReportColumn } from "@/contracts/deployment-columns";
import {
  autoApprovedPolicyColumn,
  proposalEvidenceColumn,
  proposalItemsColumn,
  proposalPlanColumn,
  type AutoApprovedPolicy,
} from "@/contracts/proposal-columns";

const PROPOSAL_TTL_MS = 24 * 3_600_000;
/** Measured batch latency worse than predicted by more than this is flagged (the contention gap, §5.2.2). */
export const CONTENTION_GAP_THRESHOLD = 0.15;
const SYSTEM: AuditActor = { type: "system", label: "control plane" };

export interface ProposeInput {
  deploymentId: string;
  profileId: string;
  batchSize: number;
  batchTimeoutMs?: number;
  reason: string;
  /** The batching validator's verdict as the proposer saw it (the Optimizer page runs it), kept as evidence. */
  validation?: { pass: boolean; checks: Array<{ id: string; status: string; message: string }>; note?: string };
  /** Check the plan by a plan trial on the agent before it is offered (the proposal is 'trialing' until then). */
  trial?: boolean;
}

export async function proposeFromOptimizer(caller: ServiceCaller, input: ProposeInput, prisma: PrismaClient = db()) {
  const reason = input.reason.trim();
  if (!reason) throw invalidInput("say why (reason must not be empty)", { field: "reason" });
  const sweep = await activeSweep(input.deploymentId, prisma, ["running", "restoring"]);
  if (sweep)
    throw conflict(
      `a batching sweep is running on this deployment (sweep ${sweep.id}); propose once it has restored the configuration`,
    );
  const optimized = await optimizeForDeployment(input, prisma);
  if (optimized.kind === "infeasible") throw invalidInput(`no plan: ${optimized.reason}`, { field: "batchSize" });
  return prisma.$transaction(async (tx) => {
    const deployment = await tx.deployment.findUniqueOrThrow({
      where: { id: input.deploymentId },
      include: { modelVersion: { include: { artifact: true, model: true } } },
    });
    // A model that cannot be batched takes b = 1 per instance: a plan with more is refused, naming the tensor.
    planForVersion(deployment.modelVersion.analysis, optimized.plan, "batchSize");
    const id = randomUUID();
    await tx.proposal.create({
      data: {
        id,
        deploymentId: deployment.id,
        items: writeJsonColumn(proposalItemsColumn, optimized.instances),
        plan: writeJsonColumn(proposalPlanColumn, optimized.plan),
        batchSize: optimized.batchSize,
        batchTimeoutMs: optimized.batchTimeoutMs,
        baseGeneration: deployment.generation,
        profileId: input.profileId,
        predictedLatencyMs: optimized.latencyMs,
        predictedThroughputPerS: optimized.throughputPerS,
        evidence: writeJsonColumn(proposalEvidenceColumn, {
          baselines: optimized.baselines,
          why: optimized.why,
          perturbed: optimized.perturbed,
          idleCores: optimized.idleCores,
          cores: optimized.cores,
          validation: input.validation ?? null,
        }),
        reason,
        source: "manual",
        proposedById: caller.user.id,
        expiresAt: new Date(Date.now() + PROPOSAL_TTL_MS),
      },
    });
    let trial: { jobId: string; estimateMs: number } | null = null;
    if (input.trial)
      trial = await queueProposalTrial(tx, {
        proposalId: id,
        deploymentId: deployment.id,
        profileId: input.profileId,
        optimized,
        createdById: caller.user.id,
      });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "proposal.create",
      target: { type: "proposal", id },
      after: {
        deploymentId: deployment.id,
        items: optimized.instances,
        batchSize: optimized.batchSize,
        predictedLatencyMs: optimized.latencyMs,
        reason,
        trialJobId: trial?.jobId ?? null,
      },
      requestId: caller.requestId,
    });
    return { id, trial };
  });
}

/**
 * Pending or trialing proposals past their 24 h or whose deployment's generation moved on become expired (a trial
 * still queued or running for one is cancelled with it); a trial no agent started in time ends, so its proposal is
 * offered on its predictions instead of waiting for ever.
 */
export async function expireStaleProposals(prisma: PrismaClient | Prisma.TransactionClient = db()): Promise<number> {
  await expireUnclaimedTrials(prisma);
  const open = await prisma.proposal.findMany({ where: { state: { in: ["pending", "trialing"] } } });
  let expired = 0;
  for (const p of open) {
    const deployment = await prisma.deployment.findUnique({ where: { id: p.deploymentId } });
    if (
      p.expiresAt.getTime() <= Date.now() ||
      !deployment ||
      deployment.removedAt ||
      deployment.generation !== p.baseGeneration
    ) {
      await prisma.proposal.update({ where: { id: p.id }, data: { state: "expired", outcomeAt: new Date() } });
      if (p.trialJobId) await trialEndedWithProposal(prisma, p.trialJobId);
      expired++;
    }
  }
  return expired;
}

/** Who approves: an SRE (a user), or the control plane under a deployment's approval policy (an auto-approval). */
export interface Approver {
  actor: AuditActor;
  userId: string | null;
  isAdmin: boolean;
  requestId?: string;
  /** The policy that allowed an auto-approval, kept with the proposal and in its audit event. */
  policy?: AutoApprovedPolicy;
}

export async function approveProposal(
  caller: ServiceCaller,
  input: { proposalId: string; comment?: string },
  prisma: PrismaClient = db(),
) {
  return approveProposalAs(
    {
      actor: userActor(caller.user),
      userId: caller.user.id,
      isAdmin: caller.user.role === "admin",
      requestId: caller.requestId,
    },
    input,
    prisma,
  );
}

/** The one approve path, for SREs and for auto-approvals alike: checks, a new generation, the audit event. */
export async function approveProposalAs(
  by: Approver,
  input: { proposalId: string; comment?: string },
  prisma: PrismaClient = db(),
) {
  // A stale proposal is marked expired by its own statement: the refusal below rolls its transaction back.
  await expireStaleProposals(prisma);
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM proposal WHERE id = ${input.proposalId} FOR UPDATE`;
    const proposal = await tx.proposal.findUnique({ where: { id: input.proposalId } });
    if (!proposal) throw notFound("proposal", input.proposalId);
    if (proposal.state === "expired")
      throw conflict(
        `the proposal is stale: it was made against generation ${proposal.baseGeneration}, and the deployment has moved on (or 24 h passed)`,
      );
    if (proposal.state !== "pending") throw conflict(`the proposal is ${proposal.state}, not pending`);
    if (proposal.blockedReason)
      throw new DomainError(
        "PRECONDITION_FAILED",
        `this proposal has no plan to apply, so it cannot be approved: ${proposal.blockedReason}`,
      );
    if (by.userId !== null && proposal.proposedById === by.userId && !by.isAdmin)
      throw new DomainError("FORBIDDEN", "an SRE cannot approve their own proposal (an admin can)");
    const deployment = await tx.deployment.findUnique({ where: { id: proposal.deploymentId } });
    if (!deployment || deployment.removedAt) throw conflict("the deployment is gone");
    if (deployment.generation !== proposal.baseGeneration || proposal.expiresAt.getTime() <= Date.now()) {
      await tx.proposal.update({ where: { id: proposal.id }, data: { state: "expired", outcomeAt: new Date() } });
      throw conflict(
        `the proposal is stale: it was made against generation ${proposal.baseGeneration}, the deployment is at ${deployment.generation}${proposal.expiresAt.getTime() <= Date.now() ? " (and it is over 24 h old)" : ""}`,
      );
    }
    // While a sweep runs the deployment is on its temporary generations: nothing else applies over them (the
    // estimator keeps proposing against them; an auto-approval would cut the sweep short).
    const sweeping = await activeSweep(deployment.id, tx, ["running", "restoring"]);
    if (sweeping)
      throw conflict(
        `a batching sweep is running on this deployment (sweep ${sweeping.id}); decide once it has restored the configuration`,
      );
    // A sweep's approval starts it (temporary generations, then a restore); its audit event says so.
    if (proposal.source === "sweep")
      return startApprovedSweep(tx, proposal, {
        actor: by.actor,
        userId: by.userId,
        requestId: by.requestId,
        comment: input.comment,
      });
    const plan = servingPlanSchema.parse(proposal.plan);
    const generation = await writeGeneration(tx, deployment, {
      modelVersionId: deployment.modelVersionId,
      plan,
      label: `proposal: ${proposal.reason}`.slice(0, 200),
      createdById: by.userId,
    });
    await tx.proposal.update({
      where: { id: proposal.id },
      data: {
        state: "applying",
        decidedById: by.userId,
        decidedAt: new Date(),
        decisionComment: input.comment ?? null,
        appliedGeneration: generation,
        ...(by.policy
          ? { autoApprovedPolicy: writeJsonColumn(autoApprovedPolicyColumn, by.policy), policyNote: null }
          : {}),
      },
    });
    await recordAudit(tx, {
      actor: by.actor,
      action: by.policy ? "proposal.auto_approve" : "proposal.approve",
      target: { type: "proposal", id: proposal.id },
      before: { state: "pending", generation: deployment.generation },
      after: {
        state: "applying",
        generation,
        comment: input.comment ?? null,
        ...(by.policy ? { policy: by.policy } : {}),
      },
      requestId: by.requestId,
    });
    return { generation };
  });
}

export async function rejectProposal(
  caller: ServiceCaller,
  input: { proposalId: string; comment: string },
  prisma: PrismaClient = db(),
) {
  const comment = input.comment.trim();
  if (!comment) throw invalidInput("a comment is required to reject", { field: "comment" });
  return prisma.$transaction(async (tx) => {
    const proposal = await tx.proposal.findUnique({ where: { id: input.proposalId } });
    if (!proposal) throw notFound("proposal", input.proposalId);
    if (proposal.state !== "pending") throw conflict(`the proposal is ${proposal.state}, not pending`);
    await tx.proposal.update({
      where: { id: proposal.id },
      data: { state: "rejected", decidedById: caller.user.id, decidedAt: new Date(), decisionComment: comment },
    });
    await tx.batchingSweep.updateMany({
      where: { proposalId: proposal.id, state: "pending" },
      data: { state: "cancelled", failureReason: "the proposal was rejected", finishedAt: new Date() },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "proposal.reject",
      target: { type: "proposal", id: proposal.id },
      before: { state: "pending" },
      after: { state: "rejected", comment },
      requestId: caller.requestId,
    });
    return { rejected: true };
  });
}

/** Rollback: a new generation copying an earlier applied one (generations only increase). */
export async function rollbackDeployment(
  caller: ServiceCaller,
  input: { deploymentId: string; toGeneration: number },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const deployment = await tx.deployment.findUnique({ where: { id: input.deploymentId } });
    if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
    const target = await tx.deploymentGeneration.findUnique({
      where: { deploymentId_generation: { deploymentId: deployment.id, generation: input.toGeneration } },
    });
    if (!target) throw notFound("generation", String(input.toGeneration));
    if (target.outcome !== "applied")
      throw conflict(`generation ${input.toGeneration} never applied; roll back to one that did`);
    if (input.toGeneration === deployment.generation) throw conflict("that is the current generation");
    const generation = await writeGeneration(tx, deployment, {
      modelVersionId: target.modelVersionId,
      plan: servingPlanSchema.parse(target.plan),
      label: `rollback to generation ${input.toGeneration}`,
      createdById: caller.user.id,
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "deployment.rollback",
      target: { type: "deployment", id: deployment.id },
      before: { generation: deployment.generation },
      after: { generation, copyOf: input.toGeneration },
      requestId: caller.requestId,
    });
    return { generation };
  });
}

/**
 * Called after each heartbeat: proposals whose generation applied or failed move on; a failed generation is
 * auto-reverted (the next generation copies the last applied one); measured batch latency lands beside the
 * prediction.
 */
export async function reconcileGenerationOutcomes(deploymentId: string, prisma: PrismaClient = db()): Promise<void> {
  const deployment = await prisma.deployment.findUnique({ where: { id: deploymentId } });
  if (!deployment || deployment.removedAt) return;
  const failed = await prisma.deploymentGeneration.findUnique({
    where: { deploymentId_generation: { deploymentId, generation: deployment.generation } },
  });
  // During a batching sweep the sweep restores its own base configuration (an auto-revert would go back to the
  // last applied generation, which may be one of the sweep's temporary ones).
  const sweeping = await activeSweep(deploymentId, prisma, ["running", "restoring"]);
  if (failed?.outcome === "failed" && !sweeping) {
    await prisma.$transaction(async (tx) => {
      const lastGood = await tx.deploymentGeneration.findFirst({
        where: { deploymentId, outcome: "applied" },
        orderBy: { generation: "desc" },
      });
      const current = await tx.deployment.findUniqueOrThrow({ where: { id: deploymentId } });
      if (!lastGood || current.generation !== failed.generation) return; // nothing to go back to, or someone moved on
      const generation = await writeGeneration(tx, current, {
        modelVersionId: lastGood.modelVersionId,
        plan: servingPlanSchema.parse(lastGood.plan),
        label: `auto-revert: generation ${failed.generation} failed`,
        createdById: null,
      });
      await tx.proposal.updateMany({
        where: { deploymentId, appliedGeneration: failed.generation, state: "applying" },
        data: { state: "failed", outcomeAt: new Date(), failureReason: failed.failureReason },
      });
      await recordAudit(tx, {
        actor: SYSTEM,
        action: "deployment.auto_revert",
        target: { type: "deployment", id: deploymentId },
        before: { generation: failed.generation, failure: failed.failureReason },
        after: { generation, copyOf: lastGood.generation },
      });
    });
  }
  const applying = await prisma.proposal.findMany({
    where: { deploymentId, state: { in: ["applying", "applied"] }, appliedGeneration: { not: null } },
  });
  for (const p of applying) {
    const generation = await prisma.deploymentGeneration.findUnique({
      where: { deploymentId_generation: { deploymentId, generation: p.appliedGeneration! } },
    });
    if (p.state === "applying" && generation?.outcome === "applied") {
      await prisma.$transaction(async (tx) => {
        await tx.proposal.update({ where: { id: p.id }, data: { state: "applied", outcomeAt: generation.outcomeAt } });
        await recordAudit(tx, {
          actor: SYSTEM,
          action: "proposal.applied",
          target: { type: "proposal", id: p.id },
          after: {
            generation: p.appliedGeneration,
            phases: generationReportColumn.read(generation.report)?.phasesMs ?? null,
          },
        });
      });
    }
    // The served batch latency measured after the switch (first full batches), beside the prediction.
    const report = deploymentLastReportColumn.read(deployment.lastReport)?.lastReconfiguration;
    if (
      report?.generation === p.appliedGeneration &&
      report.servedBatchLatencyMs !== undefined &&
      report.servedBatchLatencyMs !== p.measuredBatchLatencyMs
    ) {
      await prisma.proposal.update({
        where: { id: p.id },
        data: { measuredBatchLatencyMs: report.servedBatchLatencyMs },
      });
    }
  }
}

export async function listProposals(input: { state?: string; deploymentId?: string }, prisma: PrismaClient = db()) {
  await expireStaleProposals(prisma);
  const proposals = await prisma.proposal.findMany({
    where: {
      ...(input.state ? { state: input.state } : {}),
      ...(input.deploymentId ? { deploymentId: input.deploymentId } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  const deployments = await prisma.deployment.findMany({
    where: { id: { in: [...new Set(proposals.map((p) => p.deploymentId))] } },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  const users = await prisma.user.findMany({
    where: { id: { in: proposals.flatMap((p) => [p.proposedById, p.decidedById]).filter((x): x is string => !!x) } },
    select: { id: true, email: true },
  });
  const email = (id: string | null) => users.find((u) => u.id === id)?.email ?? null;
  const generations = await prisma.deploymentGeneration.findMany({
    where: { OR: deployments.map((d) => ({ deploymentId: d.id, generation: d.generation })) },
  });
  // The generations approvals wrote: their outcome report carries the agent's phase timings.
  const appliedGenerations = await prisma.deploymentGeneration.findMany({
    where: {
      OR: proposals
        .filter((p) => p.appliedGeneration !== null)
        .map((p) => ({ deploymentId: p.deploymentId, generation: p.appliedGeneration! })),
    },
  });
  return proposals.map((p) => {
    const d = deployments.find((x) => x.id === p.deploymentId);
    const running = generations.find((g) => g.deploymentId === p.deploymentId && g.generation === d?.generation);
    const arrival = (d ? deploymentLastReportColumn.read(d.lastReport)?.arrivalRatePerS : undefined) ?? 0;
    const gap =
      p.measuredBatchLatencyMs !== null && p.predictedLatencyMs
        ? p.measuredBatchLatencyMs / p.predictedLatencyMs - 1
        : null;
    return {
      id: p.id,
      state: p.state,
      reason: p.reason,
      source: p.source,
      createdAt: p.createdAt,
      expiresAt: p.expiresAt,
      proposedBy: email(p.proposedById),
      decidedBy: email(p.decidedById),
      decisionComment: p.decisionComment,
      decidedAt: p.decidedAt,
      deployment: d
        ? {
            id: d.id,
            model: d.modelVersion.model.name,
            version: d.modelVersion.number,
            host: d.agent.hostName,
            generation: d.generation,
          }
        : null,
      baseGeneration: p.baseGeneration,
      appliedGeneration: p.appliedGeneration,
      failureReason: p.failureReason,
      profileId: p.profileId,
      blockedReason: p.blockedReason,
      policyNote: p.policyNote,
      autoApprovedPolicy: autoApprovedPolicyColumn.read(p.autoApprovedPolicy),
      lastProposedAt: p.lastProposedAt,
      applyReport: generationReportColumn.read(
        appliedGenerations.find((g) => g.deploymentId === p.deploymentId && g.generation === p.appliedGeneration)
          ?.report ?? null,
      ),
      proposed: { items: p.items, plan: p.plan, batchSize: p.batchSize, batchTimeoutMs: p.batchTimeoutMs },
      running: running
        ? {
            plan: running.plan,
            batchSize: planBatchSize(servingPlanSchema.parse(running.plan)),
            batchTimeoutMs: servingPlanSchema.parse(running.plan).batchTimeoutMs,
          }
        : null,
      predictedLatencyMs: p.predictedLatencyMs,
      predictedThroughputPerS: p.predictedThroughputPerS,
      // ρ at the current arrival rate against the proposed batched capacity (B / predicted latency).
      utilizationAtCurrentRate: p.predictedThroughputPerS ? arrival / p.predictedThroughputPerS : null,
      evidence: p.evidence,
      measuredBatchLatencyMs: p.measuredBatchLatencyMs,
      trial: p.trial === null ? null : (proposalTrialSchema.safeParse(p.trial).data ?? null),
      contentionGap: gap,
      contentionFlag: gap !== null && gap > CONTENTION_GAP_THRESHOLD,
    };
  });
}
