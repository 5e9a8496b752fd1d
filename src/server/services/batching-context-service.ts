// What the batching page (issue #20) reads besides its own inputs, in one query every signed-in role may make: the
// deployments a sweep or a proposal can target (with the running B and window, the arrival rate and the SLO), the
// complete profiles whose T(B) curve per thread count can be the service-time source, and the chosen deployment's
// sweeps with their measured points.
import type { PrismaClient } from "@/generated/prisma/client";
import { planBatchSize, servingPlanSchema } from "@/contracts/serving-plan";
import { db } from "@/server/db/client";
import { listSweeps } from "./batching-sweeps-service";
import { deploymentLastReportColumn } from "@/contracts/deployment-columns";

export async function batchingContext(input: { deploymentId?: string }, prisma: PrismaClient = db()) {
  const deployments = await prisma.deployment.findMany({
    where: { removedAt: null, agent: { decommissionedAt: null } },
    include: { agent: true, modelVersion: { include: { model: true } } },
    orderBy: { createdAt: "asc" },
  });
  const generations = await prisma.deploymentGeneration.findMany({
    where: { OR: deployments.map((d) => ({ deploymentId: d.id, generation: d.generation })) },
  });
  const list = deployments.map((d) => {
    const g = generations.find((x) => x.deploymentId === d.id);
    const plan = g ? servingPlanSchema.safeParse(g.plan) : null;
    return {
      id: d.id,
      model: d.modelVersion.model.name,
      version: d.modelVersion.number,
      host: d.agent.hostName,
      state: d.state,
      generation: d.generation,
      running: plan?.success ? { batchSize: planBatchSize(plan.data), batchTimeoutMs: plan.data.batchTimeoutMs } : null,
      sloDeadlineMs: d.modelVersion.model.sloDeadlineMs,
      arrivalRatePerS: deploymentLastReportColumn.read(d.lastReport)?.arrivalRatePerS ?? null,
    };
  });
  const chosen = input.deploymentId ? (list.find((d) => d.id === input.deploymentId) ?? null) : null;
  const profiles = await prisma.profile.findMany({
    where: { status: "complete" },
    orderBy: { createdAt: "desc" },
    take: 30,
    include: {
      modelVersion: { include: { model: true } },
      cells: { select: { threads: true, batch: true, meanMs: true }, orderBy: [{ threads: "asc" }, { batch: "asc" }] },
    },
  });
  return {
    deployments: list,
    chosen,
    profiles: profiles.map((p) => ({
      id: p.id,
      label: `${p.modelVersion.model.name} v${p.modelVersion.number} · ${p.cores} cores · ${p.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC`,
      modelName: p.modelVersion.model.name,
      curves: p.threads
        .map((t) => ({
          threads: t,
          points: p.cells.filter((c) => c.threads === t).map((c) => ({ batch: c.batch, latencyMs: c.meanMs })),
        }))
        .filter((c) => c.points.length > 0),
    })),
    sweeps: chosen ? await listSweeps({ deploymentId: chosen.id }, prisma) : [],
  };
}
