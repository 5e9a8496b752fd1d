// Read models for the Agents and Deployment pages: liveness from heartbeat age, core maps from the last reports,
// live rates and latency percentiles from the last minutes' rollups.
import type { PrismaClient } from "@/generated/prisma/client";
import { LatencyHistogram } from "@/core/stats/histogram";
import { summarizeTopology } from "@/core/topology/topology-queries";
import type { HostTopology } from "@/core/topology/types";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { notFound } from "@/server/errors/domain-errors";
import { hostTopologySchema } from "@/contracts/host-topology";
import { agentContentionModel } from "./plan-trial-service";
import { agentLastHostColumn } from "@/contracts/agent-columns";
import { deploymentLastReportColumn, rollupStageParts } from "@/contracts/deployment-columns";
import { rollupPartsByMinute, rollupPartsKey } from "./rollup-parts-query";

/** The registered topology, or an empty one if the stored JSON is not a topology (never crash a page on it). */
function topologyOf(json: unknown): HostTopology {
  const parsed = hostTopologySchema.safeParse(json);
  return parsed.success ? parsed.data : { sockets: [] };
}

export interface LiveFigures {
  ratePerS: number;
  p50Ms: number | null;
  p99Ms: number | null;
  requests: number;
  rejected: number;
  withinSloShare: number | null;
}

/** Rate and latency over the last `minutes` minutes of rollups. */
export async function liveFigures(
  deploymentIds: string[],
  minutes = 5,
  prisma: PrismaClient = db(),
): Promise<Map<string, LiveFigures>> {
  const since = new Date(Date.now() - minutes * 60_000);
  const rollups = await prisma.metricsRollup.findMany({
    where: { deploymentId: { in: deploymentIds }, minute: { gte: since } },
  });
  const parts = await rollupPartsByMinute(prisma, deploymentIds, since);
  const out = new Map<string, LiveFigures>();
  for (const id of deploymentIds) {
    const rows = rollups.filter((r) => r.deploymentId === id);
    // Merged at the parts' own precision: a finer target would report a coarse bucket's lowest value.
    const total = LatencyHistogram.merge(
      rows.flatMap((row) =>
        rollupStageParts(parts.get(rollupPartsKey(row.deploymentId, row.minute)) ?? [], "total").map((encoded) =>
          LatencyHistogram.decode(encoded),
        ),
      ),
    );
    const intervalMs = rows.reduce((s, r) => s + r.intervalMs, 0);
    const requests = rows.reduce((s, r) => s + r.requestsCompleted, 0);
    const rejected = rows.reduce((s, r) => s + r.requestsRejected, 0);
    const within = rows.reduce((s, r) => s + r.requestsWithinSlo, 0);
    out.set(id, {
      ratePerS: intervalMs > 0 ? ((requests + rejected) * 1000) / intervalMs : 0,
      p50Ms: total.count ? total.percentileMs(50) : null,
      p99Ms: total.count ? total.percentileMs(99) : null,
      requests,
      rejected,
      withinSloShare: requests ? within / requests : null,
    });
  }
  return out;
}

export async function listAgents(prisma: PrismaClient = db()) {
  const agents = await prisma.agent.findMany({
    where: { decommissionedAt: null },
    orderBy: { hostName: "asc" },
    include: {
      deployments: {
        where: { removedAt: null },
        include: { modelVersion: { include: { model: true } } },
        orderBy: { createdAt: "asc" },
      },
    },
  });
  const figures = await liveFigures(
    agents.flatMap((a) => a.deployments.map((d) => d.id)),
    5,
    prisma,
  );
  const offlineAfter = env().AGENT_OFFLINE_AFTER_MS;
  // Each host's contention and per-batch overhead, fitted on its plan trials (applied to later predictions).
  const contention = new Map(
    await Promise.all(agents.map(async (a) => [a.id, await agentContentionModel(a.id, prisma)] as const)),
  );
  return agents.map((agent) => {
    const topology = topologyOf(agent.topology);
    const host = agentLastHostColumn.read(agent.lastHost);
    const heartbeatAgeMs = agent.lastHeartbeatAt ? Date.now() - agent.lastHeartbeatAt.getTime() : null;
    return {
      id: agent.id,
      hostName: agent.hostName,
      agentVersion: agent.agentVersion,
      ortVersion: agent.ortVersion,
      cpuModel: agent.cpuModel,
      inferenceUrl: agent.inferenceUrl,
      memoryBytes: Number(agent.memoryBytes),
      online: heartbeatAgeMs !== null && heartbeatAgeMs < offlineAfter,
      heartbeatAgeMs,
      topology,
      summary: summarizeTopology(topology),
      allowedCpus: agent.allowedCpus,
      revision: agent.revision,
      appliedRevision: agent.appliedRevision,
      cpuBusyFraction: host?.cpuBusyFraction ?? null,
      servingProcessRestarts: host?.servingProcessRestarts ?? 0,
      contention: contention.get(agent.id)!,
      deployments: agent.deployments.map((d) => {
        const report = deploymentLastReportColumn.read(d.lastReport) ?? {};
        return {
          id: d.id,
          modelId: d.modelVersion.modelId,
          modelName: d.modelVersion.model.name,
          version: d.modelVersion.number,
          syntheticWeights: d.modelVersion.syntheticWeights,
          cpus: d.cpus,
          generation: d.generation,
          observedGeneration: d.observedGeneration,
          state: d.state,
          failureReason: d.failureReason,
          instances: report.instances ?? [],
          affinityOk: report.affinityOk ?? null,
          queueDepthRows: report.queueDepthRows ?? 0,
          live: figures.get(d.id)!,
        };
      }),
    };
  });
}

export async function getDeployment(id: string, prisma: PrismaClient = db()) {
  const d = await prisma.deployment.findUnique({
    where: { id },
    include: {
      agent: true,
      modelVersion: { include: { model: true } },
      generations: { orderBy: { generation: "desc" } },
    },
  });
  if (!d) throw notFound("deployment", id);
  const users = await prisma.user.findMany({
    where: { id: { in: d.generations.map((g) => g.createdById).filter((x): x is string => !!x) } },
    select: { id: true, email: true },
  });
  const versions = await prisma.modelVersion.findMany({
    where: { modelId: d.modelVersion.modelId },
    orderBy: { number: "desc" },
    select: { id: true, number: true },
  });
  const figures = (await liveFigures([d.id], 5, prisma)).get(d.id)!;
  // Without an SLO nothing is counted "within" it: say so rather than show 0 %.
  const live = { ...figures, withinSloShare: d.modelVersion.model.sloDeadlineMs ? figures.withinSloShare : null };
  const slo = d.modelVersion.model.sloDeadlineMs
    ? { deadlineMs: d.modelVersion.model.sloDeadlineMs, quantile: d.modelVersion.model.sloQuantile }
    : null;
  const report = deploymentLastReportColumn.read(d.lastReport) ?? {};
  return {
    id: d.id,
    removed: d.removedAt !== null,
    cpus: d.cpus,
    agent: {
      id: d.agent.id,
      hostName: d.agent.hostName,
      inferenceUrl: d.agent.inferenceUrl,
      topology: topologyOf(d.agent.topology),
      allowedCpus: d.agent.allowedCpus,
    },
    model: {
      id: d.modelVersion.modelId,
      name: d.modelVersion.model.name,
      version: d.modelVersion.number,
      versionId: d.modelVersionId,
      syntheticWeights: d.modelVersion.syntheticWeights,
    },
    versions,
    generation: d.generation,
    observedGeneration: d.observedGeneration,
    state: d.state,
    failureReason: d.failureReason,
    instances: report.instances ?? [],
    affinityOk: report.affinityOk ?? null,
    lastReportAt: report.at ?? null,
    lastReconfiguration: report.lastReconfiguration ?? null,
    estimator: report.estimator ?? null,
    live,
    slo,
    history: d.generations.map((g) => ({
      generation: g.generation,
      label: g.label,
      plan: g.plan,
      createdAt: g.createdAt,
      createdBy: users.find((u) => u.id === g.createdById)?.email ?? null,
      outcome: g.outcome,
      outcomeAt: g.outcomeAt,
      failureReason: g.failureReason,
      modelVersionId: g.modelVersionId,
    })),
  };
}

/** Latency percentiles and rate per minute over the last hour, for the deployment page's chart. */
export async function deploymentTimeline(id: string, minutes = 60, prisma: PrismaClient = db()) {
  const since = new Date(Date.now() - minutes * 60_000);
  const rows = await prisma.metricsRollup.findMany({
    where: { deploymentId: id, minute: { gte: since } },
    orderBy: { minute: "asc" },
  });
  const parts = await rollupPartsByMinute(prisma, [id], since);
  return rows.map((r) => {
    const encoded = rollupStageParts(parts.get(rollupPartsKey(r.deploymentId, r.minute)) ?? [], "total");
    const h = encoded.length ? LatencyHistogram.merge(encoded.map((e) => LatencyHistogram.decode(e))) : undefined;
    return {
      minute: r.minute,
      ratePerS: r.intervalMs > 0 ? ((r.requestsCompleted + r.requestsRejected) * 1000) / r.intervalMs : 0,
      p50Ms: h?.count ? h.percentileMs(50) : null,
      p99Ms: h?.count ? h.percentileMs(99) : null,
      rejected: r.requestsRejected,
    };
  });
}

/** Every model version, newest first, for the deploy form. */
export async function listDeployableVersions(prisma: PrismaClient = db()) {
  const versions = await prisma.modelVersion.findMany({
    include: { model: true },
    orderBy: [{ model: { name: "asc" } }, { number: "desc" }],
  });
  return versions.map((v) => ({
    id: v.id,
    modelId: v.modelId,
    modelName: v.model.name,
    number: v.number,
    syntheticWeights: v.syntheticWeights,
  }));
}
