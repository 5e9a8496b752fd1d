// Live data for the planning pages (issue #18): a chosen deployment's measured stage times (from the heartbeat
// histograms merged into per-minute rollups) for the latency budget, and its operating point (arrival rate,
// utilization, time in the server) for the capacity curves. Read-only; the window is the last N rollup minutes.
import type { PrismaClient } from "@/generated/prisma/client";
import type { StageKind } from "@/core/planning/latency-budget";
import { LatencyHistogram } from "@/core/stats/histogram";
import { db } from "@/server/db/client";
import { notFound } from "@/server/errors/domain-errors";
import { rollupStageParts, type StageHistograms } from "@/contracts/deployment-columns";
import { rollupPartsByMinute, rollupPartsKey } from "./rollup-parts-query";

/** The agent's histogram for each budget stage it measures. Its "queue" (formation + busy) would count formation twice. */
export const MEASURED_STAGE_HISTOGRAMS: ReadonlyArray<{ stage: StageKind; histogram: string }> = [
  { stage: "deserialize", histogram: "deserialize" },
  { stage: "queue", histogram: "busy" },
  { stage: "batchFormation", histogram: "formation" },
  { stage: "inference", histogram: "compute" },
  { stage: "serialize", histogram: "serialize" },
];

export interface LiveDeploymentItem {
  id: string;
  label: string;
  state: string;
}

export interface LiveWindow {
  minutes: number;
  /** The first and the end of the last rollup minute that holds data (null when none does). */
  from: Date | null;
  to: Date | null;
  requests: number;
}

export interface MeasuredStage {
  p50Ms: number;
  p99Ms: number;
  count: number;
}

export interface MeasuredStagesResult {
  deploymentId: string;
  label: string;
  state: string;
  window: LiveWindow;
  stages: Partial<Record<StageKind, MeasuredStage>>;
}

export interface OperatingPointResult {
  deploymentId: string;
  label: string;
  state: string;
  window: LiveWindow;
  /** Requests (completed + rejected) per second over the heartbeat intervals in the window. */
  arrivalRatePerS: number | null;
  /** Busy time of the instance set over the interval (one batch runs at a time, so this is ρ of one server). */
  utilization: number | null;
  /** Busy time per completed request: ρ / λ, the mean service time the queueing curves take. */
  serviceTimeMs: number | null;
  /** Time in the server (queue wait + compute) per request. */
  meanMs: number | null;
  p99Ms: number | null;
}

const labelOf = (d: {
  id: string;
  modelVersion: { number: number; model: { name: string } };
  agent: { hostName: string };
}) => `${d.modelVersion.model.name} v${d.modelVersion.number} on ${d.agent.hostName}`;

/** Deployments a planner may pick: every one not removed, serving first. */
export async function listLiveDeployments(prisma: PrismaClient = db()): Promise<LiveDeploymentItem[]> {
  const rows = await prisma.deployment.findMany({
    where: { removedAt: null },
    include: { agent: true, modelVersion: { include: { model: true } } },
    orderBy: { createdAt: "asc" },
  });
  return rows
    .map((d) => ({ id: d.id, label: labelOf(d), state: d.state }))
    .sort((a, b) => Number(b.state === "serving") - Number(a.state === "serving"));
}

async function loadWindow(deploymentId: string, minutes: number, prisma: PrismaClient, now: Date) {
  const deployment = await prisma.deployment.findFirst({
    where: { id: deploymentId, removedAt: null },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  if (!deployment) throw notFound("deployment", deploymentId);
  const currentMinute = Math.floor(now.getTime() / 60_000) * 60_000;
  const since = new Date(currentMinute - (minutes - 1) * 60_000);
  const rollups = await prisma.metricsRollup.findMany({
    where: { deploymentId, minute: { gte: since } },
    orderBy: { minute: "asc" },
  });
  const parts = await rollupPartsByMinute(prisma, [deploymentId], since);
  const withData = rollups
    .filter((r) => r.intervalMs > 0)
    .map((r) => ({ ...r, parts: parts.get(rollupPartsKey(r.deploymentId, r.minute)) ?? [] }));
  const requests = withData.reduce((s, r) => s + r.requestsCompleted + r.requestsRejected, 0);
  const window: LiveWindow = {
    minutes,
    from: withData[0]?.minute ?? null,
    to: withData.length > 0 ? new Date(withData[withData.length - 1]!.minute.getTime() + 60_000) : null,
    requests,
  };
  return { deployment, rollups: withData, window };
}

function mergedHistogram(
  rollups: ReadonlyArray<{ parts: readonly StageHistograms[] }>,
  key: string,
): LatencyHistogram | null {
  const parts: LatencyHistogram[] = [];
  for (const r of rollups) {
    for (const encoded of rollupStageParts(r.parts, key)) parts.push(LatencyHistogram.decode(encoded));
  }
  if (parts.length === 0) return null;
  const merged = LatencyHistogram.merge(parts);
  return merged.count > 0 ? merged : null;
}

/** p50 and p99 of each stage the agent measures, over the window's merged histograms; absent stages stay entered. */
export async function measuredStages(
  input: { deploymentId: string; windowMinutes: number },
  prisma: PrismaClient = db(),
  now = new Date(),
): Promise<MeasuredStagesResult> {
  const { deployment, rollups, window } = await loadWindow(input.deploymentId, input.windowMinutes, prisma, now);
  const stages: MeasuredStagesResult["stages"] = {};
  for (const { stage, histogram } of MEASURED_STAGE_HISTOGRAMS) {
    const h = mergedHistogram(rollups, histogram);
    if (h) stages[stage] = { p50Ms: h.percentileMs(50), p99Ms: h.percentileMs(99), count: h.count };
  }
  return { deploymentId: deployment.id, label: labelOf(deployment), state: deployment.state, window, stages };
}

/** Where the deployment runs now: λ and ρ from the rollups' counters, time in the server from its histogram. */
export async function operatingPoint(
  input: { deploymentId: string; windowMinutes: number },
  prisma: PrismaClient = db(),
  now = new Date(),
): Promise<OperatingPointResult> {
  const { deployment, rollups, window } = await loadWindow(input.deploymentId, input.windowMinutes, prisma, now);
  const intervalMs = rollups.reduce((s, r) => s + r.intervalMs, 0);
  const busyMs = rollups.reduce((s, r) => s + r.busyMs, 0);
  const completed = rollups.reduce((s, r) => s + r.requestsCompleted, 0);
  const system = mergedHistogram(rollups, "system");
  // An agent that predates busy-time reporting sends none: no utilization rather than a false 0.
  const busyKnown = busyMs > 0 || completed === 0;
  return {
    deploymentId: deployment.id,
    label: labelOf(deployment),
    state: deployment.state,
    window,
    arrivalRatePerS: intervalMs > 0 ? (window.requests * 1000) / intervalMs : null,
    utilization: intervalMs > 0 && busyKnown ? busyMs / intervalMs : null,
    serviceTimeMs: completed > 0 && busyMs > 0 ? busyMs / completed : null,
    meanMs: system ? system.summary().meanMs : null,
    p99Ms: system ? system.percentileMs(99) : null,
  };
}
