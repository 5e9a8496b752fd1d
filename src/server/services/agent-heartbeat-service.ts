// Heartbeats: an agent's liveness and each deployment's observed generation, state and metrics. Counters and
// per-stage histograms are folded into per-deployment, per-minute rollups; the raw heartbeat is kept ~1 h.
import type { PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { agentLastHostColumn, heartbeatBodyColumn } from "@/contracts/agent-columns";
import { ESTIMATOR_TIMELINE_MAX, type HeartbeatRequest } from "@/contracts/agent-protocol";
import {
  deploymentLastReportColumn,
  generationReportColumn,
  rollupHistogramsColumn,
} from "@/contracts/deployment-columns";
import { DEFAULT_ESTIMATOR_PARAMS } from "@/core/estimator/params";
import { mergeTimeline } from "@/core/estimator/timeline-window";
import { LatencyHistogram } from "@/core/stats/histogram";
import { db } from "@/server/db/client";
import { conflict } from "@/server/errors/domain-errors";
import { log } from "@/server/log";
import { releaseAgentJobs } from "./agent-restart-hooks";
import { recordEstimatorProposal, withdrawSettledEstimatorProposal } from "./estimator-proposals-service";
import { advanceSweeps } from "./batching-sweeps-service";
import { reconcileGenerationOutcomes } from "./proposals-service";
import type { AgentIdentity } from "./agent-tokens-service";

function mergeHistograms(
  existing: Record<string, string>,
  incoming: Record<string, string | undefined>,
): Record<string, string> {
  const merged: Record<string, string> = { ...existing };
  for (const [stage, encoded] of Object.entries(incoming)) {
    if (!encoded) continue;
    const add = LatencyHistogram.decode(encoded);
    if (merged[stage]) {
      const base = LatencyHistogram.decode(merged[stage]!);
      base.add(add);
      merged[stage] = base.encode();
    } else {
      merged[stage] = add.encode();
    }
  }
  return merged;
}

export async function recordHeartbeat(
  identity: AgentIdentity,
  body: HeartbeatRequest,
  prisma: PrismaClient = db(),
): Promise<{ ok: true; revision: number }> {
  if (!identity.agentId) throw conflict("this token has not registered an agent yet: POST /register first");
  const agentId = identity.agentId;
  const now = new Date();
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const restarted = await prisma.$transaction(async (tx) => {
    const agent = await tx.agent.findUniqueOrThrow({ where: { id: agentId } });
    if (agent.decommissionedAt) throw conflict(`agent ${agent.hostName} was decommissioned`);
    await tx.agent.update({
      where: { id: agentId },
      data: {
        lastHeartbeatAt: now,
        appliedRevision: body.revision,
        bootId: body.bootId,
        lastHost: writeJsonColumn(agentLastHostColumn, {
          ...body.host,
          servingProcessRestarts: body.servingProcessRestarts,
          at: now.toISOString(),
        }),
      },
    });
    await tx.agentHeartbeat.create({
      data: { agentId, receivedAt: now, body: writeJsonColumn(heartbeatBodyColumn, body) },
    });
    const deployments = await tx.deployment.findMany({ where: { agentId, removedAt: null } });
    for (const report of body.deployments) {
      const deployment = deployments.find((d) => d.id === report.deploymentId);
      if (!deployment) continue; // removed meanwhile, or not ours: ignore
      const requests = report.requests.completed + report.requests.rejected;
      // The estimator's recent decisions: each heartbeat brings the new ones; the deployment keeps the newest.
      const previousTimeline = deploymentLastReportColumn.read(deployment.lastReport)?.estimatorTimeline ?? [];
      const estimatorTimeline = mergeTimeline(previousTimeline, report.estimatorTimeline ?? [], ESTIMATOR_TIMELINE_MAX);
      await tx.deployment.update({
        where: { id: deployment.id },
        data: {
          observedGeneration: report.observedGeneration,
          state: report.state,
          failureReason: report.failureReason ?? null,
          lastReport: writeJsonColumn(deploymentLastReportColumn, {
            at: now.toISOString(),
            intervalMs: report.intervalMs,
            arrivalRatePerS: report.intervalMs > 0 ? (requests * 1000) / report.intervalMs : 0,
            requests: report.requests,
            rows: report.rows,
            queueDepthRows: report.queueDepthRows,
            instances: report.instances,
            affinityOk: report.affinityOk,
            estimator: report.estimator,
            estimatorTimeline,
            lastReconfiguration: report.lastReconfiguration,
            estimatorProposal: report.estimatorProposal
              ? {
                  batchSize: report.estimatorProposal.batchSize,
                  decision: report.estimatorProposal.decision,
                  at: now.toISOString(),
                }
              : undefined,
          }),
        },
      });
      // Outcomes of generations: applied once the agent serves it, failed when it says so.
      if (report.state === "serving") {
        await tx.deploymentGeneration.updateMany({
          where: { deploymentId: deployment.id, generation: report.observedGeneration, outcome: null },
          data: {
            outcome: "applied",
            outcomeAt: now,
            report: writeJsonColumn(generationReportColumn, report.lastReconfiguration ?? null),
          },
        });
      }
      const failedGeneration = /^generation (\d+): /.exec(report.failureReason ?? "");
      if (report.state === "failed" && failedGeneration) {
        await tx.deploymentGeneration.updateMany({
          where: { deploymentId: deployment.id, generation: Number(failedGeneration[1]), outcome: null },
          data: { outcome: "failed", outcomeAt: now, failureReason: report.failureReason ?? null },
        });
      }
      // The minute's rollup: counters add, histograms merge (the row is locked so concurrent heartbeats add up).
      await tx.$executeRaw`INSERT INTO metrics_rollup ("deploymentId", minute) VALUES (${deployment.id}, ${minute}) ON CONFLICT DO NOTHING`;
      const [rollup] = await tx.$queryRaw<Array<{ histograms: Record<string, string>; queueDepthMax: number }>>`
        SELECT histograms, "queueDepthMax" FROM metrics_rollup WHERE "deploymentId" = ${deployment.id} AND minute = ${minute} FOR UPDATE`;
      await tx.metricsRollup.update({
        where: { deploymentId_minute: { deploymentId: deployment.id, minute } },
        data: {
          intervalMs: { increment: report.intervalMs },
          busyMs: { increment: report.busyMs ?? 0 },
          requestsCompleted: { increment: report.requests.completed },
          requestsRejected: { increment: report.requests.rejected },
          requestsWithinSlo: { increment: report.requests.withinSlo },
          rowsCompleted: { increment: report.rows.completed },
          rowsRejected: { increment: report.rows.rejected },
          queueDepthMax: Math.max(rollup?.queueDepthMax ?? 0, report.queueDepthRows),
          histograms: mergeHistograms(rollupHistogramsColumn.read(rollup?.histograms ?? {}), report.histograms),
        },
      });
    }
    const reported = body.deployments.map((r) => r.deploymentId).filter((id) => deployments.some((d) => d.id === id));
    return { changedBoot: agent.bootId !== body.bootId, revision: agent.revision, reported };
  });
  if (restarted.changedBoot) await releaseAgentJobs(agentId, "the agent restarted");
  for (const deploymentId of restarted.reported) await reconcileGenerationOutcomes(deploymentId, prisma);
  // Batching sweeps move on from what this heartbeat reported (a generation applied, a load test done); a sweep's
  // failure to step is logged and retried on the next heartbeat, never failing this one.
  for (const deploymentId of restarted.reported) {
    await advanceSweeps(deploymentId, prisma).catch((error: Error) =>
      log.error("batching sweep not advanced", { deploymentId, error: error.message }),
    );
  }
  // A proposed B becomes (or updates) the deployment's estimator proposal; a failure there never fails the heartbeat.
  // A settled estimator (stable B = the running B again) withdraws its pending proposal instead.
  for (const report of body.deployments) {
    if (!restarted.reported.includes(report.deploymentId)) continue;
    if (report.estimatorProposal) {
      await recordEstimatorProposal(report.deploymentId, report.estimatorProposal, prisma).catch((error: Error) =>
        log.error("estimator proposal not recorded", { deploymentId: report.deploymentId, error: error.message }),
      );
    } else if (report.estimatorTimeline?.length) {
      const dwellMs = report.estimator?.params.minDwellMs ?? DEFAULT_ESTIMATOR_PARAMS.minDwellMs;
      await withdrawSettledEstimatorProposal(report.deploymentId, report.estimatorTimeline, dwellMs, prisma).catch(
        (error: Error) =>
          log.error("estimator proposal not withdrawn", { deploymentId: report.deploymentId, error: error.message }),
      );
    }
  }
  return { ok: true, revision: restarted.revision };
}

/** Retention: raw heartbeats older than an hour, rollups older than the retention period. */
export async function pruneAgentMetrics(
  retentionDays: number,
  prisma: PrismaClient = db(),
): Promise<{ heartbeats: number; rollups: number }> {
  const heartbeats = await prisma.agentHeartbeat.deleteMany({
    where: { receivedAt: { lt: new Date(Date.now() - 3_600_000) } },
  });
  const rollups = await prisma.metricsRollup.deleteMany({
    where: { minute: { lt: new Date(Date.now() - retentionDays * 86_400_000) } },
  });
  return { heartbeats: heartbeats.count, rollups: rollups.count };
}
