// The Optimizer page's data: Packrat's knapsack (§3.3) on a compatible, complete profile for a deployment's core
// budget, the allocation that would run it (§3.4), both baselines, latency vs B, and why the choice wins
// (derived from the chosen plan: core/optimizer/why-this-plan.ts).
import type { PrismaClient } from "@/generated/prisma/client";
import { versionServingAxes } from "./model-serving-axes";
import { optimize } from "@/core/optimizer/optimize";
import { optimumTable } from "@/core/optimizer/optimum-table";
import { whyThisPlan } from "@/core/optimizer/why-this-plan";
import { flaggedCellsOfPlan, profileQuality } from "@/core/profiling/profile-quality";
import type { ProfileCell } from "@/core/profile/profile";
import { generationPlanColumn } from "@/contracts/deployment-columns";
import { agentTopology } from "@/contracts/host-topology";
import { profileDimensionsColumn } from "@/contracts/model-columns";
import { db } from "@/server/db/client";
import { DomainError, notFound } from "@/server/errors/domain-errors";
import { allocatePlan, budgetCores } from "./deployment-plans";
import { compatibility } from "./profiles-query-service";
import { agentContentionModel, correctedFor } from "./plan-trial-service";

export interface OptimizeForDeploymentInput {
  deploymentId: string;
  profileId: string;
  batchSize: number;
  batchTimeoutMs?: number;
}

export async function optimizeForDeployment(input: OptimizeForDeploymentInput, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUnique({
    where: { id: input.deploymentId },
    include: { agent: true, modelVersion: { select: { analysis: true } } },
  });
  if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
  const compat = await compatibility(input.profileId, input.deploymentId, prisma);
  if (!compat.compatible) {
    throw new DomainError(
      "PRECONDITION_FAILED",
      `this profile does not fit the deployment: ${compat.differences.map((d) => `${d.field} (profile ${d.profile}, deployment ${d.deployment})`).join("; ")}`,
    );
  }
  const profile = await prisma.profile.findUniqueOrThrow({ where: { id: input.profileId }, include: { cells: true } });
  const cells: ProfileCell[] = profile.cells.map((c) => ({ threads: c.threads, batch: c.batch, latencyMs: c.meanMs }));
  const topology = agentTopology(deployment.agent);
  const T = budgetCores(topology, deployment.cpus);
  const result = optimize(cells, { cores: T, batch: input.batchSize });
  const maxB = Math.max(input.batchSize, Math.max(...profile.batches) * T);
  const table = optimumTable(cells, { cores: T, maxBatch: Math.min(maxB, 1024) });
  const current = await prisma.deploymentGeneration.findUniqueOrThrow({
    where: { deploymentId_generation: { deploymentId: deployment.id, generation: deployment.generation } },
  });
  const currentPlan = generationPlanColumn.read(current.plan);
  const batchTimeoutMs = input.batchTimeoutMs ?? currentPlan.batchTimeoutMs;
  if (result.kind === "infeasible") {
    return {
      kind: "infeasible" as const,
      reason: result.reason,
      cores: T,
      table: table.rows,
      perturbed: profile.perturbed,
      perturbedRatePerS: profile.perturbedRatePerS,
    };
  }
  const items = result.instances.map(({ count, threads, batch }) => ({ count, threads, batch }));
  // Cells measured while other processes took more than the threshold of their CPUs: the plan is said to rest on them.
  const flaggedInPlan = flaggedCellsOfPlan(result.instances, profile.cells).map((c) => ({
    threads: c.threads,
    batch: c.batch,
    interferencePct: c.interferencePct,
  }));
  // This host's contention and per-batch overhead, fitted on its earlier plan trials (the identity before any).
  const model = await agentContentionModel(deployment.agentId, prisma);
  const base = result.baselines;
  const correction = {
    model,
    latencyMs: correctedFor(model, result.instances, result.latencyMs, T),
    allThreadsMs: base.allThreads.available
      ? correctedFor(model, base.allThreads.instances, base.allThreads.latencyMs, T)
      : null,
    oneThreadMs: base.oneThread.available
      ? correctedFor(model, base.oneThread.instances, base.oneThread.latencyMs, T)
      : null,
  };
  const allocated = allocatePlan(topology, deployment.cpus, {
    items,
    batchSize: input.batchSize,
    batchTimeoutMs,
    dimensions: profileDimensionsColumn.read(profile.dimensions),
  });
  const overrides = versionServingAxes(deployment.modelVersion.analysis)?.batchAxes ?? {};
  const plan = Object.keys(overrides).length ? { ...allocated, batchAxes: overrides } : allocated;
  return {
    kind: "plan" as const,
    cores: T,
    batchSize: input.batchSize,
    batchTimeoutMs,
    latencyMs: result.latencyMs,
    throughputPerS: result.throughputPerS,
    idleCores: result.idleCores,
    instances: result.instances,
    baselines: result.baselines,
    plan,
    correction,
    table: table.rows,
    why: whyThisPlan(result, cells),
    perturbed: profile.perturbed,
    perturbedRatePerS: profile.perturbedRatePerS,
    flaggedInPlan,
    quality: profileQuality(profile.cells),
    current: { generation: deployment.generation, plan: currentPlan },
  };
}
