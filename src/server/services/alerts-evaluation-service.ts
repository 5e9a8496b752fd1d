// One evaluation of the alert rules (issue #17): read what the control plane knows (agents' heartbeats, the
// deployments' rollups over the window, generations, proposals), run the pure rules (src/core/alerts), then open,
// refresh and auto-resolve alerts. One replica evaluates at a time: a PostgreSQL advisory lock held for the
// transaction; a replica that does not get it skips the round.
import type { Prisma, PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { planBatchSize, servingPlanSchema } from "@/contracts/serving-plan";
import {
  evaluateAlertRules,
  type AgentSnapshot,
  type AlertCondition,
  type AlertThresholds,
  type DeploymentSnapshot,
} from "@/core/alerts/alert-rules";
import { LatencyHistogram } from "@/core/stats/histogram";
import { recordAudit } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { enqueueAlertDelivery } from "./alert-webhook-service";
import { CONTENTION_GAP_THRESHOLD } from "./proposals-service";
import { alertDetailsColumn } from "@/contracts/alert-columns";
import { deploymentLastReportColumn } from "@/contracts/deployment-columns";

type Tx = Prisma.TransactionClient;
/** pg_try_advisory_xact_lock key of the evaluator ("alerts" as ASCII). */
export const ALERT_EVALUATOR_LOCK = 0x616c65727473;
/** A failed proposal stays an alert this long unless an SRE resolves it. */
const FAILED_PROPOSAL_WINDOW_MS = 24 * 3_600_000;
const SYSTEM = { type: "system" as const, label: "alert evaluator" };

export function alertThresholds(): AlertThresholds {
  const e = env();
  return {
    offlineAfterMs: e.AGENT_OFFLINE_AFTER_MS,
    latencyGap: CONTENTION_GAP_THRESHOLD,
    rejectionsPerS: e.ALERT_REJECTIONS_PER_S,
    minRequests: e.ALERT_MIN_REQUESTS,
    crashLoopRestarts: e.ALERT_CRASH_LOOP_RESTARTS,
  };
}

const deploymentLabel = (d: {
  modelVersion: { number: number; model: { name: string } };
  agent: { hostName: string };
}) => `${d.modelVersion.model.name} v${d.modelVersion.number} on ${d.agent.hostName}`;

// Per part of a minute rollup row (one metrics message's), its compute histogram's count and mean, by minute: the
// evaluator runs every few seconds over the whole fleet, and a part never changes once appended, so each is decoded
// once; minutes that left the window are dropped.
const computeMeans = new Map<number, Map<string, { count: number; meanMs: number }>>();
function computeOf(minute: number, key: string, encoded: string): { count: number; meanMs: number } {
  let ofMinute = computeMeans.get(minute);
  if (!ofMinute) computeMeans.set(minute, (ofMinute = new Map()));
  let known = ofMinute.get(key);
  if (!known) {
    const h = LatencyHistogram.decode(encoded);
    known = { count: h.count, meanMs: h.meanMs() };
    ofMinute.set(key, known);
  }
  return known;
}
/** How long the evaluator decodes parts before it lets the event loop serve requests. */
const DECODE_SLICE_MS = 5;
function forgetComputeBefore(since: Date): void {
  for (const minute of computeMeans.keys()) if (minute < since.getTime() - 60_000) computeMeans.delete(minute);
}

/** Everything the rules read, at `now`. */
export async function alertSnapshot(tx: Tx, now: Date, windowMs: number) {
  const since = new Date(now.getTime() - windowMs);
  forgetComputeBefore(since);
  const agents = await tx.agent.findMany({ where: { decommissionedAt: null } });
  // Serving-process restarts in the window: the increments of the reported counter between consecutive heartbeats
  // (a counter that went down is an agent restart, not a crash).
  const restarts = await tx.$queryRaw<Array<{ agentId: string; restarts: bigint | number | null }>>`
    SELECT "agentId", SUM(GREATEST(r - prev, 0)) AS restarts FROM (
      SELECT "agentId", (body->>'servingProcessRestarts')::int AS r,
             LAG((body->>'servingProcessRestarts')::int) OVER (PARTITION BY "agentId" ORDER BY "receivedAt") AS prev
      FROM agent_heartbeat WHERE "receivedAt" >= ${since}) x
    WHERE prev IS NOT NULL GROUP BY "agentId"`;
  const agentSnapshots: AgentSnapshot[] = agents.map((a) => ({
    id: a.id,
    label: a.hostName,
    lastHeartbeatMs: a.lastHeartbeatAt?.getTime() ?? null,
    registeredMs: a.registeredAt.getTime(),
    servingRestartsInWindow: Number(restarts.find((r) => r.agentId === a.id)?.restarts ?? 0),
  }));

  const deployments = await tx.deployment.findMany({
    where: { removedAt: null, agent: { decommissionedAt: null } },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  const ids = deployments.map((d) => d.id);
  const [generations, rollups, applied, failed] = await Promise.all([
    // An empty OR matches nothing.
    tx.deploymentGeneration.findMany({
      where: { OR: deployments.map((d) => ({ deploymentId: d.id, generation: d.generation })) },
    }),
    // The minute rollups' counters and only the compute histogram the rules read (not all eight stages).
    tx.$queryRaw<
      Array<{
        deploymentId: string;
        intervalMs: number;
        requestsCompleted: number;
        requestsRejected: number;
        requestsWithinSlo: number;
        minute: Date;
        compute: string[] | null;
      }>
    >`SELECT r."deploymentId", r."intervalMs", r."requestsCompleted", r."requestsRejected", r."requestsWithinSlo",
        r.minute, ARRAY(SELECT p.histograms->>'compute' FROM metrics_rollup_part p
          WHERE p."deploymentId" = r."deploymentId" AND p.minute = r.minute AND p.histograms ? 'compute'
          ORDER BY p.id) AS compute
      FROM metrics_rollup r WHERE r."deploymentId" = ANY(${ids}::text[]) AND r.minute >= ${since}`,
    tx.proposal.findMany({ where: { deploymentId: { in: ids }, state: "applied" } }),
    tx.proposal.findMany({
      where: { state: "failed", outcomeAt: { gte: new Date(now.getTime() - FAILED_PROPOSAL_WINDOW_MS) } },
    }),
  ]);
  const failedGenerations = await tx.deploymentGeneration.findMany({
    where: {
      OR: generations.flatMap((g) => {
        const m = /^auto-revert: generation (\d+) failed/.exec(g.label);
        return m ? [{ deploymentId: g.deploymentId, generation: Number(m[1]) }] : [];
      }),
    },
  });

  const rollupsOf = new Map<string, typeof rollups>();
  for (const r of rollups) {
    const list = rollupsOf.get(r.deploymentId);
    if (list) list.push(r);
    else rollupsOf.set(r.deploymentId, [r]);
  }
  // The parts not decoded yet (a fleet's new ones since the last round, all of them after a start), decoded a slice at
  // a time so that a round never holds the replica's requests up for long.
  let slice = performance.now();
  for (const r of rollups) {
    for (const [part, encoded] of (r.compute ?? []).entries()) {
      computeOf(r.minute.getTime(), `${r.deploymentId}|${part}|${encoded.length}`, encoded);
      if (performance.now() - slice < DECODE_SLICE_MS) continue;
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  const generationOf = new Map(generations.map((g) => [g.deploymentId, g]));
  const deploymentSnapshots: DeploymentSnapshot[] = deployments.map((d) => {
    const current = generationOf.get(d.id);
    const plan = current ? servingPlanSchema.safeParse(current.plan) : undefined;
    const mine = rollupsOf.get(d.id) ?? [];
    // A minute's parts never change once written (a message appends its own): each is decoded once.
    const compute = mine.flatMap((r) =>
      (r.compute ?? []).map((encoded, part) =>
        computeOf(r.minute.getTime(), `${r.deploymentId}|${part}|${encoded.length}`, encoded),
      ),
    );
    const computeCount = compute.reduce((n, c) => n + c.count, 0);
    const revert = current ? /^auto-revert: generation (\d+) failed/.exec(current.label) : null;
    const running = applied.find((p) => p.deploymentId === d.id && p.appliedGeneration === d.generation);
    const report = deploymentLastReportColumn.read(d.lastReport);
    return {
      id: d.id,
      label: deploymentLabel(d),
      agentId: d.agentId,
      state: d.state,
      failureReason: d.failureReason,
      crashedInstances: (report?.instances ?? []).filter((i) => i.state === "crashed").length,
      batchSize: plan?.success ? planBatchSize(plan.data) : 1,
      slo:
        d.modelVersion.model.sloDeadlineMs && d.modelVersion.model.sloQuantile
          ? { deadlineMs: d.modelVersion.model.sloDeadlineMs, quantile: d.modelVersion.model.sloQuantile }
          : null,
      window: {
        windowMs,
        coveredMs: mine.reduce((s, r) => s + r.intervalMs, 0),
        completed: mine.reduce((s, r) => s + r.requestsCompleted, 0),
        rejected: mine.reduce((s, r) => s + r.requestsRejected, 0),
        withinSlo: mine.reduce((s, r) => s + r.requestsWithinSlo, 0),
        // The merged histogram's mean is the count-weighted mean of the minutes' means.
        meanComputeMs: computeCount > 0 ? compute.reduce((sum, c) => sum + c.count * c.meanMs, 0) / computeCount : null,
      },
      running: running
        ? {
            proposalId: running.id,
            predictedLatencyMs: running.predictedLatencyMs,
            measuredBatchLatencyMs: running.measuredBatchLatencyMs,
          }
        : null,
      autoRevert: revert
        ? {
            generation: d.generation,
            failedGeneration: Number(revert[1]),
            reason:
              failedGenerations.find((g) => g.deploymentId === d.id && g.generation === Number(revert[1]))
                ?.failureReason ?? null,
          }
        : null,
    };
  });
  const labels = new Map(deployments.map((d) => [d.id, deploymentLabel(d)]));
  return {
    nowMs: now.getTime(),
    agents: agentSnapshots,
    deployments: deploymentSnapshots,
    failedProposals: failed.map((p) => ({
      id: p.id,
      deploymentLabel: labels.get(p.deploymentId) ?? p.deploymentId,
      failureReason: p.failureReason,
      atMs: p.outcomeAt?.getTime() ?? now.getTime(),
    })),
  };
}

export interface EvaluationResult {
  evaluated: boolean;
  opened: number;
  resolved: number;
  holding: number;
}

/** JSON with keys sorted (a jsonb column gives its keys back in its own order). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** How stale a held alert's lastSeenAt may get while nothing about it changes. */
const ALERT_REFRESH_MS = 60_000;

/** Opens what newly holds, refreshes what still holds, resolves what cleared. Audited; webhook deliveries queued. */
async function reconcile(
  tx: Tx,
  conditions: AlertCondition[],
  unjudged: ReadonlySet<string>,
  now: Date,
): Promise<Omit<EvaluationResult, "evaluated">> {
  const unresolved = await tx.alert.findMany({ where: { state: { in: ["open", "acknowledged"] } } });
  const byKey = new Map(unresolved.map((a) => [a.key, a]));
  let opened = 0;
  let resolved = 0;
  for (const c of conditions) {
    const existing = byKey.get(c.key);
    if (existing) {
      // A fleet's held alerts are not all rewritten every evaluation: only what changed, and the rest once a minute.
      const unchanged =
        existing.message === c.message &&
        existing.severity === c.severity &&
        existing.objectLabel === c.object.label &&
        canonical(existing.details) === canonical(c.details) &&
        now.getTime() - existing.lastSeenAt.getTime() < ALERT_REFRESH_MS;
      if (unchanged) continue;
      await tx.alert.update({
        where: { id: existing.id },
        data: {
          lastSeenAt: now,
          message: c.message,
          details: writeJsonColumn(alertDetailsColumn, c.details),
          severity: c.severity,
          objectLabel: c.object.label,
        },
      });
      continue;
    }
    const alert = await tx.alert.create({
      data: {
        key: c.key,
        rule: c.rule,
        severity: c.severity,
        objectType: c.object.type,
        objectId: c.object.id,
        objectLabel: c.object.label,
        message: c.message,
        details: writeJsonColumn(alertDetailsColumn, c.details),
        firstSeenAt: now,
        lastSeenAt: now,
      },
    });
    await recordAudit(tx, {
      actor: SYSTEM,
      action: "alert.open",
      target: { type: "alert", id: alert.id, label: `${c.rule}: ${c.object.label}` },
      after: { rule: c.rule, severity: c.severity, object: c.object, message: c.message },
    });
    await enqueueAlertDelivery(tx, alert, "fired");
    opened++;
  }
  const holding = new Set(conditions.map((c) => c.key));
  for (const a of unresolved) {
    if (holding.has(a.key) || unjudged.has(a.key)) continue;
    const done = await tx.alert.update({
      where: { id: a.id },
      data: { state: "resolved", resolvedAt: now, resolvedById: null },
    });
    await recordAudit(tx, {
      actor: SYSTEM,
      action: "alert.resolve",
      target: { type: "alert", id: a.id, label: `${a.rule}: ${a.objectLabel}` },
      before: { state: a.state },
      after: { state: "resolved", automatic: true, reason: "the condition cleared" },
    });
    await enqueueAlertDelivery(tx, done, "resolved");
    resolved++;
  }
  return { opened, resolved, holding: conditions.length - opened };
}

/** One round. Returns evaluated: false when another replica holds the evaluator's lock. */
export async function evaluateAlertsOnce(
  prisma: PrismaClient = db(),
  options: { now?: Date; windowMs?: number; thresholds?: AlertThresholds } = {},
): Promise<EvaluationResult> {
  const now = options.now ?? new Date();
  return prisma.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<
        Array<{ locked: boolean }>
      >`SELECT pg_try_advisory_xact_lock(${ALERT_EVALUATOR_LOCK}::bigint) AS locked`;
      if (!lock?.locked) return { evaluated: false, opened: 0, resolved: 0, holding: 0 };
      const snapshot = await alertSnapshot(tx, now, options.windowMs ?? env().ALERT_WINDOW_MS);
      const { conditions, unjudged } = evaluateAlertRules(snapshot, options.thresholds ?? alertThresholds());
      return { evaluated: true, ...(await reconcile(tx, conditions, new Set(unjudged), now)) };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}
