// A proposal's plan trial: every candidate's prediction (alone, and corrected for this host) beside what the trial
// measured, how far apart, and the verdict.
import type { ProposalTrial } from "@/contracts/plan-trial";
import { trialRows, trialStatus } from "./plan-trial-data";

export function PlanTrialPanel({
  trial,
  onCancel,
  cancelling,
}: {
  trial: ProposalTrial;
  onCancel?: () => void;
  cancelling?: boolean;
}) {
  const rows = trialRows(trial);
  const contradicted = trial.verdict?.contradicted ?? false;
  return (
    <div className="plan-trial" data-testid="plan-trial" data-state={trial.state}>
      <div
        className={contradicted ? "warn-box" : trial.state === "failed" ? "error-box" : "muted small"}
        data-testid="plan-trial-status"
      >
        <strong>Plan trial:</strong> {trialStatus(trial)}
        {trial.replaced && <> The optimizer had chosen {trial.replaced.key}.</>}
        {onCancel && (trial.state === "queued" || trial.state === "running") && (
          <>
            {" "}
            <button
              type="button"
              className="btn small"
              data-testid="plan-trial-cancel"
              disabled={cancelling}
              onClick={onCancel}
            >
              Cancel the trial
            </button>
          </>
        )}
      </div>
      <div className="table-wrap">
        <table className="data compact-table" data-testid="plan-trial-table">
          <thead>
            <tr>
              <th>Plan ⟨i, t, b⟩</th>
              <th>Tried as</th>
              <th className="num">Predicted (profile, alone)</th>
              <th className="num">Predicted (corrected for this host)</th>
              <th className="num">Measured in the trial [95% interval]</th>
              <th className="num">Measured vs predicted</th>
              <th className="num">Agent overhead</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className={r.proposed ? "selected-row" : undefined} data-plan={r.key}>
                <td>{r.proposed ? <strong>{r.key}</strong> : r.key}</td>
                <td>{r.why}</td>
                <td className="num">{r.predicted}</td>
                <td className="num">{r.corrected}</td>
                <td className="num">{r.measured}</td>
                <td className="num">{r.gap}</td>
                <td className="num">{r.overhead}</td>
                <td>{r.note}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {trial.model && (
        <p className="muted small">
          Corrected = profile × ({trial.model.contention.intercept.toFixed(3)} +{" "}
          {trial.model.contention.slope.toFixed(3)}·x) + {trial.model.overhead.intercept.toFixed(3)} ms +{" "}
          {trial.model.overhead.slope.toFixed(3)} ms per extra instance, fitted on {trial.model.observations} earlier
          trial measurements of this host (x = the share of cores the plan&apos;s other instances keep busy)
          {trial.model.observations === 0 ? ": none yet, so corrected = profile" : ""}. Measured = the dispatcher&apos;s
          batch time (split, hand-off, compute, merge), mean of {trial.candidates[0]?.measured?.rounds ?? "the"}{" "}
          interleaved rounds.
        </p>
      )}
    </div>
  );
}
