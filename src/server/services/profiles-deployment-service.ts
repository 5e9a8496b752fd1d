// The deployment page's Profiles section: the deployment's profiles with their progress, and what the "Profile
// this deployment" form needs (the core budget T, the model's versions with their serving dimensions).
import type { PrismaClient } from "@/generated/prisma/client";
import { agentTopology } from "@/contracts/host-topology";
import { db } from "@/server/db/client";
import { notFound } from "@/server/errors/domain-errors";
import { budgetCores } from "./deployment-plans";
import { profilingCpusFor } from "./profiling-service";
import { profileStoppingRuleColumn, servingDimsColumn } from "@/contracts/model-columns";

export async function profilesForDeployment(deploymentId: string, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUnique({
    where: { id: deploymentId },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  if (!deployment) throw notFound("deployment", deploymentId);
  const [versions, profiles] = await Promise.all([
    prisma.modelVersion.findMany({
      where: { modelId: deployment.modelVersion.modelId },
      orderBy: { number: "desc" },
      select: { id: true, number: true, servingDims: true },
    }),
    prisma.profile.findMany({
      where: { deploymentId },
      orderBy: { createdAt: "desc" },
      include: { modelVersion: { select: { number: true } }, _count: { select: { cells: true } } },
    }),
  ]);
  const jobs = await prisma.job.findMany({
    where: { id: { in: profiles.map((p) => p.jobId).filter((x): x is string => x !== null) } },
    select: { id: true, error: true },
  });
  const cores = budgetCores(agentTopology(deployment.agent), deployment.cpus);
  const placement = await profilingCpusFor(deployment, cores, prisma);
  return {
    cores,
    placement,
    cpus: deployment.cpus,
    hostName: deployment.agent.hostName,
    modelName: deployment.modelVersion.model.name,
    deployedVersionId: deployment.modelVersionId,
    removed: deployment.removedAt !== null,
    versions: versions.map((v) => ({
      id: v.id,
      number: v.number,
      servingDims: servingDimsColumn.read(v.servingDims ?? {}),
    })),
    profiles: profiles.map((p) => ({
      id: p.id,
      version: p.modelVersion.number,
      status: p.status,
      perturbed: p.perturbed,
      perturbedRatePerS: p.perturbedRatePerS,
      threads: p.threads,
      batches: p.batches,
      rule: profileStoppingRuleColumn.read(p.stoppingRule).kind,
      cellsDone: p._count.cells,
      cellsTotal: p.threads.length * p.batches.length,
      error: jobs.find((j) => j.id === p.jobId)?.error ?? null,
      createdAt: p.createdAt,
      finishedAt: p.finishedAt,
    })),
  };
}
