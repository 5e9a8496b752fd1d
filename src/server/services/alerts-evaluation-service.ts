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
import { recordAudits } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { enqueueAlertDeliveries } from "./alert-webhook-service";
import { alertAuditTarget } from "./alert-audit-target";
import { CONTENTION_GAP_THRESHOLD } from "./proposals-service";
import { alertDetailsColumn } from "@/contracts/alert-columns";
import { deploymentLastReportColumn, rollupPartColumn } from "@/contracts/deployment-columns";
import type { StoredJsonValue } from "@/contracts/json-column";

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

const deploymentLabel = (d: { modelName: string; versionNumber: number; hostName: string }) =>
  `${d.modelName} v${d.versionNumber} on ${d.hostName}`;

/** A live deployment as the rules read it: its own columns, its model's SLO and what names it. */
interface DeploymentRow {
  id: string;
  agentId: string;
  state: string;
  failureReason: string | null;
  generation: number;
  lastReport: StoredJsonValue | null;
  hostName: string;
  versionNumber: number;
  modelName: string;
  sloDeadlineMs: number | null;
  sloQuantile: number | null;
}

// Per metrics_rollup_part (one metrics message's histograms), its compute histogram's count and mean, by minute:
// the evaluator runs every few seconds over the whole fleet, and a part never changes once inserted, so each is read
// and decoded once, outside the round's transaction (learnComputeParts, by part id); the round itself reads only the
// window's part ids. Minutes that left the window are dropped. null: the part has no compute histogram.
type ComputeStats = { count: number; meanMs: number } | null;
const computeMeans = new Map<number, Map<string, ComputeStats>>();
/** The highest part id learnt so far: the next learning pass reads the parts after it. */
let learntUpTo = 0n;
/** How long the learning pass decodes parts before it lets the event loop serve requests. */
const DECODE_SLICE_MS = 5;
const LEARN_PAGE = 1_000;

function learn(minute: number, key: string, encoded: string | null): ComputeStats {
  let ofMinute = computeMeans.get(minute);
  if (!ofMinute) computeMeans.set(minute, (ofMinute = new Map()));
  const known = ofMinute.get(key);
  if (known !== undefined) return known;
  let stats: ComputeStats = null;
  if (encoded) {
    const h = LatencyHistogram.decode(encoded);
    stats = { count: h.count, meanMs: h.meanMs() };
  }
  ofMinute.set(key, stats);
  return stats;
}
function forgetComputeBefore(since: Date): void {
  for (const minute of computeMeans.keys()) if (minute < since.getTime() - 60_000) computeMeans.delete(minute);
}

type PartRow = { id: string; deploymentId: string; minute: Date; encoded: Uint8Array };
/** A part's compute histogram (wire encoding), if it has one. */
const computeOf = (row: PartRow) => rollupPartColumn.read(row.encoded, "compute").compute ?? null;
/** A part's key: its id within its deployment (ids alone could repeat across databases a process has used). */
const partKey = (deploymentId: string, id: string) => `${deploymentId}|${id}`;

/**
 * Reads and decodes the window's parts not learnt yet, a page at a time and a slice of decoding at a time, outside
 * any transaction: a round after a start (a whole window of a fleet's parts) never holds a transaction, a pooled
 * connection or the replica's requests up for long. A part committed after a higher id was learnt is picked up by
 * the round itself (missingComputeParts).
 */
async function learnComputeParts(prisma: PrismaClient, since: Date): Promise<void> {
  forgetComputeBefore(since);
  let slice = performance.now();
  for (;;) {
    const rows = await prisma.$queryRaw<PartRow[]>`
      SELECT id::text AS id, "deploymentId", minute, encoded FROM metrics_rollup_part
      WHERE id > ${learntUpTo}::bigint AND minute >= ${since} ORDER BY id LIMIT ${LEARN_PAGE}`;
    for (const row of rows) {
      learn(row.minute.getTime(), partKey(row.deploymentId, row.id), computeOf(row));
      if (performance.now() - slice < DECODE_SLICE_MS) continue;
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    if (rows.length > 0) learntUpTo = BigInt(rows[rows.length - 1]!.id);
    if (rows.length < LEARN_PAGE) return;
  }
}

/** Inside the round: the parts its snapshot lists that the learning pass has not seen (few; by id). */
async function missingComputeParts(
  tx: Tx,
  since: Date,
  rollups: ReadonlyArray<{ deploymentId: string; minute: Date; parts: string[] }>,
) {
  const missing = rollups.flatMap((r) =>
    r.parts.filter((id) => computeMeans.get(r.minute.getTime())?.get(partKey(r.deploymentId, id)) === undefined),
  );
  if (missing.length === 0) return;
  const rows = await tx.$queryRaw<PartRow[]>`
    SELECT id::text AS id, "deploymentId", minute, encoded FROM metrics_rollup_part
    WHERE id = ANY(${missing}::bigint[]) AND minute >= ${since}`;
  for (const row of rows) learn(row.minute.getTime(), partKey(row.deploymentId, row.id), computeOf(row));
}

/**
 * Everything the rules read, at `now`. The fleet-wide reads are plain SQL with array parameters: through the ORM, a
 * query listing thousands of ids (or of deployment-generation pairs) is compiled anew each round and its rows
 * mapped one nested object at a time, which held a replica's event loop for hundreds of milliseconds at 2 000
 * agents and made the heartbeats wait behind it.
 */
export async function alertSnapshot(tx: Tx, now: Date, windowMs: number) {
  const since = new Date(now.getTime() - windowMs);
  const agents = await tx.$queryRaw<
    Array<{ id: string; hostName: string; lastHeartbeatAt: Date | null; registeredAt: Date }>
  >`SELECT id, "hostName", "lastHeartbeatAt", "registeredAt" FROM agent WHERE "decommissionedAt" IS NULL`;
  // Serving-process restarts in the window: the increments of the reported counter (a counter that went down is an
  // agent restart, not a crash). A row is written when the counter moves and says what it moved from; a row
  // without that (written by an older control plane, one per message) is compared with the agent's row before it.
  const restarts = await tx.$queryRaw<Array<{ agentId: string; restarts: bigint | number | null }>>`
    SELECT "agentId", SUM(GREATEST(r - prev, 0)) AS restarts FROM (
      SELECT "agentId", (body->>'servingProcessRestarts')::int AS r,
             CASE WHEN body ? 'previousServingProcessRestarts'
               THEN (body->>'previousServingProcessRestarts')::int
               ELSE LAG((body->>'servingProcessRestarts')::int) OVER (PARTITION BY "agentId" ORDER BY "receivedAt")
             END AS prev
      FROM agent_heartbeat WHERE "receivedAt" >= ${since}) x
    WHERE prev IS NOT NULL GROUP BY "agentId"`;
  // By map, not a search per agent: a fleet's agents times its rows would hold the event loop for long.
  const restartsOf = new Map(restarts.map((r) => [r.agentId, r.restarts]));
  const agentSnapshots: AgentSnapshot[] = agents.map((a) => ({
    id: a.id,
    label: a.hostName,
    lastHeartbeatMs: a.lastHeartbeatAt?.getTime() ?? null,
    registeredMs: a.registeredAt.getTime(),
    servingRestartsInWindow: Number(restartsOf.get(a.id) ?? 0),
  }));

  const deployments = await tx.$queryRaw<DeploymentRow[]>`
    SELECT d.id, d."agentId", d.state, d."failureReason", d.generation, d."lastReport", a."hostName",
      v.number AS "versionNumber", m.name AS "modelName", m."sloDeadlineMs", m."sloQuantile"
    FROM deployment d JOIN agent a ON a.id = d."agentId" JOIN model_version v ON v.id = d."modelVersionId"
      JOIN model m ON m.id = v."modelId"
    WHERE d."removedAt" IS NULL AND a."decommissionedAt" IS NULL`;
  const ids = deployments.map((d) => d.id);
  const [generations, rollups, applied, failed] = await Promise.all([
    // Each deployment's current generation.
    tx.$queryRaw<Array<{ deploymentId: string; generation: number; plan: unknown; label: string }>>`
      SELECT g."deploymentId", g.generation, g.plan, g.label FROM deployment_generation g
      JOIN unnest(${ids}::text[], ${deployments.map((d) => d.generation)}::int[]) AS current(id, generation)
        ON g."deploymentId" = current.id AND g.generation = current.generation`,
    // The minute rollups' counters and the ids of their parts (whose compute histograms are learnt by id).
    tx.$queryRaw<
      Array<{
        deploymentId: string;
        intervalMs: number;
        requestsCompleted: number;
        requestsRejected: number;
        requestsWithinSlo: number;
        minute: Date;
        parts: string[];
      }>
    >`SELECT r."deploymentId", r."intervalMs", r."requestsCompleted", r."requestsRejected", r."requestsWithinSlo",
        r.minute, ARRAY(SELECT p.id::text FROM metrics_rollup_part p
          WHERE p."deploymentId" = r."deploymentId" AND p.minute = r.minute ORDER BY p.id) AS parts
      FROM metrics_rollup r WHERE r."deploymentId" = ANY(${ids}::text[]) AND r.minute >= ${since}`,
    tx.$queryRaw<
      Array<{
        id: string;
        deploymentId: string;
        appliedGeneration: number | null;
        predictedLatencyMs: number | null;
        measuredBatchLatencyMs: number | null;
      }>
    >`SELECT id, "deploymentId", "appliedGeneration", "predictedLatencyMs", "measuredBatchLatencyMs" FROM proposal
      WHERE "deploymentId" = ANY(${ids}::text[]) AND state = 'applied'`,
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
  await missingComputeParts(tx, since, rollups);
  const generationOf = new Map(generations.map((g) => [g.deploymentId, g]));
  const appliedOf = new Map<string, (typeof applied)[number]>();
  for (const p of applied) {
    const key = `${p.deploymentId}|${p.appliedGeneration}`;
    if (!appliedOf.has(key)) appliedOf.set(key, p); // the first, as a search would find
  }
  const deploymentSnapshots: DeploymentSnapshot[] = deployments.map((d) => {
    const current = generationOf.get(d.id);
    const plan = current ? servingPlanSchema.safeParse(current.plan) : undefined;
    const mine = rollupsOf.get(d.id) ?? [];
    const compute = mine.flatMap((r) =>
      r.parts.flatMap((id) => computeMeans.get(r.minute.getTime())?.get(partKey(r.deploymentId, id)) ?? []),
    );
    const computeCount = compute.reduce((n, c) => n + c.count, 0);
    const revert = current ? /^auto-revert: generation (\d+) failed/.exec(current.label) : null;
    const running = appliedOf.get(`${d.id}|${d.generation}`);
    const report = deploymentLastReportColumn.read(d.lastReport);
    return {
      id: d.id,
      label: deploymentLabel(d),
      agentId: d.agentId,
      state: d.state,
      failureReason: d.failureReason,
      crashedInstances: (report?.instances ?? []).filter((i) => i.state === "crashed").length,
      batchSize: plan?.success ? planBatchSize(plan.data) : 1,
      slo: d.sloDeadlineMs && d.sloQuantile ? { deadlineMs: d.sloDeadlineMs, quantile: d.sloQuantile } : null,
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

/** Rows a batched statement writes at most (its parameters stay far below PostgreSQL's 65 535). */
const BATCH_ROWS = 500;
function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += BATCH_ROWS) yield items.slice(i, i + BATCH_ROWS);
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
  const fresh: AlertCondition[] = [];
  /** Held alerts whose only change is that they still hold: refreshed together. */
  const stale: string[] = [];
  /** Held alerts whose message or details changed (an offline agent's silence grows every round). */
  const changed: Array<{ id: string; c: AlertCondition }> = [];
  for (const c of conditions) {
    const existing = byKey.get(c.key);
    if (existing) {
      // A fleet's held alerts are not all rewritten every evaluation: only what changed, and the rest once a minute.
      const same =
        existing.message === c.message &&
        existing.severity === c.severity &&
        existing.objectLabel === c.object.label &&
        canonical(existing.details) === canonical(c.details);
      if (same) {
        if (now.getTime() - existing.lastSeenAt.getTime() >= ALERT_REFRESH_MS) stale.push(existing.id);
        continue;
      }
      changed.push({ id: existing.id, c });
      continue;
    }
    fresh.push(c);
  }
  for (const ids of chunks(stale))
    await tx.$executeRaw`UPDATE alert SET "lastSeenAt" = ${now} WHERE id = ANY(${ids}::text[])`;
  for (const some of chunks(changed)) {
    const details = some.map(({ c }) => JSON.stringify(writeJsonColumn(alertDetailsColumn, c.details)));
    await tx.$executeRaw`
      UPDATE alert AS a SET "lastSeenAt" = ${now}, message = v.message, details = v.details::jsonb,
        severity = v.severity, "objectLabel" = v.label
      FROM unnest(${some.map((x) => x.id)}::text[], ${some.map(({ c }) => c.message)}::text[], ${details}::text[],
        ${some.map(({ c }) => c.severity)}::text[], ${some.map(({ c }) => c.object.label)}::text[])
        AS v(id, message, details, severity, label)
      WHERE a.id = v.id`;
  }
  // What opens and what resolves is written a few statements at a time, whatever their number: a fleet whose
  // agents all go offline at once opens thousands of alerts, and a statement each (alert, audit, delivery) would
  // keep the round's transaction open for seconds.
  for (const some of chunks(fresh)) {
    const created = await tx.alert.createManyAndReturn({
      data: some.map((c) => ({
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
      })),
    });
    await recordAudits(
      tx,
      created.map((alert) => ({
        actor: SYSTEM,
        action: "alert.open",
        target: alertAuditTarget(alert),
        after: {
          rule: alert.rule,
          severity: alert.severity,
          object: { type: alert.objectType, id: alert.objectId, label: alert.objectLabel },
          message: alert.message,
        },
      })),
    );
    await enqueueAlertDeliveries(tx, created, "fired");
    opened += created.length;
  }
  const holding = new Set(conditions.map((c) => c.key));
  const cleared = unresolved.filter((a) => !holding.has(a.key) && !unjudged.has(a.key));
  const stateBefore = new Map(cleared.map((a) => [a.id, a.state]));
  for (const some of chunks(cleared)) {
    const done = await tx.alert.updateManyAndReturn({
      where: { id: { in: some.map((a) => a.id) }, state: { in: ["open", "acknowledged"] } },
      data: { state: "resolved", resolvedAt: now, resolvedById: null },
    });
    await recordAudits(
      tx,
      done.map((a) => ({
        actor: SYSTEM,
        action: "alert.resolve",
        target: alertAuditTarget(a),
        before: { state: stateBefore.get(a.id) },
        after: { state: "resolved", automatic: true, reason: "the condition cleared" },
      })),
    );
    await enqueueAlertDeliveries(tx, done, "resolved");
    resolved += done.length;
  }
  return { opened, resolved, holding: conditions.length - opened };
}

/** One round. Returns evaluated: false when another replica holds the evaluator's lock. */
export async function evaluateAlertsOnce(
  prisma: PrismaClient = db(),
  options: { now?: Date; windowMs?: number; thresholds?: AlertThresholds } = {},
): Promise<EvaluationResult> {
  const now = options.now ?? new Date();
  const windowMs = options.windowMs ?? env().ALERT_WINDOW_MS;
  await learnComputeParts(prisma, new Date(now.getTime() - windowMs));
  return prisma.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<
        Array<{ locked: boolean }>
      >`SELECT pg_try_advisory_xact_lock(${ALERT_EVALUATOR_LOCK}::bigint) AS locked`;
      if (!lock?.locked) return { evaluated: false, opened: 0, resolved: 0, holding: 0 };
      const snapshot = await alertSnapshot(tx, now, windowMs);
      const { conditions, unjudged } = evaluateAlertRules(snapshot, options.thresholds ?? alertThresholds());
      return { evaluated: true, ...(await reconcile(tx, conditions, new Set(unjudged), now)) };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}
