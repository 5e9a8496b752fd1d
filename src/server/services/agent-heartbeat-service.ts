// What agents report, on three streams. A heartbeat renews the agent's lease (one statement); events (a generation
// served or failed, a reconfiguration report, an estimator proposal) come when they happen; metrics come every
// METRICS_INTERVAL_MS, aggregated on the agent, and are folded into per-deployment, per-minute rollups. An older
// agent's heartbeat carries all three at once and is processed as such.
import type pg from "pg";
import type { PrismaClient } from "@/generated/prisma/client";
import { jsonColumnText, writeJsonColumn, type JsonColumnInput } from "@/server/db/json-column";
import { agentLastHostColumn, heartbeatBodyColumn } from "@/contracts/agent-columns";
import {
  ESTIMATOR_TIMELINE_MAX,
  type DeploymentEvent,
  type EventsRequest,
  type HeartbeatRequest,
  type MetricsRequest,
} from "@/contracts/agent-protocol";
import {
  BadPartHistogramError,
  deploymentLastReportColumn,
  generationReportColumn,
  rollupPartColumn,
  type StageHistograms,
} from "@/contracts/deployment-columns";
import { DEFAULT_ESTIMATOR_PARAMS } from "@/core/estimator/params";
import { db } from "@/server/db/client";
import { leasePool, pgPool } from "@/server/db/pg-pool";
import { conflict, invalidInput, notFound } from "@/server/errors/domain-errors";
import { log } from "@/server/log";
import { releaseAgentJobs } from "./agent-restart-hooks";
import { leaseRenewals } from "./lease-renewals";
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

/**
 * POST /heartbeat on the hot path: the bearer token verified and the lease renewed in one statement on the lease
 * connection, grouped with the other heartbeats that came meanwhile (lease-renewals.ts), with no other statement unless
 * something is wrong or the agent restarted. Null: the token is unknown or
 * revoked (401). Otherwise as recordHeartbeat: 409 for a token not registered yet or a decommissioned agent, and a
 * changed boot id releases the agent's running jobs.
 */
export async function recordHeartbeatWithToken(
  token: string,
  body: HeartbeatRequest,
  pool: pg.Pool = leasePool(),
  prisma: PrismaClient = db(),
): Promise<{ ok: true; revision: number } | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX)) return null;
  const now = new Date();
  const row = await leaseRenewals(pool).renew({
    tokenHash: hashAgentToken(token),
    revision: body.revision,
    bootId: body.bootId,
  });
  if (!row.tokenFound) return null;
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
    { agentId },
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
  pool: pg.Pool = pgPool(),
): Promise<{ ok: true }> {
  await applyMetrics({ agentId: registered(identity) }, body, new Date(), prisma, new Set(), undefined, pool);
  return { ok: true };
}

/**
 * POST /metrics on the hot path: the bearer token checked in the message's own statement, as the heartbeat's. Null:
 * the token is unknown or revoked (401); 409 for a token not registered yet, as recordAgentMetrics.
 */
export async function recordAgentMetricsWithToken(
  token: string,
  body: MetricsRequest,
  prisma: PrismaClient = db(),
): Promise<{ ok: true } | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX)) return null;
  return (await applyMetrics({ token }, body, new Date(), prisma, new Set())) ? { ok: true } : null;
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

/**
 * A metrics message in one statement: the host's load on the agent (unless decommissioned), the raw row the
 * crash-loop alert reads when the serving-process restart counter moved (with the value it moved from, so one row
 * tells its increment: most messages write none), and for each of the agent's live deployments in $5 its newest
 * report (the estimator's timeline merged in SQL, as mergeTimeline does: the new decisions after the newest kept,
 * the newest ESTIMATOR_TIMELINE_MAX kept; the last reconfiguration kept, a proposal only when "keepProposal") and
 * the minute's rollup (counters added to the minute's row, which stays small; the interval's histograms inserted as
 * one metrics_rollup_part row in their binary encoding (rollupPartColumn, sent here as base64), never updated, so a
 * message's WAL is about what it brings; no histogram decoded). It answers, per deployment taken, whether a batching
 * sweep or an estimator proposal could move on from it, so the follow-up work runs only where it can apply;
 * "reporting" false: the agent is unknown or decommissioned.
 */
const metricsSql = (byToken: boolean) => `
WITH ${
  byToken
    ? `bearer AS (
  SELECT id, "agentId", "lastUsedAt" FROM agent_token WHERE "tokenHash" = $1 AND "revokedAt" IS NULL
), stamp AS (
  UPDATE agent_token t SET "lastUsedAt" = $3::timestamp
  FROM bearer
  WHERE t.id = bearer.id AND t."revokedAt" IS NULL AND (bearer."lastUsedAt" IS NULL OR bearer."lastUsedAt" < $8::timestamp)
), `
    : ""
}reporter AS (
  UPDATE agent a SET "lastHost" = $2::jsonb, "updatedAt" = $3::timestamp FROM agent before
  WHERE a.id = ${byToken ? `(SELECT "agentId" FROM bearer)` : "$1"} AND a."decommissionedAt" IS NULL AND before.id = a.id
  RETURNING a.id, before."lastHost"->'servingProcessRestarts' AS "previousRestarts"
), kept AS (
  INSERT INTO agent_heartbeat ("agentId", "receivedAt", body)
  SELECT id, $3::timestamp, $4::jsonb || jsonb_build_object('previousServingProcessRestarts', "previousRestarts")
  FROM reporter WHERE "previousRestarts" IS DISTINCT FROM $4::jsonb->'servingProcessRestarts'
), mine AS (
  SELECT i.* FROM jsonb_to_recordset($5::jsonb) AS i("deploymentId" text, report jsonb, timeline jsonb,
      "intervalMs" float8, "busyMs" float8, completed int, rejected int, "withinSlo" int, "rowsCompleted" int,
      "rowsRejected" int, "queueDepth" int, parts text[], "keepProposal" boolean)
    JOIN deployment d ON d.id = i."deploymentId" AND d."removedAt" IS NULL
    JOIN reporter r ON d."agentId" = r.id
), report AS (
  UPDATE deployment d SET "updatedAt" = $3::timestamp, "lastReport" = m.report
    || CASE WHEN d."lastReport" ? 'lastReconfiguration'
         THEN jsonb_build_object('lastReconfiguration', d."lastReport"->'lastReconfiguration') ELSE '{}' END
    || CASE WHEN m."keepProposal" AND d."lastReport" ? 'estimatorProposal'
         THEN jsonb_build_object('estimatorProposal', d."lastReport"->'estimatorProposal') ELSE '{}' END
    || jsonb_build_object('estimatorTimeline', CASE WHEN jsonb_array_length(m.timeline) = 0
         THEN COALESCE(d."lastReport"->'estimatorTimeline', '[]')
         ELSE (SELECT COALESCE(jsonb_agg(t.e ORDER BY t.k), '[]') FROM (
           SELECT e, k FROM jsonb_array_elements(COALESCE(d."lastReport"->'estimatorTimeline', '[]'))
             WITH ORDINALITY AS kept(e, k)
           UNION ALL
           SELECT e, 1e9 + k FROM jsonb_array_elements(m.timeline) WITH ORDINALITY AS came(e, k)
             WHERE (e->>'tMs')::float8 > COALESCE((d."lastReport"->'estimatorTimeline'->-1->>'tMs')::float8, '-Infinity')
           ORDER BY k DESC LIMIT $6::int) t) END)
  FROM mine m WHERE d.id = m."deploymentId"
), rollup AS (
  INSERT INTO metrics_rollup AS r ("deploymentId", minute, "intervalMs", "busyMs", "requestsCompleted",
    "requestsRejected", "requestsWithinSlo", "rowsCompleted", "rowsRejected", "queueDepthMax")
  SELECT "deploymentId", $7::timestamp, "intervalMs", "busyMs", completed, rejected, "withinSlo", "rowsCompleted",
    "rowsRejected", "queueDepth" FROM mine
  ON CONFLICT ("deploymentId", minute) DO UPDATE SET
    "intervalMs" = r."intervalMs" + excluded."intervalMs", "busyMs" = r."busyMs" + excluded."busyMs",
    "requestsCompleted" = r."requestsCompleted" + excluded."requestsCompleted",
    "requestsRejected" = r."requestsRejected" + excluded."requestsRejected",
    "requestsWithinSlo" = r."requestsWithinSlo" + excluded."requestsWithinSlo",
    "rowsCompleted" = r."rowsCompleted" + excluded."rowsCompleted",
    "rowsRejected" = r."rowsRejected" + excluded."rowsRejected",
    "queueDepthMax" = GREATEST(r."queueDepthMax", excluded."queueDepthMax")
), parts AS (
  INSERT INTO metrics_rollup_part ("deploymentId", minute, encoded)
  SELECT m."deploymentId", $7::timestamp, decode(e.part, 'base64') FROM mine m,
    unnest(m.parts) WITH ORDINALITY AS e(part, k) ORDER BY m."deploymentId", e.k
)
SELECT ${byToken ? `EXISTS (SELECT 1 FROM bearer) AS "tokenFound", (SELECT "agentId" FROM bearer)` : `true AS "tokenFound", $1`}
    AS "agentId", EXISTS (SELECT 1 FROM reporter) AS reporting, m."deploymentId",
  EXISTS (SELECT 1 FROM batching_sweep s WHERE s."deploymentId" = m."deploymentId"
    AND s.state IN ('pending', 'running', 'restoring')) AS sweeping,
  EXISTS (SELECT 1 FROM proposal p WHERE p."deploymentId" = m."deploymentId" AND p.source = 'estimator'
    AND p.state IN ('pending', 'trialing')) AS proposed
FROM (SELECT 1) one LEFT JOIN mine m ON true`;
const METRICS_SQL = metricsSql(false);
/** The same with the token check (as the heartbeat's): $1 the token's hash, $8 the last-used stamp's cutoff. */
const METRICS_WITH_TOKEN_SQL = metricsSql(true);

interface MetricsRow {
  tokenFound: boolean;
  agentId: string | null;
  reporting: boolean;
  deploymentId: string | null;
  sweeping: boolean | null;
  proposed: boolean | null;
}

/** A part's stored bytes (rollupPartColumn), as base64 in the statement's JSON; 400 for a histogram that is not one. */
function partBase64(histograms: StageHistograms): string {
  try {
    return rollupPartColumn.write(histograms).toString("base64");
  } catch (error) {
    if (error instanceof BadPartHistogramError)
      throw invalidInput(error.message, { field: `deployments.histograms.${error.stage}` });
    throw error;
  }
}

/** The new decisions of an interval in time order, each once (mergeTimeline's part that needs no stored state). */
function orderedTimeline<T extends { tMs: number }>(incoming: readonly T[]): T[] {
  return [...incoming].sort((a, b) => a.tMs - b.tMs).filter((d, i, all) => i === 0 || all[i - 1]!.tMs !== d.tMs);
}

/**
 * The interval's metrics: the host's load, each deployment's newest report (what the live views read) and the
 * minute's rollup, in one statement on the shared pool (METRICS_SQL); then only the follow-up work that can apply.
 */
async function applyMetrics(
  /** The agent, or the bearer token to check in the same statement (the reporting agent is the token's). */
  who: { agentId: string } | { token: string },
  body: MetricsRequest,
  now: Date,
  prisma: PrismaClient,
  proposedNow: ReadonlySet<string>,
  /** An older agent's heartbeat is kept whole, as before. */
  raw?: HeartbeatRequest,
  pool: pg.Pool = pgPool(),
): Promise<boolean> {
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const at = now.toISOString();
  const perReport = body.deployments.map((report) => {
    const requests = report.requests.completed + report.requests.rejected;
    const histograms: StageHistograms = {};
    for (const [stage, encoded] of Object.entries(report.histograms)) if (encoded) histograms[stage] = encoded;
    return {
      deploymentId: report.deploymentId,
      report: {
        at,
        intervalMs: report.intervalMs,
        arrivalRatePerS: report.intervalMs > 0 ? (requests * 1000) / report.intervalMs : 0,
        requests: report.requests,
        rows: report.rows,
        queueDepthRows: report.queueDepthRows,
        instances: report.instances,
        affinityOk: report.affinityOk,
        estimator: report.estimator,
      } satisfies JsonColumnInput<typeof deploymentLastReportColumn>,
      timeline: orderedTimeline(report.estimatorTimeline ?? []),
      intervalMs: report.intervalMs,
      busyMs: report.busyMs ?? 0,
      completed: report.requests.completed,
      rejected: report.requests.rejected,
      withinSlo: report.requests.withinSlo,
      rowsCompleted: report.rows.completed,
      rowsRejected: report.rows.rejected,
      queueDepth: report.queueDepthRows,
      parts: Object.keys(histograms).length > 0 ? [partBase64(histograms)] : [],
      // An older agent's heartbeat brings a proposal with its report: it is shown until the next interval's report.
      keepProposal: proposedNow.has(report.deploymentId),
    };
  });
  // One row per deployment (an upsert touches a row once): a deployment listed twice adds up as two messages would,
  // the later report standing as its live one.
  const byId = new Map<string, (typeof perReport)[number]>();
  for (const row of perReport) {
    const seen = byId.get(row.deploymentId);
    byId.set(
      row.deploymentId,
      !seen
        ? row
        : {
            ...row,
            timeline: orderedTimeline([...seen.timeline, ...row.timeline]),
            intervalMs: seen.intervalMs + row.intervalMs,
            busyMs: seen.busyMs + row.busyMs,
            completed: seen.completed + row.completed,
            rejected: seen.rejected + row.rejected,
            withinSlo: seen.withinSlo + row.withinSlo,
            rowsCompleted: seen.rowsCompleted + row.rowsCompleted,
            rowsRejected: seen.rowsRejected + row.rowsRejected,
            queueDepth: Math.max(seen.queueDepth, row.queueDepth),
            parts: [...seen.parts, ...row.parts],
          },
    );
  }
  const deployments = [...byId.values()];
  const byToken = "token" in who;
  const { rows } = await pool.query<MetricsRow>({
    name: byToken ? "packrat_metrics_apply_token" : "packrat_metrics_apply",
    text: byToken ? METRICS_WITH_TOKEN_SQL : METRICS_SQL,
    values: [
      byToken ? hashAgentToken(who.token) : who.agentId,
      jsonColumnText(agentLastHostColumn, {
        ...body.host,
        servingProcessRestarts: body.servingProcessRestarts,
        at,
      }),
      at,
      // Kept an hour when the counter moved: the crash-loop alert sums the increments these rows record.
      jsonColumnText(
        heartbeatBodyColumn,
        raw ?? {
          bootId: body.bootId,
          revision: 0,
          host: body.host,
          servingProcessRestarts: body.servingProcessRestarts,
        },
      ),
      JSON.stringify(deployments),
      ESTIMATOR_TIMELINE_MAX,
      minute.toISOString(),
      ...(byToken ? [new Date(now.getTime() - TOKEN_LAST_USED_RESOLUTION_MS).toISOString()] : []),
    ],
  });
  if (!rows[0]?.tokenFound) return false;
  const agentId = rows[0].agentId;
  if (!agentId) throw conflict("this token has not registered an agent yet: POST /register first");
  if (!rows[0].reporting) {
    await reportingAgent(agentId, prisma); // unknown (404) or decommissioned (409)
    throw conflict("the agent may not report");
  }
  for (const row of rows) {
    if (!row.deploymentId) continue; // none of the reported deployments is a live one of this agent's
    const report = body.deployments.find((d) => d.deploymentId === row.deploymentId)!;
    // A sweep waiting on a load test that has finished moves on at the next metrics interval (events come only
    // when a deployment changes); a failure to step is logged and retried, never failing this message.
    if (row.sweeping) {
      await advanceSweeps(row.deploymentId, prisma).catch((error: Error) =>
        log.error("batching sweep not advanced", { deploymentId: row.deploymentId, error: error.message }),
      );
    }
    // A settled estimator (stable B = the running B again) withdraws its pending proposal; never fails the message.
    if (!row.proposed || proposedNow.has(row.deploymentId) || !report.estimatorTimeline?.length) continue;
    const dwellMs = report.estimator?.params.minDwellMs ?? DEFAULT_ESTIMATOR_PARAMS.minDwellMs;
    await withdrawSettledEstimatorProposal(row.deploymentId, report.estimatorTimeline, dwellMs, prisma).catch(
      (error: Error) =>
        log.error("estimator proposal not withdrawn", { deploymentId: row.deploymentId, error: error.message }),
    );
  }
  return true;
}

/**
 * Retention: raw heartbeats older than an hour (a DELETE: agent_heartbeat stays unpartitioned, as an hour of it is
 * small and the crash-loop alert reads only that last hour); rollups and their histogram parts by whole UTC days, by
 * dropping metrics_rollup's and metrics_rollup_part's expired day partitions (and creating the days ahead) in
 * maintainMetricsPartitions.
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
