// The Optimizer page's data: Packrat's knapsack (§3.3) on a compatible, complete profile for a deployment's core
// budget, the allocation that would run it (§3.4), both baselines, latency vs B, and why the choice wins.
import type { PrismaClient } from "@/generated/prisma/client";
import { versionServingAxes } from "./model-serving-axes";
import { optimize } from "@/core/optimizer/optimize";
import { optimumTable } from "@/core/optimizer/optimum-table";
import type { ProfileCell } from "@/core/profile/profile";
import type { HostTopology } from "@/core/topology/types";
import type { ServingPlan } from "@/contracts/serving-plan";
import { db } from "@/server/db/client";
import { DomainError, notFound } from "@/server/errors/domain-errors";
import { allocatePlan, budgetCores } from "./deployment-plans";
import { compatibility } from "./profiles-query-service";

export interface OptimizeForDeploymentInput { deploymentId: string; profileId: string; batchSize: number; batchTimeoutMs?: number }

/** One line from the profile on where threads stop paying, at the batch size nearest B. */
export function whyLine(cells: readonly ProfileCell[], batchSize: number): string | null {
  const batches = [...new Set(cells.map((c) => c.batch))].sort((a, b) => Math.abs(a - batchSize) - Math.abs(b - batchSize));
  const b = batches[0];
  if (b === undefined) return null;
  const byThreads = cells.filter((c) => c.batch === b).sort((x, y) => x.threads - y.threads);
  for (let i = 1; i < byThreads.length; i++) {
    const gain = byThreads[i - 1]!.latencyMs / byThreads[i]!.latencyMs;
    if (gain < 1.3) {
      return `at b = ${b}, going from ${byThreads[i - 1]!.threads} to ${byThreads[i]!.threads} threads is only ${gain.toFixed(2)}× faster: more, smaller instances use those cores better`;
    }
  }
  return byThreads.length > 1 ? `at b = ${b}, every added thread still pays ≥ 1.3×: one wide instance stays competitive` : null;
}

export async function optimizeForDeployment(input: OptimizeForDeploymentInput, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUnique({ where: { id: input.deploymentId }, include: { agent: true, modelVersion: { select: { analysis: true } } } });
  if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
  const compat = await compatibility(input.profileId, input.deploymentId, prisma);
  if (!compat.compatible) {
    throw new DomainError("PRECONDITION_FAILED", `this profile does not fit the deployment: ${compat.differences.map((d) => `${d.field} (profile ${d.profile}, deployment ${d.deployment})`).join("; ")}`);
  }
  const profile = await prisma.profile.findUniqueOrThrow({ where: { id: input.profileId }, include: { cells: true } });
  const cells: ProfileCell[] = profile.cells.map((c) => ({ threads: c.threads, batch: c.batch, latencyMs: c.meanMs }));
  const topology = deployment.agent.topology as unknown as HostTopology;
  const T = budgetCores(topology, deployment.cpus);
  const result = optimize(cells, { cores: T, batch: input.batchSize });
  const maxB = Math.max(input.batchSize, Math.max(...profile.batches) * T);
  const table = optimumTable(cells, { cores: T, maxBatch: Math.min(maxB, 1024) });
  const current = await prisma.deploymentGeneration.findUniqueOrThrow({ where: { deploymentId_generation: { deploymentId: deployment.id, generation: deployment.generation } } });
  const currentPlan = current.plan as ServingPlan;
  const batchTimeoutMs = input.batchTimeoutMs ?? currentPlan.batchTimeoutMs;
  if (result.kind === "infeasible") {
    return { kind: "infeasible" as const, reason: result.reason, cores: T, table: table.rows, perturbed: profile.perturbed, perturbedRatePerS: profile.perturbedRatePerS };
  }
  const items = result.instances.map(({ count, threads, batch }) => ({ count, threads, batch }));
  const allocated = allocatePlan(topology, deployment.cpus, { items, batchSize: input.batchSize, batchTimeoutMs, dimensions: profile.dimensions as Record<string, number> });
  const overrides = versionServingAxes(deployment.modelVersion.analysis)?.batchAxes ?? {};
  const plan = Object.keys(overrides).length ? { ...allocated, batchAxes: overrides } : allocated;
  return {
    kind: "plan" as const,
    cores: T, batchSize: input.batchSize, batchTimeoutMs,
    latencyMs: result.latencyMs, throughputPerS: result.throughputPerS, idleCores: result.idleCores,
    instances: result.instances, baselines: result.baselines, plan,
    table: table.rows, why: whyLine(cells, input.batchSize),
    perturbed: profile.perturbed, perturbedRatePerS: profile.perturbedRatePerS,
    current: { generation: deployment.generation, plan: currentPlan },
  };
}
