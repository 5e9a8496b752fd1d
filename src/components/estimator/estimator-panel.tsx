"use client";
// The deployment page's batch-size estimator section (issue #17): the agent's recent decisions as a chart, the
// estimator's proposals for this deployment (approve or reject here; a proposal without a profile links to the
// profile form), and the approval policy that decides whether they wait for an SRE.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { EstimatorTimelineChart } from "@/components/charts/estimator-timeline-chart";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "../format-time";
import { latestOutcomeText, timelinePoints, type TimelineDecision } from "./estimator-timeline-data";
import "./estimator.css";

const ms = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${v.toFixed(v < 10 ? 2 : 1)} ms`);
const stateBadge: Record<string, string> = {
  pending: "warn",
  applying: "warn",
  applied: "ok",
  rejected: "bad",
  failed: "bad",
  expired: "",
};

/** Scrolls to the deployment page's profile form (its Profiles section). */
function goToProfiles(): void {
  document.querySelector('[data-testid="deployment-profiles"]')?.scrollIntoView({ behavior: "smooth", block: "start" });
}

type PolicyForm = {
  mode: "require_approval" | "auto_approve";
  minBatch: number;
  maxBatch: number;
  singleStep: boolean;
  changes: "scale_only" | "any";
  maxPerHour: number;
};

function PolicyCard({
  deploymentId,
  policy,
  canEdit,
  onSaved,
}: {
  deploymentId: string;
  canEdit: boolean;
  onSaved: () => void;
  policy: {
    policy: PolicyForm;
    isDefault: boolean;
    updatedAt: Date | null;
    updatedBy: string | null;
    autoApprovalsLastHour: number;
  };
}) {
  const trpc = useTRPC();
  const [editing, setEditing] = useState(false);
  const save = useMutation(
    trpc.estimator.setPolicy.mutationOptions({
      onSuccess: () => {
        setEditing(false);
        onSaved();
      },
    }),
  );
  const p = policy.policy;
  const summary =
    p.mode === "require_approval"
      ? "every estimator proposal waits for an SRE"
      : `B in [${p.minBatch}, ${p.maxBatch}]${p.singleStep ? ", one doubling or halving at a time" : ""}, ${p.changes === "scale_only" ? "scale-only changes" : "any change"}, at most ${p.maxPerHour} an hour`;
  return (
    <div className="card" data-testid="approval-policy">
      <h2>Approval policy</h2>
      {!editing ? (
        <>
          <p className="policy-summary">
            <span className={`badge ${p.mode === "auto_approve" ? "warn" : "ok"}`}>
              {p.mode === "auto_approve" ? "auto-approve" : "require approval"}
            </span>{" "}
            {summary}.
          </p>
          <p className="muted small">
            {policy.isDefault
              ? "The default (never changed)."
              : `Set by ${policy.updatedBy ?? "an SRE"}${policy.updatedAt ? `, ${formatTime(policy.updatedAt)}` : ""}.`}
            {p.mode === "auto_approve" &&
              ` ${policy.autoApprovalsLastHour} auto-approval${policy.autoApprovalsLastHour === 1 ? "" : "s"} in the last hour.`}
          </p>
          {canEdit && (
            <button className="btn small" type="button" onClick={() => setEditing(true)}>
              Change policy
            </button>
          )}
        </>
      ) : (
        <form
          className="form policy-form"
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            save.mutate({
              deploymentId,
              mode: f.get("mode") as PolicyForm["mode"],
              minBatch: Number(f.get("minBatch")),
              maxBatch: Number(f.get("maxBatch")),
              singleStep: f.get("singleStep") === "on",
              changes: f.get("changes") as PolicyForm["changes"],
              maxPerHour: Number(f.get("maxPerHour")),
            });
          }}
        >
          <label className="form-field">
            <span>Estimator proposals</span>
            <select name="mode" defaultValue={p.mode}>
              <option value="require_approval">require an SRE&apos;s approval</option>
              <option value="auto_approve">auto-approve within bounds</option>
            </select>
          </label>
          <div className="policy-pair">
            <label className="form-field">
              <span>B min</span>
              <input name="minBatch" type="number" min={1} max={65536} defaultValue={p.minBatch} required />
            </label>
            <label className="form-field">
              <span>B max</span>
              <input name="maxBatch" type="number" min={1} max={65536} defaultValue={p.maxBatch} required />
            </label>
          </div>
          <label className="policy-check">
            <input name="singleStep" type="checkbox" defaultChecked={p.singleStep} /> at most one doubling or halving at
            a time
          </label>
          <label className="form-field">
            <span>Changes</span>
            <select name="changes" defaultValue={p.changes}>
              <option value="scale_only">scale-only (same thread counts)</option>
              <option value="any">any (also active-passive)</option>
            </select>
          </label>
          <label className="form-field">
            <span>At most this many auto-approvals an hour</span>
            <input name="maxPerHour" type="number" min={0} max={1000} defaultValue={p.maxPerHour} required />
          </label>
          {save.error && (
            <div className="error-box" role="alert">
              {save.error.message}
            </div>
          )}
          <div style={{ display: "flex", gap: 8 }}>
            <button className="btn primary" type="submit" disabled={save.isPending}>
              Save policy
            </button>
            <button className="btn" type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

export function EstimatorPanel({ deploymentId, canDecide }: { deploymentId: string; canDecide: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const view = useQuery(trpc.estimator.view.queryOptions({ deploymentId }, { refetchInterval: 5000 }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.estimator.view.queryKey({ deploymentId }) });
  const approve = useMutation(trpc.proposals.approve.mutationOptions({ onSuccess: () => void refresh() }));
  const reject = useMutation(trpc.proposals.reject.mutationOptions({ onSuccess: () => void refresh() }));
  const [shown, setShown] = useState<string | null>(null);
  // A link to this page's profile form (…#profiles) lands on it once the page has rendered.
  useEffect(() => {
    if (view.data && window.location.hash === "#profiles") goToProfiles();
  }, [view.data]);
  if (view.isPending) return <p className="muted">Loading…</p>;
  if (view.error) return <div className="error-box">{view.error.message}</div>;
  const v = view.data;
  const decisions: readonly TimelineDecision[] = v.timeline;
  const params = v.state?.params;
  const pending = v.proposals.find((p) => p.state === "pending");
  const evidenceOf = shown ? v.proposals.find((p) => p.id === shown) : pending;
  return (
    <div className="estimator-panel" data-testid="estimator-panel">
      <div className="cards estimator-cards">
        <div className="card">
          <h2>Estimator</h2>
          <dl className="kv">
            <dt>Q̃ (EWMA depth)</dt>
            <dd>{v.state?.qTilde === null || v.state?.qTilde === undefined ? "—" : v.state.qTilde.toFixed(2)}</dd>
            <dt>B̃ stable</dt>
            <dd>{v.state?.stable ?? "—"}</dd>
            <dt>B running</dt>
            <dd>{v.currentB ?? "—"}</dd>
            <dt>Decides every</dt>
            <dd>
              {params?.reconfigurationTimeoutMs ? `${params.reconfigurationTimeoutMs / 1000} s` : "—"}
              {params?.minDwellMs !== undefined ? `, dwell ${params.minDwellMs / 1000} s` : ""}
            </dd>
            <dt>Reported</dt>
            <dd>{v.reportedAt ? formatTime(v.reportedAt) : "never"}</dd>
          </dl>
          {latestOutcomeText(decisions) && (
            <p className="muted small estimator-outcome">Latest: {latestOutcomeText(decisions)}.</p>
          )}
        </div>
        <PolicyCard deploymentId={deploymentId} policy={v.policy} canEdit={canDecide} onSaved={() => void refresh()} />
      </div>
      <div className="panel estimator-chart">
        <div className="estimator-chart-title">Recent decisions (the last {decisions.length} the agent reported)</div>
        <EstimatorTimelineChart points={timelinePoints(decisions)} />
      </div>
      {[approve.error, reject.error].filter(Boolean).map((e, i) => (
        <div key={i} className="error-box" role="alert" style={{ margin: "12px 0" }}>
          {e!.message}
        </div>
      ))}
      <h3 className="estimator-subhead">Estimator proposals</h3>
      {v.proposals.length === 0 ? (
        <p className="muted" data-testid="estimator-proposals-empty">
          None yet. When the stable batch size B̃ differs from the running B while a trigger holds, the agent proposes
          it, and it appears here and on the Approvals page.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="data" data-testid="estimator-proposals">
            <thead>
              <tr>
                <th>State</th>
                <th>Why</th>
                <th>Plan</th>
                <th>Predicted</th>
                <th>Notes</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {v.proposals.map((p) => (
                <tr key={p.id}>
                  <td>
                    <span className={`badge ${stateBadge[p.state] ?? ""}`}>{p.state}</span>
                    {p.autoApproved && <div className="muted small">auto-approved</div>}
                  </td>
                  <td>
                    <div>{p.reason}</div>
                    <div className="muted small nowrap">
                      {formatTime(p.createdAt)}
                      {p.reports > 1 ? ` · proposed ${p.reports}×` : ""}
                    </div>
                  </td>
                  <td className="small">
                    {p.items.length ? (
                      p.items.map((i) => `${i.count}×⟨${i.threads}t, b=${i.batch}⟩`).join(" + ")
                    ) : (
                      <span className="muted">none</span>
                    )}
                    {p.change ? <div className="muted">{p.change}</div> : null}
                  </td>
                  <td className="small">
                    {ms(p.predictedLatencyMs)}
                    {p.predictedThroughputPerS ? (
                      <div className="muted">{p.predictedThroughputPerS.toFixed(0)}/s</div>
                    ) : null}
                  </td>
                  <td className="small estimator-notes">
                    {p.blockedReason && (
                      <div className="bad-text" data-testid="proposal-blocked">
                        Cannot be approved: {p.blockedReason}.{" "}
                        <a
                          href={`/deployments/${deploymentId}#profiles`}
                          onClick={(e) => {
                            e.preventDefault();
                            goToProfiles();
                          }}
                        >
                          Profile this deployment →
                        </a>
                      </div>
                    )}
                    {p.policyNote && (
                      <div className="warn-text" data-testid="proposal-policy-note">
                        {p.policyNote}
                      </div>
                    )}
                    {p.failureReason && <div className="bad-text">{p.failureReason}</div>}
                    {p.decisionComment && <div className="muted">“{p.decisionComment}”</div>}
                  </td>
                  <td className="actions">
                    <button className="btn small" type="button" onClick={() => setShown(shown === p.id ? null : p.id)}>
                      {evidenceOf?.id === p.id ? "Evidence ↓" : "Evidence"}
                    </button>
                    {canDecide && p.state === "pending" && (
                      <>
                        <button
                          className="btn small primary"
                          type="button"
                          disabled={!!p.blockedReason || approve.isPending}
                          title={p.blockedReason ?? undefined}
                          onClick={() => approve.mutate({ proposalId: p.id })}
                        >
                          Approve
                        </button>
                        <button
                          className="btn small danger"
                          type="button"
                          disabled={reject.isPending}
                          onClick={() => {
                            const comment = prompt(
                              "Why reject it? (the estimator will not propose this B again for this generation)",
                            );
                            if (comment) reject.mutate({ proposalId: p.id, comment });
                          }}
                        >
                          Reject
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {evidenceOf && evidenceOf.timeline.length > 0 && (
        <div className="panel estimator-chart" data-testid="proposal-evidence-timeline">
          <div className="estimator-chart-title">Evidence: the decisions up to “{evidenceOf.reason}”</div>
          <EstimatorTimelineChart points={timelinePoints(evidenceOf.timeline)} height={240} />
        </div>
      )}
    </div>
  );
}
