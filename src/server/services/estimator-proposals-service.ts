// Proposals from the agents' batch-size estimators (Packrat §3.8): a heartbeat that carries a proposed B becomes a
// proposal with the optimizer's plan for that B on the deployment's latest complete compatible profile, and the
// estimator's timeline as evidence. One pending estimator proposal per deployment: the agent re-proposes every dwell
// time, and each re-proposal updates that one (never a flurry). Then the deployment's approval policy may approve it.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import type { EstimatorDecisionReport } from "@/contracts/agent-protocol";
import {
  proposalEvidenceColumn,
  proposalItemsColumn,
  proposalPlanColumn,
  type EstimatorDecisionEvidence,
} from "@/contracts/proposal-columns";
import { planBatchSize, servingPlanSchema } from "@/contracts/serving-plan";
import { changeKind, type ChangeKind } from "@/core/estimator/approval-policy";
import type { Baselines } from "@/core/optimizer/types";
import { recordAudit, type AuditActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { CoreInputError } from "@/core/errors/core-input-error";
import { DomainError } from "@/server/errors/domain-errors";
import { log } from "@/server/log";
import { applyApprovalPolicy, policyOf } from "./approval-policy-service";
import { estimatorTrialsLastHour, queueProposalTrial, trialEndedWithProposal } from "./plan-trial-service";
import { optimizeForDeployment } from "./optimizer-service";
import { compatibility } from "./profiles-query-service";
import { expireStaleProposals } from "./proposals-service";

const PROPOSAL_TTL_MS = 24 * 3_600_000;
/** Re-proposals remembered in the evidence (the newest). */
const HISTORY_LENGTH = 20;

export interface EstimatorProposalReport {
  batchSize: number;
  decision: EstimatorDecisionReport;
  timeline?: EstimatorDecisionReport[];
}

/** The evidence of an estimator proposal as it is written (the proposal row's `evidence` JSON; read back by
 *  proposal-columns.ts proposalEvidenceColumn). */
export type EstimatorEvidence = {
  estimator: EstimatorDecisionEvidence;
  profile: { id: string; createdAt: string } | null;
  change: ChangeKind | null;
  /** Why the proposal was offered without a plan trial (the policy's hourly rate spent), when it was. */
  trialNote?: string | null;
  /** The optimizer's figures, stored as JSON makes them. */
  baselines?: Baselines;
  why?: string | null;
  perturbed?: boolean;
  idleCores?: number;
  cores?: number;
};

/** The newest complete profile of the deployment's model version whose conditions match the deployment. */
export async function latestCompatibleProfile(deploymentId: string, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } });
  const profiles = await prisma.profile.findMany({
    where: { modelVersionId: deployment.modelVersionId, status: "complete" },
    orderBy: { createdAt: "desc" },
    take: 20,
  });
  for (const p of profiles) if ((await compatibility(p.id, deploymentId, prisma)).compatible) return p;
  return null;
}

type PlanOutcome =
  | {
      kind: "plan";
      profile: { id: string; createdAt: Date };
      optimized: Extract<Awaited<ReturnType<typeof optimizeForDeployment>>, { kind: "plan" }>;
    }
  | { kind: "blocked"; reason: string; profile: { id: string; createdAt: Date } | null };

async function planFor(deploymentId: string, batchSize: number, prisma: PrismaClient): Promise<PlanOutcome> {
  const profile = await latestCompatibleProfile(deploymentId, prisma);
  if (!profile) {
    return {
      kind: "blocked",
      profile: null,
      reason: `no complete profile of this model version matches the deployment (hardware, runtime, core budget, input dimensions): profile the deployment to get a plan for B = ${batchSize}`,
    };
  }
  try {
    const optimized = await optimizeForDeployment({ deploymentId, profileId: profile.id, batchSize }, prisma);
    if (optimized.kind === "infeasible")
      return {
        kind: "blocked",
        profile,
        reason: `the optimizer found no plan for B = ${batchSize} on profile ${profile.id}: ${optimized.reason}`,
      };
    return { kind: "plan", profile, optimized };
  } catch (error) {
    // A refusal (the service's, or the optimizer's or allocator's of this B) blocks the proposal; anything else is a bug.
    if (error instanceof DomainError || error instanceof CoreInputError)
      return { kind: "blocked", profile, reason: `no plan for B = ${batchSize}: ${error.message}` };
    throw error;
  }
}

export type EstimatorProposalOutcome =
  | { kind: "ignored"; reason: string }
  | { kind: "created" | "updated" | "refreshed"; proposalId: string; autoApproved: boolean };

/**
 * Called after a heartbeat that carried `estimatorProposal`. Ignored when the agent's view is stale (it has not
 * applied the current generation yet), when it proposes the B the deployment already runs, or when an SRE rejected
 * this very B for this generation.
 */
export async function recordEstimatorProposal(
  deploymentId: string,
  report: EstimatorProposalReport,
  prisma: PrismaClient = db(),
): Promise<EstimatorProposalOutcome> {
  const deployment = await prisma.deployment.findUnique({
    where: { id: deploymentId },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  if (!deployment || deployment.removedAt) return { kind: "ignored", reason: "the deployment is gone" };
  if (deployment.observedGeneration !== deployment.generation)
    return { kind: "ignored", reason: "the agent has not applied the current generation yet" };
  const current = await prisma.deploymentGeneration.findUniqueOrThrow({
    where: { deploymentId_generation: { deploymentId, generation: deployment.generation } },
  });
  const currentPlan = servingPlanSchema.parse(current.plan);
  const currentB = planBatchSize(currentPlan);
  const B = report.batchSize;
  if (B === currentB) return { kind: "ignored", reason: `the deployment already runs B = ${B}` };
  const rejected = await prisma.proposal.findFirst({
    where: {
      deploymentId,
      source: "estimator",
      state: "rejected",
      baseGeneration: deployment.generation,
      batchSize: B,
    },
  });
  if (rejected) return { kind: "ignored", reason: `an SRE rejected B = ${B} for generation ${deployment.generation}` };
  await expireStaleProposals(prisma);

  const outcome = await planFor(deploymentId, B, prisma);
  const reason = `estimator: stable batch size ${currentB} → ${B}`;
  const agentActor: AuditActor = { type: "agent", id: deployment.agentId, label: deployment.agent.hostName };
  const target = (id: string) => ({
    type: "proposal",
    id,
    label: `${deployment.modelVersion.model.name} on ${deployment.agent.hostName}`,
  });
  const now = new Date();
  const timeline = report.timeline ?? [];
  const planned = outcome.kind === "plan" ? outcome.optimized : null;
  const fields = {
    items: writeJsonColumn(proposalItemsColumn, planned?.instances ?? []),
    plan: writeJsonColumn(proposalPlanColumn, planned?.plan ?? {}),
    batchSize: B,
    batchTimeoutMs: planned?.batchTimeoutMs ?? currentPlan.batchTimeoutMs,
    profileId: outcome.profile?.id ?? null,
    predictedLatencyMs: planned?.latencyMs ?? null,
    predictedThroughputPerS: planned?.throughputPerS ?? null,
    reason,
    blockedReason: outcome.kind === "blocked" ? outcome.reason : null,
    lastProposedAt: now,
  };
  const evidenceOf = (reports: number, history: EstimatorEvidence["estimator"]["history"]): EstimatorEvidence => ({
    estimator: {
      agent: deployment.agent.hostName,
      decision: report.decision,
      timeline,
      reports,
      history: [...history, { at: now.toISOString(), batchSize: B }].slice(-HISTORY_LENGTH),
    },
    profile: outcome.profile ? { id: outcome.profile.id, createdAt: outcome.profile.createdAt.toISOString() } : null,
    change: planned ? changeKind(currentPlan.instances, planned.instances) : null,
    ...(planned
      ? {
          baselines: planned.baselines,
          why: planned.why,
          perturbed: planned.perturbed,
          idleCores: planned.idleCores,
          cores: planned.cores,
        }
      : {}),
  });

  // A plan is checked by a plan trial before it is offered, as many an hour as the approval policy approves.
  const policy = await policyOf(deploymentId, prisma);
  const trialIfAllowed = async (tx: Prisma.TransactionClient, proposalId: string): Promise<string | null> => {
    if (!planned || !outcome.profile) return null;
    const used = await estimatorTrialsLastHour(deploymentId, tx);
    if (used >= policy.maxPerHour)
      return `no plan trial: ${used} in the last hour already (the approval policy's rate is ${policy.maxPerHour} an hour)`;
    await queueProposalTrial(tx, {
      proposalId,
      deploymentId,
      profileId: outcome.profile.id,
      optimized: planned,
      createdById: null,
    });
    return null;
  };

  const written = await prisma.$transaction(async (tx) => {
    // One writer per deployment: two heartbeats racing cannot both create a pending proposal.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`estimator-proposal:${deploymentId}`}))`;
    const pending = await tx.proposal.findFirst({
      where: { deploymentId, source: "estimator", state: { in: ["pending", "trialing"] } },
      orderBy: { createdAt: "desc" },
    });
    if (pending && pending.baseGeneration === deployment.generation) {
      const previous = proposalEvidenceColumn.read(pending.evidence);
      const evidence = evidenceOf((previous.estimator?.reports ?? 1) + 1, previous.estimator?.history ?? []);
      const same = pending.batchSize === B && pending.blockedReason === fields.blockedReason;
      // The same proposal again keeps its trial (or its note); a changed one is measured afresh.
      let trialNote = previous.trialNote ?? null;
      if (!same) {
        if (pending.trialJobId) await trialEndedWithProposal(tx, pending.trialJobId);
        await tx.proposal.update({
          where: { id: pending.id },
          data: { state: "pending", trialJobId: null, trial: Prisma.DbNull },
        });
        trialNote = await trialIfAllowed(tx, pending.id);
      }
      await tx.proposal.update({
        where: { id: pending.id },
        data: {
          ...fields,
          evidence: writeJsonColumn(proposalEvidenceColumn, { ...evidence, trialNote }),
          expiresAt: new Date(now.getTime() + PROPOSAL_TTL_MS),
        },
      });
      if (same) return { kind: "refreshed" as const, proposalId: pending.id };
      // What it proposes changed (another B, or a profile now gives it a plan): the audit log says so.
      await recordAudit(tx, {
        actor: agentActor,
        action: "proposal.update",
        target: target(pending.id),
        before: { batchSize: pending.batchSize, blockedReason: pending.blockedReason },
        after: {
          batchSize: B,
          reason,
          blockedReason: fields.blockedReason,
          predictedLatencyMs: fields.predictedLatencyMs,
        },
      });
      return { kind: "updated" as const, proposalId: pending.id };
    }
    const id = randomUUID();
    await tx.proposal.create({
      data: {
        id,
        deploymentId,
        ...fields,
        baseGeneration: deployment.generation,
        evidence: writeJsonColumn(proposalEvidenceColumn, evidenceOf(1, [])),
        source: "estimator",
        proposedById: null,
        expiresAt: new Date(now.getTime() + PROPOSAL_TTL_MS),
      },
    });
    const trialNote = await trialIfAllowed(tx, id);
    if (trialNote)
      await tx.proposal.update({
        where: { id },
        data: { evidence: writeJsonColumn(proposalEvidenceColumn, { ...evidenceOf(1, []), trialNote }) },
      });
    await recordAudit(tx, {
      actor: agentActor,
      action: "proposal.create",
      target: target(id),
      after: {
        deploymentId,
        source: "estimator",
        batchSize: B,
        items: planned?.instances ?? null,
        predictedLatencyMs: fields.predictedLatencyMs,
        reason,
        blockedReason: fields.blockedReason,
      },
    });
    return { kind: "created" as const, proposalId: id };
  });
  let autoApproved = false;
  try {
    autoApproved = await applyApprovalPolicy(written.proposalId, prisma);
  } catch (error) {
    log.warn("auto-approval failed", { proposalId: written.proposalId, error: (error as Error).message });
  }
  return { ...written, autoApproved };
}

export type EstimatorWithdrawalOutcome = { kind: "none" } | { kind: "withdrawn"; proposalId: string };

/**
 * Called after every heartbeat with the estimator's new decisions. When the newest says the stable batch size is the
 * one the deployment runs again (the load went back) and the agent has not proposed for its dwell time, the pending
 * estimator proposal for this generation is withdrawn, with the reason and an audit row, so an SRE does not approve
 * a change the load no longer asks for. The dwell is the estimator's own flip-flop guard, applied both ways.
 */
export async function withdrawSettledEstimatorProposal(
  deploymentId: string,
  decisions: readonly EstimatorDecisionReport[],
  dwellMs: number,
  prisma: PrismaClient = db(),
): Promise<EstimatorWithdrawalOutcome> {
  const newest = decisions.at(-1);
  if (!newest || newest.outcome !== "stable-equals-current") return { kind: "none" };
  // The common case on a steady deployment's every heartbeat: nothing pending, one indexed query and done.
  if (
    !(await prisma.proposal.findFirst({
      where: { deploymentId, source: "estimator", state: { in: ["pending", "trialing"] } },
      select: { id: true },
    }))
  )
    return { kind: "none" };
  const deployment = await prisma.deployment.findUnique({
    where: { id: deploymentId },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  if (!deployment || deployment.removedAt || deployment.observedGeneration !== deployment.generation)
    return { kind: "none" };
  return prisma.$transaction(async (tx) => {
    // The same lock as recordEstimatorProposal: a re-proposal and a withdrawal never interleave.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`estimator-proposal:${deploymentId}`}))`;
    const pending = await tx.proposal.findFirst({
      where: {
        deploymentId,
        source: "estimator",
        state: { in: ["pending", "trialing"] },
        baseGeneration: deployment.generation,
      },
    });
    const lastProposed = (pending?.lastProposedAt ?? pending?.createdAt)?.getTime() ?? 0;
    if (!pending || Date.now() - lastProposed < dwellMs) return { kind: "none" as const };
    const comment = `its stable batch size is back to B = ${newest.current}, the one the deployment runs`;
    await tx.proposal.update({
      where: { id: pending.id },
      data: { state: "withdrawn", outcomeAt: new Date(), decisionComment: comment },
    });
    if (pending.trialJobId) await trialEndedWithProposal(tx, pending.trialJobId);
    await recordAudit(tx, {
      actor: { type: "agent", id: deployment.agentId, label: deployment.agent.hostName },
      action: "proposal.withdraw",
      target: {
        type: "proposal",
        id: pending.id,
        label: `${deployment.modelVersion.model.name} on ${deployment.agent.hostName}`,
      },
      before: { state: pending.state, batchSize: pending.batchSize },
      after: { state: "withdrawn", reason: comment },
    });
    return { kind: "withdrawn" as const, proposalId: pending.id };
  });
}
