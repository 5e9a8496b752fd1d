// The estimator timeline chart's series, from the agent's decisions: time in seconds before the newest decision,
// the sampled mean depth Q̂, its EWMA Q̃, the estimate B̂, the stable B̃, the running B, and the decisions at which a
// trigger held or a new B was proposed.
import type { EstimatorDecisionReport } from "@/contracts/agent-protocol";

/** One decision of the agent's estimator, as heartbeats carry it (the one definition is in the contracts). */
export type TimelineDecision = EstimatorDecisionReport;

export interface TimelinePoint {
  /** Seconds relative to the newest decision (≤ 0). */
  t: number;
  qHat: number | null;
  qTilde: number | null;
  estimate: number | null;
  stable: number | null;
  current: number;
  /** Plotted at y = 0 where a trigger held (batch timeouts or queueing delay), else null. */
  trigger: number | null;
  /** The proposed B where the decision proposed, else null. */
  proposed: number | null;
  outcome: string;
}

const round = (v: number | null, digits = 3) => (v === null ? null : Number(v.toFixed(digits)));

export function timelinePoints(decisions: readonly TimelineDecision[]): TimelinePoint[] {
  const sorted = [...decisions].sort((a, b) => a.tMs - b.tMs);
  const last = sorted.at(-1)?.tMs ?? 0;
  return sorted.map((d) => ({
    t: round((d.tMs - last) / 1000, 2)!,
    qHat: round(d.qHat),
    qTilde: round(d.qTilde),
    estimate: d.estimate,
    stable: d.stable,
    current: d.current,
    trigger: d.triggers.holds ? 0 : null,
    proposed: d.proposed,
    outcome: d.outcome,
  }));
}

/** One line under the chart: what the newest decision concluded, in words. */
export function latestOutcomeText(decisions: readonly TimelineDecision[]): string | null {
  const d = [...decisions].sort((a, b) => a.tMs - b.tMs).at(-1);
  if (!d) return null;
  switch (d.outcome) {
    case "no-samples":
      return "no queue-depth samples in the last interval";
    case "stable-equals-current":
      return `the stable batch size equals the running B = ${d.current}`;
    case "no-trigger":
      return `B̃ = ${d.stable} differs from B = ${d.current}, but no trigger holds (batch timeouts or queueing delay)`;
    case "dwell":
      return `B̃ = ${d.stable} would be proposed; the dwell time holds it back ${(d.dwellRemainingMs / 1000).toFixed(1)} s more`;
    case "proposed":
      return `proposed B = ${d.proposed} (running B = ${d.current})`;
    default:
      return d.outcome;
  }
}

const TICK_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600];

/** Whole-second ticks from the oldest point to 0 (at most `maxTicks`), e.g. −38.4 s → [−30, −20, −10, 0]. */
export function timeTicks(oldestT: number, maxTicks = 7): number[] {
  if (!(Number.isFinite(oldestT) && oldestT < 0)) return [0];
  const span = -oldestT;
  const step = TICK_STEPS_S.find((s) => span / s <= maxTicks - 1) ?? Math.ceil(span / (maxTicks - 1) / 600) * 600;
  const ticks: number[] = [];
  for (let t = 0; t >= oldestT - 1e-9; t -= step) ticks.unshift(t === 0 ? 0 : t);
  return ticks;
}
