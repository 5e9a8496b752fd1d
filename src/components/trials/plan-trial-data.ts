// The plan trial as the Optimizer and Approvals pages show it: rows of predicted (isolated, corrected) beside
// measured, how far apart, and a one-line status.
import type { ProposalTrial, TrialCandidateView } from "@/contracts/plan-trial";

export interface TrialRow {
  key: string;
  why: string;
  predicted: string;
  corrected: string;
  measured: string;
  /** (measured − isolated prediction) ÷ isolated prediction, e.g. "+23.1%". */
  gap: string;
  overhead: string;
  note: string;
  proposed: boolean;
}

const ms = (x: number | null | undefined) =>
  x === null || x === undefined ? "—" : `${x < 10 ? x.toFixed(3) : x.toFixed(2)} ms`;

export function roleText(c: Pick<TrialCandidateView, "roles" | "rank">): string {
  return c.roles
    .map((r) =>
      r === "rank" ? `optimizer #${c.rank}` : r === "all-threads" ? "⟨1, T, B⟩" : r === "running" ? "running now" : r,
    )
    .join(", ");
}

export function trialRows(trial: ProposalTrial): TrialRow[] {
  const proposedKey = trial.verdict?.proposedKey ?? null;
  return trial.candidates.map((c) => {
    const m = c.measured;
    const gap = m && c.predictedMs ? (m.meanMs - c.predictedMs) / c.predictedMs : null;
    return {
      key: c.key,
      why: roleText(c),
      predicted: ms(c.predictedMs),
      corrected: ms(c.correctedMs),
      measured: m
        ? `${ms(m.meanMs)} [${m.lowerMs.toFixed(m.meanMs < 10 ? 3 : 2)}–${m.upperMs.toFixed(m.meanMs < 10 ? 3 : 2)}]`
        : trial.state === "done" || trial.state === "failed"
          ? "not measured"
          : "…",
      gap: gap === null ? "—" : `${gap >= 0 ? "+" : ""}${(100 * gap).toFixed(1)}%`,
      overhead: m ? ms(m.overheadMs) : "—",
      note:
        c.error ??
        (c.key === proposedKey ? "proposed" : c.key === trial.verdict?.measuredBestKey ? "measured best" : ""),
      proposed: c.key === proposedKey,
    };
  });
}

export function trialStatus(trial: ProposalTrial): string {
  switch (trial.state) {
    case "queued":
      return `Plan trial queued on the agent: about ${Math.ceil(trial.estimateMs / 1000)} s once it starts. The proposal is offered when it ends.`;
    case "running":
      return `Plan trial running (about ${Math.ceil(trial.estimateMs / 1000)} s in all): the plans take turns, all instances at once, through the agent's dispatcher.`;
    case "cancelled":
      return `Plan trial cancelled (${trial.error ?? "cancelled"}): offered on its predictions alone.`;
    case "failed":
      return `Plan trial failed: ${trial.error ?? "no reason given"}. Offered on its predictions alone.`;
    case "done":
      return `${trial.verdict?.why ?? "measured"}${trial.costS !== null ? ` (trial took ${trial.costS.toFixed(1)} s${trial.stoppedEarly ? ", stopped at its time limit" : ""})` : ""}.`;
  }
}
