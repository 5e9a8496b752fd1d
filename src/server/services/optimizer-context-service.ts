// What the Optimizer page needs besides the optimizer itself, in one read that every signed-in role may make
// (managers read the page too, and agents.list / profiles.* are for operators): the deployments to choose from,
// and for the chosen one its host, core budget, running plan, arrival rate, its model's SLO (the batching
// validator's input) and every profile of its model with what differs from the deployment.
import type { PrismaClient } from "@/generated/prisma/client";
import { agentTopology } from "@/contracts/host-topology";
import { planBatchSize, servingPlanSchema } from "@/contracts/serving-plan";
import { db } from "@/server/db/client";
import { budgetCores } from "./deployment-plans";
import { compatibility } from "./profiles-query-service";
import { deploymentLastReportColumn } from "@/contracts/deployment-columns";

export async function optimizerContext(input: { deploymentId?: string }, prisma: PrismaClient = db()) {
  const deployments = await prisma.deployment.findMany({
    where: { removedAt: null, agent: { decommissionedAt: null } },
    include: { agent: true, modelVersion: { include: { model: true } } },
    orderBy: { createdAt: "asc" },
  });
  const list = deployments.map((d) => ({
    id: d.id,
    model: d.modelVersion.model.name,
    version: d.modelVersion.number,
    host: d.agent.hostName,
    cores: budgetCores(agentTopology(d.agent), d.cpus),
    generation: d.generation,
  }));
  // None asked for: the first one, so the page opens on something.
  const d = input.deploymentId ? deployments.find((x) => x.id === input.deploymentId) : deployments[0];
  if (!d) return { deployments: list, chosen: null };
  const running = await prisma.deploymentGeneration.findUnique({
    where: { deploymentId_generation: { deploymentId: d.id, generation: d.generation } },
  });
  const plan = running ? servingPlanSchema.parse(running.plan) : null;
  const profiles = await prisma.profile.findMany({
    where: { modelVersion: { modelId: d.modelVersion.modelId } },
    orderBy: { createdAt: "desc" },
    take: 50,
    include: { modelVersion: true, _count: { select: { cells: true } } },
  });
  const checks = await Promise.all(profiles.map((p) => compatibility(p.id, d.id, prisma)));
  const topology = agentTopology(d.agent);
  return {
    deployments: list,
    chosen: {
      id: d.id,
      host: d.agent.hostName,
      topology,
      allowedCpus: d.agent.allowedCpus,
      cpus: d.cpus,
      cores: budgetCores(topology, d.cpus),
      model: {
        id: d.modelVersion.modelId,
        name: d.modelVersion.model.name,
        version: d.modelVersion.number,
        sloDeadlineMs: d.modelVersion.model.sloDeadlineMs,
        sloQuantile: d.modelVersion.model.sloQuantile,
      },
      generation: d.generation,
      running: plan ? { plan, batchSize: planBatchSize(plan), batchTimeoutMs: plan.batchTimeoutMs } : null,
      arrivalRatePerS: deploymentLastReportColumn.read(d.lastReport)?.arrivalRatePerS ?? null,
      profiles: profiles.map((p, i) => ({
        id: p.id,
        version: p.modelVersion.number,
        status: p.status,
        perturbed: p.perturbed,
        perturbedRatePerS: p.perturbedRatePerS,
        cores: p.cores,
        threads: p.threads,
        batches: p.batches,
        cellsDone: p._count.cells,
        cellsTotal: p.threads.length * p.batches.length,
        createdAt: p.createdAt,
        compatible: checks[i]!.compatible,
        differences: checks[i]!.differences,
      })),
    },
  };
}
