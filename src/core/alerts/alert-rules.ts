import { CoreInputError } from "../errors/core-input-error";
import { safeUtilization } from "../planning/queueing";

/*
 * The alert rules, as a pure function of what the control plane knows at one instant (heartbeats, rollups over a
 * window, generations, proposals). It returns the conditions that hold now; the control plane opens an alert for a
 * new one, refreshes one that still holds, and resolves one that no longer does.
 */

export type AlertSeverity = "critical" | "warning";
export type AlertRule =
  | "agent_offline"
  | "serving_crash_loop"
  | "instance_crashed"
  | "model_failed"
  | "proposal_failed"
  | "auto_reverted"
  | "latency_above_predicted"
  | "utilization_above_safe"
  | "slo_breached"
  | "queue_rejections";

export interface AlertThresholds {
  /** An agent without a heartbeat this long is offline (AGENT_OFFLINE_AFTER_MS). */
  offlineAfterMs: number;
  /** Measured batch latency worse than predicted by more than this fraction (the contention gap, e.g. 0.15). */
  latencyGap: number;
  /** Rejected requests per second over the window above which the queue-rejection rule fires. */
  rejectionsPerS: number;
  /** Fewer completed requests than this in the window: too few to judge the SLO or ρ. */
  minRequests: number;
  /** Serving-process restarts within the window that make a crash loop. */
  crashLoopRestarts: number;
}

export interface AgentSnapshot {
  id: string;
  label: string;
  lastHeartbeatMs: number | null;
  registeredMs: number;
  /** Restarts of the agent's serving process within the window. */
  servingRestartsInWindow: number;
}

/** The deployment's per-minute rollups over the window, summed. */
export interface WindowStats {
  windowMs: number;
  /** The time the heartbeats in the window cover (the sum of their intervals). */
  coveredMs: number;
  completed: number;
  rejected: number;
  withinSlo: number;
  /** Mean compute time per request (the batch's latency, from the compute histogram); null without requests. */
  meanComputeMs: number | null;
}

export interface DeploymentSnapshot {
  id: string;
  label: string;
  agentId: string;
  state: string;
  failureReason: string | null;
  crashedInstances: number;
  /** B of the running configuration. */
  batchSize: number;
  slo: { deadlineMs: number; quantile: number } | null;
  window: WindowStats;
  /** The approved proposal the deployment runs now, with its prediction and the measured batch latency. */
  running: { proposalId: string; predictedLatencyMs: number | null; measuredBatchLatencyMs: number | null } | null;
  /** Set while the deployment runs a generation the control plane wrote to revert a failed one. */
  autoRevert: { generation: number; failedGeneration: number; reason: string | null } | null;
}

export interface FailedProposalSnapshot {
  id: string;
  deploymentLabel: string;
  failureReason: string | null;
  atMs: number;
}

export interface AlertSnapshot {
  nowMs: number;
  agents: readonly AgentSnapshot[];
  deployments: readonly DeploymentSnapshot[];
  /** Proposals that failed recently (the caller picks how recent). */
  failedProposals: readonly FailedProposalSnapshot[];
}

export interface AlertCondition {
  /** One open alert per key: the rule and the object it concerns. */
  key: string;
  rule: AlertRule;
  severity: AlertSeverity;
  object: { type: "agent" | "deployment" | "proposal"; id: string; label: string };
  message: string;
  details: Record<string, number | string | null>;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const quantileLabel = (q: number) => `p${Number((q * 100).toFixed(3))}`;

export interface AlertEvaluation {
  /** The conditions that hold now. */
  conditions: AlertCondition[];
  /**
   * Keys that cannot be judged now (the rules fed by an offline agent's reports): an alert with one of these keys
   * neither resolves nor refreshes until the agent reports again, so an agent's short absence does not flap them.
   */
  unjudged: string[];
}

/** The rules that read what an agent reports about a deployment. */
const REPORTED_RULES: readonly AlertRule[] = [
  "instance_crashed",
  "latency_above_predicted",
  "queue_rejections",
  "slo_breached",
  "utilization_above_safe",
];

export class AlertRuleError extends CoreInputError<"invalid-threshold"> {
  override readonly name = "AlertRuleError";
  declare readonly parameter: string;
  constructor(code: "invalid-threshold", parameter: string, message: string) {
    super(code, parameter, `${parameter}: ${message}`);
  }
}

function checkThresholds(t: AlertThresholds): void {
  const positive = (name: keyof AlertThresholds) => {
    if (!(Number.isFinite(t[name]) && t[name] > 0))
      throw new AlertRuleError("invalid-threshold", name, `must be a finite number > 0, got ${t[name]}`);
  };
  positive("offlineAfterMs");
  positive("latencyGap");
  positive("rejectionsPerS");
  positive("crashLoopRestarts");
  if (!(Number.isInteger(t.minRequests) && t.minRequests >= 1))
    throw new AlertRuleError("invalid-threshold", "minRequests", `must be a positive integer, got ${t.minRequests}`);
}

const keyOf = (rule: AlertRule, type: AlertCondition["object"]["type"], id: string) => `${rule}:${type}:${id}`;

export function evaluateAlertRules(snapshot: AlertSnapshot, thresholds: AlertThresholds): AlertEvaluation {
  checkThresholds(thresholds);
  const out: AlertCondition[] = [];
  const unjudged: string[] = [];
  const add = (c: Omit<AlertCondition, "key">) => out.push({ ...c, key: keyOf(c.rule, c.object.type, c.object.id) });
  const offline = new Set<string>();

  for (const agent of snapshot.agents) {
    const object = { type: "agent" as const, id: agent.id, label: agent.label };
    // Never heard from: count from the registration.
    const since = agent.lastHeartbeatMs ?? agent.registeredMs;
    const silentMs = snapshot.nowMs - since;
    if (silentMs > thresholds.offlineAfterMs) {
      offline.add(agent.id);
      add({
        rule: "agent_offline",
        severity: "critical",
        object,
        message: `no heartbeat for ${Math.round(silentMs / 1000)} s (offline after ${thresholds.offlineAfterMs / 1000} s)`,
        details: { lastHeartbeatMs: agent.lastHeartbeatMs, silentMs, offlineAfterMs: thresholds.offlineAfterMs },
      });
    }
    if (agent.servingRestartsInWindow >= thresholds.crashLoopRestarts) {
      add({
        rule: "serving_crash_loop",
        severity: "critical",
        object,
        message: `the serving process restarted ${agent.servingRestartsInWindow} times in the window`,
        details: { restarts: agent.servingRestartsInWindow, threshold: thresholds.crashLoopRestarts },
      });
    }
  }

  for (const d of snapshot.deployments) {
    const object = { type: "deployment" as const, id: d.id, label: d.label };
    if (d.state === "failed") {
      add({
        rule: "model_failed",
        severity: "critical",
        object,
        message: `the model failed: ${d.failureReason ?? "no reason given"}`,
        details: { reason: d.failureReason },
      });
    }
    if (d.autoRevert) {
      add({
        rule: "auto_reverted",
        severity: "warning",
        object,
        message: `generation ${d.autoRevert.failedGeneration} failed and was reverted (now generation ${d.autoRevert.generation})${d.autoRevert.reason ? `: ${d.autoRevert.reason}` : ""}`,
        details: {
          generation: d.autoRevert.generation,
          failedGeneration: d.autoRevert.failedGeneration,
          reason: d.autoRevert.reason,
        },
      });
    }
    // What an offline agent reported last is stale: those rules wait until it reports again.
    if (offline.has(d.agentId)) {
      unjudged.push(...REPORTED_RULES.map((rule) => keyOf(rule, "deployment", d.id)));
      continue;
    }
    if (d.crashedInstances > 0) {
      add({
        rule: "instance_crashed",
        severity: "warning",
        object,
        message: `${d.crashedInstances} instance${d.crashedInstances === 1 ? "" : "s"} crashed (restarting)`,
        details: { crashed: d.crashedInstances },
      });
    }
    const r = d.running;
    if (r && r.predictedLatencyMs !== null && r.predictedLatencyMs > 0 && r.measuredBatchLatencyMs !== null) {
      const gap = r.measuredBatchLatencyMs / r.predictedLatencyMs - 1;
      if (gap > thresholds.latencyGap) {
        add({
          rule: "latency_above_predicted",
          severity: "warning",
          object,
          message: `measured batch latency ${r.measuredBatchLatencyMs.toFixed(2)} ms is ${pct(gap)} above the predicted ${r.predictedLatencyMs.toFixed(2)} ms (threshold ${pct(thresholds.latencyGap)})`,
          details: {
            proposalId: r.proposalId,
            measuredMs: r.measuredBatchLatencyMs,
            predictedMs: r.predictedLatencyMs,
            gap,
          },
        });
      }
    }
    const w = d.window;
    if (w.coveredMs <= 0) continue;
    const seconds = w.coveredMs / 1000;
    const rejectedPerS = w.rejected / seconds;
    if (rejectedPerS > thresholds.rejectionsPerS) {
      add({
        rule: "queue_rejections",
        severity: "warning",
        object,
        message: `${rejectedPerS.toFixed(1)} requests/s rejected over the last ${Math.round(w.windowMs / 60_000)} min (threshold ${thresholds.rejectionsPerS}/s)`,
        details: { rejectedPerS, rejected: w.rejected, threshold: thresholds.rejectionsPerS },
      });
    }
    if (!d.slo || w.completed < thresholds.minRequests) continue;
    const share = w.withinSlo / w.completed;
    if (share < d.slo.quantile) {
      add({
        rule: "slo_breached",
        severity: "critical",
        object,
        message: `${quantileLabel(d.slo.quantile)} ≤ ${d.slo.deadlineMs} ms breached: ${pct(share)} of ${w.completed} requests within it over the last ${Math.round(w.windowMs / 60_000)} min (needs ${pct(d.slo.quantile)})`,
        details: { withinShare: share, quantile: d.slo.quantile, deadlineMs: d.slo.deadlineMs, completed: w.completed },
      });
    }
    // ρ = λ·S/B against ρ_max = 1 − m·S/budget (F-14), S the measured batch latency, m = −ln(1 − q) (ln 100 at p99).
    if (w.meanComputeMs !== null && w.meanComputeMs > 0) {
      const lambda = (w.completed + w.rejected) / seconds;
      const rho = (lambda * w.meanComputeMs) / (1000 * d.batchSize);
      const safe = safeUtilization({
        serviceTimeMs: w.meanComputeMs,
        p99BudgetMs: d.slo.deadlineMs,
        p99Multiplier: -Math.log(1 - d.slo.quantile),
      });
      const rhoMax = safe.feasible ? safe.maxUtilization : 0;
      if (rho > rhoMax) {
        add({
          rule: "utilization_above_safe",
          severity: "warning",
          object,
          message: safe.feasible
            ? `utilization ρ = ${rho.toFixed(2)} is above the SLO's safe ${rhoMax.toFixed(2)} (λ = ${lambda.toFixed(1)}/s, batch latency ${w.meanComputeMs.toFixed(2)} ms, B = ${d.batchSize})`
            : `no utilization is safe: ${safe.reason} (ρ = ${rho.toFixed(2)})`,
          details: { rho, rhoMax, arrivalRatePerS: lambda, batchLatencyMs: w.meanComputeMs, batchSize: d.batchSize },
        });
      }
    }
  }

  for (const p of snapshot.failedProposals) {
    add({
      rule: "proposal_failed",
      severity: "warning",
      object: { type: "proposal", id: p.id, label: p.deploymentLabel },
      message: `the approved configuration failed to apply${p.failureReason ? `: ${p.failureReason}` : ""}`,
      details: { failedAtMs: p.atMs, reason: p.failureReason },
    });
  }
  return { conditions: out, unjudged };
}
