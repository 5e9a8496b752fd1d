/**
 * The Approvals page's data shaping (issue #16), pure: what a proposal changes against the running configuration,
 * what switching to it costs (the agent's rule: a new thread count is an active-passive switch, a different set of
 * instances on the same thread counts a scale, B and timeout alone a batch-only change), how a decided proposal
 * ended, and measured vs predicted batch latency.
 */
import { servingPlanSchema, planBatchSize, type ServingPlan } from "@/contracts/serving-plan";
import { formatFixed, formatMs, formatPercent, formatRate, formatSig, NO_VALUE } from "@/lib/planning/format";

export interface PlanShape {
  groups: Array<{ count: number; threads: number; batch: number; cpus: string[] }>;
  instances: number;
  threadCounts: number[];
  totalThreads: number;
  /** One cpulist per instance, in plan order. */
  cpuLists: string[];
  batchSize: number;
  timeoutMs: number;
}

/** A stored plan (JSON from the database) as the page compares it; null when it is not a serving plan. */
export function planShape(plan: unknown): PlanShape | null {
  const parsed = servingPlanSchema.safeParse(plan);
  if (!parsed.success) return null;
  const p: ServingPlan = parsed.data;
  const groups = p.instances.map((g) => ({ count: g.count, threads: g.threads, batch: g.batch, cpus: g.cpus ?? [] }));
  return {
    groups,
    instances: groups.reduce((s, g) => s + g.count, 0),
    threadCounts: [...new Set(groups.map((g) => g.threads))].sort((a, b) => a - b),
    totalThreads: groups.reduce((s, g) => s + g.count * g.threads, 0),
    cpuLists: groups.flatMap((g) => g.cpus),
    batchSize: planBatchSize(p),
    timeoutMs: p.batchTimeoutMs,
  };
}

const groupsText = (s: PlanShape) =>
  s.groups.map((g) => `${g.count} × ⟨${g.threads} thread${g.threads === 1 ? "" : "s"}, b = ${g.batch}⟩`).join(" + ");

export interface DiffRow {
  label: string;
  running: string;
  proposed: string;
  changed: boolean;
}

export interface ProposalFigures {
  predictedLatencyMs: number | null;
  predictedThroughputPerS: number | null;
  utilizationAtCurrentRate: number | null;
}

/** Row by row: what runs now, what is proposed, and whether it differs. Predictions exist only for the proposal. */
export function diffRows(running: PlanShape | null, proposed: PlanShape | null, figures: ProposalFigures): DiffRow[] {
  const cell = (s: PlanShape | null, f: (s: PlanShape) => string) => (s ? f(s) : NO_VALUE);
  const row = (label: string, f: (s: PlanShape) => string): DiffRow => {
    const a = cell(running, f);
    const b = cell(proposed, f);
    return { label, running: a, proposed: b, changed: running !== null && proposed !== null && a !== b };
  };
  const utilization = figures.utilizationAtCurrentRate;
  return [
    row("Instances ⟨i, t, b⟩", groupsText),
    row("Instance count", (s) => String(s.instances)),
    row("Threads per instance", (s) => s.threadCounts.join(", ")),
    row("Threads in all", (s) => String(s.totalThreads)),
    row("CPUs per instance", (s) => (s.cpuLists.length ? s.cpuLists.join(" | ") : "allocated by the agent")),
    row("Batch size B", (s) => `${s.batchSize} sample${s.batchSize === 1 ? "" : "s"}`),
    row("Batch timeout", (s) => `${formatFixed(s.timeoutMs, 3)} ms`),
    {
      label: "Predicted batch latency",
      running: "not predicted",
      proposed: formatMs(figures.predictedLatencyMs, 4),
      changed: false,
    },
    {
      label: "Predicted throughput",
      running: "not predicted",
      proposed: formatRate(figures.predictedThroughputPerS, "samples/s", 4),
      changed: false,
    },
    {
      label: "Utilization at the current rate",
      running: NO_VALUE,
      proposed:
        utilization === null ? NO_VALUE : `ρ = ${formatSig(utilization, 3)}${utilization >= 1 ? " (overloaded)" : ""}`,
      changed: false,
    },
  ];
}

export interface SwitchCost {
  kind: "active-passive" | "scale" | "batch-only" | "none" | "unknown";
  text: string;
}

const instanceKeys = (s: PlanShape) =>
  s.groups.flatMap((g) => Array.from({ length: g.count }, (_, i) => `${g.threads}@${g.cpus[i] ?? "?"}`)).sort();

/** What the agent will do to move from the running plan to the proposed one, in words. */
export function switchCost(running: PlanShape | null, proposed: PlanShape | null): SwitchCost {
  if (!running || !proposed)
    return {
      kind: "unknown",
      text: "No running configuration to compare with: the agent starts the proposed instances from scratch.",
    };
  const before = new Set(running.threadCounts);
  const after = new Set(proposed.threadCounts);
  const threadsChange = [...after].some((t) => !before.has(t)) || [...before].some((t) => !after.has(t));
  if (threadsChange) {
    return {
      kind: "active-passive",
      text: `Active-passive switch: threads per instance change (${running.threadCounts.join(", ")} → ${proposed.threadCounts.join(", ")}), so ${proposed.instances} new instance${proposed.instances === 1 ? "" : "s"} start and warm up beside the ${running.instances} running, the dispatcher switches between two batches, and the old set drains and stops. Requests keep queueing, none are dropped; expect each new instance's start and warm-up time, and CPUs shared by both sets while they overlap.`,
    };
  }
  const a = instanceKeys(running);
  const b = instanceKeys(proposed);
  const stays = b.filter((k) => {
    const i = a.indexOf(k);
    if (i < 0) return false;
    a.splice(i, 1);
    return true;
  }).length;
  const started = proposed.instances - stays;
  const stopped = running.instances - stays;
  if (started || stopped) {
    return {
      kind: "scale",
      text: `Scale: same threads per instance; ${started} instance${started === 1 ? "" : "s"} start${started === 1 ? "s" : ""} and ${stopped} stop${stopped === 1 ? "s" : ""} (${running.instances} → ${proposed.instances}), the ${stays} that stay keep serving throughout.`,
    };
  }
  if (running.batchSize !== proposed.batchSize || running.timeoutMs !== proposed.timeoutMs) {
    return {
      kind: "batch-only",
      text: "Batch-only: the same instances keep serving; the dispatcher takes the new B and timeout between two batches.",
    };
  }
  return { kind: "none", text: "Nothing changes: the proposal equals the running configuration." };
}

export interface ApplyReport {
  kind?: string;
  phasesMs?: Record<string, number>;
  started?: number;
  stopped?: number;
  kept?: number;
}

const PHASES = ["start", "warm", "switch", "drain", "stop", "total"] as const;

/** "start 120 ms · warm 340 ms · … · total 470 ms", or null without timings. */
export function phaseText(report: ApplyReport | null): string | null {
  const phases = report?.phasesMs;
  if (!phases) return null;
  const parts = PHASES.filter((p) => typeof phases[p] === "number" && Number.isFinite(phases[p])).map(
    (p) => `${p} ${formatSig(phases[p]!, 3)} ms`,
  );
  return parts.length ? parts.join(" · ") : null;
}

export interface DecidedProposal {
  state: string;
  appliedGeneration: number | null;
  baseGeneration: number;
  failureReason: string | null;
  decidedBy: string | null;
  decisionComment: string | null;
  applyReport: ApplyReport | null;
}

/** How a proposal ended (or where it stands), in one line. */
export function outcomeText(p: DecidedProposal): string {
  switch (p.state) {
    case "pending":
      return "waiting for an SRE";
    case "rejected":
      return `rejected by ${p.decidedBy ?? "an SRE"}: ${p.decisionComment ?? ""}`.trim();
    case "expired":
      return `expired: made against generation ${p.baseGeneration}; the deployment moved on or 24 h passed`;
    case "withdrawn":
      return `withdrawn by the agent's estimator: ${p.decisionComment ?? "the load no longer asks for it"}`;
    case "applying":
      return `approved by ${p.decidedBy ?? "an SRE"} as generation ${p.appliedGeneration ?? "?"}; the agent is applying it`;
    case "applied": {
      const how = p.applyReport?.kind ? ` (${p.applyReport.kind})` : "";
      return `applied as generation ${p.appliedGeneration ?? "?"}${how}`;
    }
    case "failed":
      return `generation ${p.appliedGeneration ?? "?"} failed: ${p.failureReason ?? "no reason reported"}; the control plane reverted to the last applied configuration`;
    default:
      return p.state;
  }
}

export const stateBadge = (state: string): "ok" | "bad" | "warn" =>
  state === "applied" ? "ok" : state === "failed" || state === "rejected" ? "bad" : "warn";

/** Measured vs predicted batch latency after the switch (§5.2.2's contention gap), flagged past the threshold. */
export function gapText(
  measuredMs: number | null,
  predictedMs: number | null,
  gap: number | null,
  flag: boolean,
): { text: string; flag: boolean } {
  if (measuredMs === null) return { text: `predicted ${formatMs(predictedMs, 4)}; not measured yet`, flag: false };
  const sign = gap !== null && gap > 0 ? "+" : "";
  const rel = gap === null ? "" : ` (${sign}${formatPercent(gap, 1)})`;
  return {
    text: `measured ${formatMs(measuredMs, 4)} vs predicted ${formatMs(predictedMs, 4)}${rel}${flag ? ": worse than predicted by more than 15%" : ""}`,
    flag,
  };
}

/** An SRE may not approve their own proposal; an admin may. */
export function canApprove(viewer: { email: string; role: string }, proposedBy: string | null): boolean {
  if (viewer.role === "admin") return true;
  return viewer.role === "sre" && proposedBy !== viewer.email;
}

/** "in 23 h", "in 12 min", "expired" */
export function expiresIn(expiresAt: Date | string, now: number): string {
  const ms = new Date(expiresAt).getTime() - now;
  if (!Number.isFinite(ms) || ms <= 0) return "expired";
  if (ms >= 3_600_000) return `in ${Math.floor(ms / 3_600_000)} h`;
  return `in ${Math.max(1, Math.floor(ms / 60_000))} min`;
}
