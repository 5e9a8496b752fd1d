// What agents report, on three streams. A heartbeat renews the agent's lease (one statement); events (a generation
// served or failed, a reconfiguration report, an estimator proposal) come when they happen; metrics come every
// METRICS_INTERVAL_MS, aggregated on the agent, and are folded into per-deployment, per-minute rollups. An older
// agent's heartbeat carries all three at once and is processed as such.
import type pg from "pg";
import type { PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { agentLastHostColumn, heartbeatBodyColumn } from "@/contracts/agent-columns";
import {
  ESTIMATOR_TIMELINE_MAX,
  type DeploymentEvent,
  type DeploymentMetrics,
  type EventsRequest,
  type HeartbeatRequest,
  type MetricsRequest,
} from "@/contracts/agent-protocol";
import {
  deploymentLastReportColumn,
  generationReportColumn,
  rollupHistogramsColumn,
} from "@/contracts/deployment-columns";
import { DEFAULT_ESTIMATOR_PARAMS } from "@/core/estimator/params";
import { mergeTimeline } from "@/core/estimator/timeline-window";
import { LatencyHistogram } from "@/core/stats/histogram";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { conflict, notFound } from "@/server/errors/domain-errors";
import { log } from "@/server/log";
import { releaseAgentJobs } from "./agent-restart-hooks";
import { recordEstimatorProposal, withdrawSettledEstimatorProposal } from "./estimator-proposals-service";
import { advanceSweeps } from "./batching-sweeps-service";
import { maintainMetricsPartitions, type MetricsPartitionsResult } from "./metrics-partitions-service";
import { reconcileGenerationOutcomes } from "./proposals-service";
import {
  AGENT_TOKEN_PREFIX,
  TOKEN_LAST_USED_RESOLUTION_MS,
  hashAgentToken,
  type AgentIdentity,
} from "./agent-tokens-service";

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

/** The agent, if it may report: 409 once decommissioned. */
async function reportingAgent(agentId: string, prisma: PrismaClient) {
  const agent = await prisma.agent.findUniqueOrThrow({
    where: { id: agentId },
    select: { hostName: true, decommissionedAt: true },
  });
  if (agent.decommissionedAt) throw conflict(`agent ${agent.hostName} was decommissioned`);
  return agent;
}

function registered(identity: AgentIdentity): string {
  if (!identity.agentId) throw conflict("this token has not registered an agent yet: POST /register first");
  return identity.agentId;
}

interface LeaseRow {
  agentId: string | null;
  hostName: string | null;
  agentFound: boolean;
  decommissioned: boolean;
  previousBootId: string | null;
  revision: number | null;
}

/**
 * The token check and the lease renewal in one statement: the token is looked up by its hash (not revoked), its
 * last-used stamp written when older than TOKEN_LAST_USED_RESOLUTION_MS (as authenticateAgentToken does), and its
 * agent's lease renewed unless decommissioned. Timestamps are UTC in `timestamp` columns, as Prisma writes them.
 */
const TOKEN_AND_LEASE_SQL = `
WITH token AS (
  SELECT id, "agentId", "lastUsedAt" FROM agent_token WHERE "tokenHash" = $1 AND "revokedAt" IS NULL
), stamp AS (
  UPDATE agent_token t SET "lastUsedAt" = $2::timestamp
  FROM token
  WHERE t.id = token.id AND t."revokedAt" IS NULL AND (token."lastUsedAt" IS NULL OR token."lastUsedAt" < $3::timestamp)
  RETURNING t.id
), previous AS (
  SELECT a.id, a."bootId", a."hostName", a."decommissionedAt" FROM agent a JOIN token ON a.id = token."agentId"
  FOR UPDATE OF a
), lease AS (
  UPDATE agent a SET "lastHeartbeatAt" = $2::timestamp, "appliedRevision" = $4, "bootId" = $5
  FROM previous
  WHERE a.id = previous.id AND previous."decommissionedAt" IS NULL
  RETURNING previous."bootId" AS "previousBootId", a.revision
)
SELECT token."agentId", previous."hostName", previous.id IS NOT NULL AS "agentFound",
  previous."decommissionedAt" IS NOT NULL AS decommissioned, lease."previousBootId", lease.revision
FROM token LEFT JOIN previous ON true LEFT JOIN lease ON true`;

/**
 * POST /heartbeat on the hot path: the bearer token verified and the lease renewed in one statement on the shared
 * pool, with no other statement unless something is wrong or the agent restarted. Null: the token is unknown or
 * revoked (401). Otherwise as recordHeartbeat: 409 for a token not registered yet or a decommissioned agent, and a
 * changed boot id releases the agent's running jobs.
 */
export async function recordHeartbeatWithToken(
  token: string,
  body: HeartbeatRequest,
  pool: pg.Pool = pgPool(),
  prisma: PrismaClient = db(),
): Promise<{ ok: true; revision: number } | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX)) return null;
  const now = new Date();
  // Named: each pooled connection parses and plans it once, not on every heartbeat.
  const { rows } = await pool.query<LeaseRow>({
    name: "packrat_heartbeat_token_lease",
    text: TOKEN_AND_LEASE_SQL,
    values: [
      hashAgentToken(token),
      now.toISOString(),
      new Date(now.getTime() - TOKEN_LAST_USED_RESOLUTION_MS).toISOString(),
      body.revision,
      body.bootId,
    ],
  });
  const row = rows[0];
  if (!row) return null;
  if (!row.agentId) throw conflict("this token has not registered an agent yet: POST /register first");
  if (!row.agentFound) throw notFound("agent", row.agentId);
  if (row.decommissioned || row.revision === null) throw conflict(`agent ${row.hostName} was decommissioned`);
  if (row.previousBootId !== body.bootId) await releaseAgentJobs(row.agentId, "the agent restarted");
  await applyOlderAgentReports(row.agentId, body, now, prisma);
  return { ok: true, revision: row.revision };
}

/** An older agent's heartbeat carries its events and metrics too: processed as those messages are. */
async function applyOlderAgentReports(
  agentId: string,
  body: HeartbeatRequest,
  now: Date,
  prisma: PrismaClient,
): Promise<void> {
  if (body.deployments === undefined && body.host === undefined) return;
  const deployments = body.deployments ?? [];
  if (deployments.length > 0) await applyEvents(agentId, deployments, now, prisma);
  await applyMetrics(
    agentId,
    {
      bootId: body.bootId,
      host: body.host ?? { cpuBusyFraction: 0, memoryUsedBytes: 0 },
      servingProcessRestarts: body.servingProcessRestarts ?? 0,
      deployments,
    },
    now,
    prisma,
    new Set(deployments.filter((d) => d.estimatorProposal).map((d) => d.deploymentId)),
    body,
  );
}

/** POST /events. */
export async function recordAgentEvents(
  identity: AgentIdentity,
  body: EventsRequest,
  prisma: PrismaClient = db(),
): Promise<{ ok: true }> {
  const agentId = registered(identity);
  await reportingAgent(agentId, prisma);
  await applyEvents(agentId, body.deployments, new Date(), prisma);
  return { ok: true };
}

/** POST /metrics. */
export async function recordAgentMetrics(
  identity: AgentIdentity,
  body: MetricsRequest,
  prisma: PrismaClient = db(),
): Promise<{ ok: true }> {
  const agentId = registered(identity);
  await applyMetrics(agentId, body, new Date(), prisma, new Set());
  return { ok: true };
}

/** Each deployment's state and generation outcome, then what moves on from them: proposals, sweeps, auto-revert. */
async function applyEvents(
  agentId: string,
  events: readonly DeploymentEvent[],
  now: Date,
  prisma: PrismaClient,
): Promise<void> {
  const reported = await prisma.$transaction(async (tx) => {
    const deployments = await tx.deployment.findMany({
      where: { agentId, removedAt: null, id: { in: events.map((e) => e.deploymentId) } },
    });
    const seen: string[] = [];
    for (const event of events) {
      const deployment = deployments.find((d) => d.id === event.deploymentId);
      if (!deployment) continue; // removed meanwhile, or not ours: ignore
      seen.push(deployment.id);
      const previous = deploymentLastReportColumn.read(deployment.lastReport) ?? {};
      await tx.deployment.update({
        where: { id: deployment.id },
        data: {
          observedGeneration: event.observedGeneration,
          state: event.state,
          failureReason: event.failureReason ?? null,
          lastReport: writeJsonColumn(deploymentLastReportColumn, {
            ...previous,
            ...(event.lastReconfiguration ? { lastReconfiguration: event.lastReconfiguration } : {}),
            ...(event.estimatorProposal
              ? {
                  estimatorProposal: {
                    batchSize: event.estimatorProposal.batchSize,
                    decision: event.estimatorProposal.decision,
                    at: now.toISOString(),
                  },
                }
              : {}),
          }),
        },
      });
      // Outcomes of generations: applied once the agent serves it, failed when it says so.
      if (event.state === "serving") {
        await tx.deploymentGeneration.updateMany({
          where: { deploymentId: deployment.id, generation: event.observedGeneration, outcome: null },
          data: {
            outcome: "applied",
            outcomeAt: now,
            report: writeJsonColumn(generationReportColumn, event.lastReconfiguration ?? null),
          },
        });
      }
      const failedGeneration = /^generation (\d+): /.exec(event.failureReason ?? "");
      if (event.state === "failed" && failedGeneration) {
        await tx.deploymentGeneration.updateMany({
          where: { deploymentId: deployment.id, generation: Number(failedGeneration[1]), outcome: null },
          data: { outcome: "failed", outcomeAt: now, failureReason: event.failureReason ?? null },
        });
      }
    }
    return seen;
  });
  for (const deploymentId of reported) await reconcileGenerationOutcomes(deploymentId, prisma);
  // Batching sweeps move on from what was reported (a generation applied); a sweep's failure to step is logged and
  // retried on the next event or the minute's sweep step, never failing this message.
  for (const deploymentId of reported) {
    await advanceSweeps(deploymentId, prisma).catch((error: Error) =>
      log.error("batching sweep not advanced", { deploymentId, error: error.message }),
    );
  }
  // A proposed B becomes (or updates) the deployment's estimator proposal; a failure there never fails the message.
  for (const event of events) {
    if (!event.estimatorProposal || !reported.includes(event.deploymentId)) continue;
    await recordEstimatorProposal(event.deploymentId, event.estimatorProposal, prisma).catch((error: Error) =>
      log.error("estimator proposal not recorded", { deploymentId: event.deploymentId, error: error.message }),
    );
  }
}

type RollupRow = { histograms: Record<string, string>; queueDepthMax: number };

/**
 * The interval's metrics: the host's load, each deployment's newest report (what the live views read) and the
 * minute's rollup. The first interval of a minute inserts the rollup row as it came (its histograms are not decoded);
 * a later one adds its counters and merges its histograms into the row, locked so concurrent messages add up.
 */
async function applyMetrics(
  agentId: string,
  body: MetricsRequest,
  now: Date,
  prisma: PrismaClient,
  proposedNow: ReadonlySet<string>,
  /** An older agent's heartbeat is kept whole, as before. */
  raw?: HeartbeatRequest,
): Promise<void> {
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  // Statements of their own, not one transaction: each part stands alone (a message that fails half-way leaves a
  // report a little older), and a replica short of CPU holds no pooled connection across round trips.
  const updated = await prisma.agent.updateMany({
    where: { id: agentId, decommissionedAt: null },
    data: {
      lastHost: writeJsonColumn(agentLastHostColumn, {
        ...body.host,
        servingProcessRestarts: body.servingProcessRestarts,
        at: now.toISOString(),
      }),
    },
  });
  if (updated.count === 0) {
    await reportingAgent(agentId, prisma); // unknown (404) or decommissioned (409)
    throw conflict("the agent may not report");
  }
  // Kept an hour: the crash-loop alert reads the serving-process restarts counter across these.
  await prisma.agentHeartbeat.create({
    data: {
      agentId,
      receivedAt: now,
      body: writeJsonColumn(
        heartbeatBodyColumn,
        raw ?? {
          bootId: body.bootId,
          revision: 0,
          host: body.host,
          servingProcessRestarts: body.servingProcessRestarts,
        },
      ),
    },
    select: { id: true },
  });
  const deployments =
    body.deployments.length === 0
      ? []
      : await prisma.deployment.findMany({
          where: { agentId, removedAt: null, id: { in: body.deployments.map((d) => d.deploymentId) } },
          select: { id: true, lastReport: true },
        });
  const reported: DeploymentMetrics[] = [];
  for (const report of body.deployments) {
    const deployment = deployments.find((d) => d.id === report.deploymentId);
    if (!deployment) continue; // removed meanwhile, or not ours: ignore
    reported.push(report);
    const requests = report.requests.completed + report.requests.rejected;
    const previous = deploymentLastReportColumn.read(deployment.lastReport) ?? {};
    // The estimator's recent decisions: each interval brings the new ones; the deployment keeps the newest.
    const estimatorTimeline = mergeTimeline(
      previous.estimatorTimeline ?? [],
      report.estimatorTimeline ?? [],
      ESTIMATOR_TIMELINE_MAX,
    );
    await prisma.deployment.update({
      where: { id: deployment.id },
      data: {
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
          lastReconfiguration: previous.lastReconfiguration,
          // A proposal is shown until the next interval's report.
          estimatorProposal: proposedNow.has(deployment.id) ? previous.estimatorProposal : undefined,
        }),
      },
      select: { id: true },
    });
    const histograms = Object.fromEntries(
      Object.entries(report.histograms).filter((entry): entry is [string, string] => !!entry[1]),
    );
    const inserted = await prisma.$executeRaw`
      INSERT INTO metrics_rollup ("deploymentId", minute, "intervalMs", "busyMs", "requestsCompleted", "requestsRejected",
        "requestsWithinSlo", "rowsCompleted", "rowsRejected", "queueDepthMax", histograms)
      VALUES (${deployment.id}, ${minute}, ${report.intervalMs}, ${report.busyMs ?? 0}, ${report.requests.completed},
        ${report.requests.rejected}, ${report.requests.withinSlo}, ${report.rows.completed}, ${report.rows.rejected},
        ${report.queueDepthRows}, ${JSON.stringify(writeJsonColumn(rollupHistogramsColumn, histograms))}::jsonb)
      ON CONFLICT DO NOTHING`;
    if (inserted > 0) continue;
    await prisma.$transaction(async (tx) => {
      const [rollup] = await tx.$queryRaw<RollupRow[]>`
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
        select: { deploymentId: true },
      });
    });
  }
  // A sweep waiting on a load test that has finished moves on at the next metrics interval (events come only when a
  // deployment changes); a failure to step is logged and retried, never failing this message.
  for (const report of reported) {
    await advanceSweeps(report.deploymentId, prisma).catch((error: Error) =>
      log.error("batching sweep not advanced", { deploymentId: report.deploymentId, error: error.message }),
    );
  }
  // A settled estimator (stable B = the running B again) withdraws its pending proposal; never fails the message.
  for (const report of reported) {
    if (proposedNow.has(report.deploymentId) || !report.estimatorTimeline?.length) continue;
    const dwellMs = report.estimator?.params.minDwellMs ?? DEFAULT_ESTIMATOR_PARAMS.minDwellMs;
    await withdrawSettledEstimatorProposal(report.deploymentId, report.estimatorTimeline, dwellMs, prisma).catch(
      (error: Error) =>
        log.error("estimator proposal not withdrawn", { deploymentId: report.deploymentId, error: error.message }),
    );
  }
}

/**
 * Retention: raw heartbeats older than an hour (a DELETE: agent_heartbeat stays unpartitioned, as an hour of it is
 * small and the crash-loop alert reads only that last hour); rollups by whole UTC days, by dropping metrics_rollup's
 * expired day partitions (and creating the days ahead) in maintainMetricsPartitions.
 */
export async function pruneAgentMetrics(
  retentionDays: number,
  prisma: PrismaClient = db(),
  now: Date = new Date(),
): Promise<{ heartbeats: number; rollupPartitions: MetricsPartitionsResult }> {
  const heartbeats = await prisma.agentHeartbeat.deleteMany({
    where: { receivedAt: { lt: new Date(now.getTime() - 3_600_000) } },
  });
  const rollupPartitions = await maintainMetricsPartitions(retentionDays, now, prisma);
  return { heartbeats: heartbeats.count, rollupPartitions };
}
