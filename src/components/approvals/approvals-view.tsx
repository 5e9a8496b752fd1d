"use client";
// The Approvals page body (issue #16): pending proposals with a diff against what runs and the expected switch
// cost, approve / reject (a comment required to reject) for SREs, and the history of decided proposals with their
// outcome and measured vs predicted batch latency. Everyone signed in reads it.
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatTime } from "@/components/format-time";
import { checkLabels, serializeOptimizerState } from "@/components/optimizer/optimizer-data";
import { formatSig } from "@/lib/planning/format";
import type { Role } from "@/core/security/roles";
import { useTRPC } from "@/trpc/react";
import { PlanTrialPanel } from "@/components/trials/plan-trial-panel";
import { trialStatus } from "@/components/trials/plan-trial-data";
import { candidatesText, sweepApprovedText, sweepConfirmText, sweepOf } from "@/components/batching-sweeps/sweep-data";
import {
  canApprove,
  diffRows,
  expiresIn,
  gapText,
  outcomeText,
  phaseText,
  planShape,
  stateBadge,
  switchCost,
  type ApplyReport,
} from "./approvals-data";

interface Evidence {
  baselines?: {
    allThreads?: { available: boolean; speedup?: number };
    oneThread?: { available: boolean; speedup?: number };
  };
  why?: string | null;
  perturbed?: boolean;
  validation?: { pass: boolean; note?: string; checks: Array<{ id: string; status: string; message: string }> } | null;
  /** An estimator proposal offered without a trial says why (the policy's hourly rate was spent). */
  trialNote?: string | null;
}

type Viewer = { email: string; role: Role };

function EvidenceBlock({ evidence }: { evidence: Evidence }) {
  const speed = (b: { available: boolean; speedup?: number } | undefined) =>
    b?.available && b.speedup !== undefined ? `${formatSig(b.speedup, 3)}×` : "not predictable";
  return (
    <div className="evidence" data-testid="proposal-evidence">
      <div>
        <strong>Evidence:</strong> predicted speedup vs all threads ⟨1, T, B⟩ {speed(evidence.baselines?.allThreads)},
        vs one thread per instance {speed(evidence.baselines?.oneThread)}.{evidence.why ? ` Why: ${evidence.why}.` : ""}
      </div>
      {evidence.perturbed && (
        <div className="bad">⚠ From a perturbed profile (measured while the deployment served traffic).</div>
      )}
      {evidence.validation ? (
        <div data-testid="proposal-validation">
          Batching validator (as run on the Optimizer page when proposed):{" "}
          <span className={`badge ${evidence.validation.pass ? "ok" : "bad"}`}>
            {evidence.validation.pass ? "passes" : "fails"}
          </span>
          <ul>
            {evidence.validation.checks.map((c) => (
              <li key={c.id}>
                <span className={c.status === "fail" ? "bad" : undefined}>
                  {checkLabels[c.id] ?? c.id}: {c.status}
                </span>{" "}
                — {c.message}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <div>Batching validator: not recorded with this proposal.</div>
      )}
    </div>
  );
}

export function ApprovalsView({ viewer }: { viewer: Viewer }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.proposals.list.queryOptions({}, { refetchInterval: 5000 }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.proposals.list.queryKey() });
  const [comments, setComments] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const fail = (id: string) => (e: { message: string }) => {
    setErrors((x) => ({ ...x, [id]: e.message }));
    void refresh();
  };
  const approve = useMutation(trpc.proposals.approve.mutationOptions({ onSuccess: () => void refresh() }));
  // A sweep's approval says what it started and which pending proposals expired; a sweep needs its confirmation ticked.
  const [notice, setNotice] = useState<string | null>(null);
  const [confirmed, setConfirmed] = useState<Record<string, boolean>>({});
  const reject = useMutation(trpc.proposals.reject.mutationOptions({ onSuccess: () => void refresh() }));
  const cancelTrial = useMutation(trpc.proposals.cancelTrial.mutationOptions({ onSuccess: () => void refresh() }));
  const isSre = viewer.role === "sre" || viewer.role === "admin";
  const canOpenDeployment = viewer.role !== "manager";

  if (list.isPending) return <p className="muted">Loading…</p>;
  if (list.error)
    return (
      <div className="error-box" role="alert">
        {list.error.message}
      </div>
    );
  const pending = list.data.filter((p) => p.state === "pending");
  const trialing = list.data.filter((p) => p.state === "trialing");
  const decided = list.data.filter((p) => p.state !== "pending" && p.state !== "trialing");
  // The countdown runs from the list's fetch time (refetched every 5 s), which keeps rendering pure.
  const now = list.dataUpdatedAt;

  return (
    <>
      {notice && (
        <div className="ok-box section" role="status" data-testid="approve-notice">
          {notice}
        </div>
      )}
      {trialing.length > 0 && (
        <section className="section" data-testid="trialing-proposals">
          <h2>Being checked by a plan trial ({trialing.length})</h2>
          {trialing.map((p) => (
            <article className="proposal-card" key={p.id} data-testid="trialing-proposal" data-proposal-id={p.id}>
              <header>
                <h3>
                  {p.deployment
                    ? `${p.deployment.model} v${p.deployment.version} on ${p.deployment.host}`
                    : "a removed deployment"}
                </h3>
                <span className="badge warn">trialing</span>
                <span className="proposal-meta">
                  <span>proposed by {p.proposedBy ?? "the estimator"}</span>
                  <span>{formatTime(p.createdAt)}</span>
                  <span>B = {p.proposed.batchSize}</span>
                </span>
              </header>
              <p className="proposal-reason">
                <strong>Reason:</strong> {p.reason}
              </p>
              {p.trial && (
                <PlanTrialPanel
                  trial={p.trial}
                  cancelling={cancelTrial.isPending}
                  onCancel={
                    viewer.role !== "manager"
                      ? () => cancelTrial.mutate({ proposalId: p.id }, { onError: fail(p.id) })
                      : undefined
                  }
                />
              )}
              {errors[p.id] && (
                <div className="error-box" role="alert" style={{ marginTop: 10 }}>
                  {errors[p.id]}
                </div>
              )}
            </article>
          ))}
        </section>
      )}
      <section className="section" data-testid="pending-proposals">
        <h2>Pending ({pending.length})</h2>
        {pending.length === 0 && (
          <div className="panel muted" data-testid="no-pending">
            Nothing waits for approval. Proposals come from the <Link href="/optimizer">Optimizer</Link> page.
          </div>
        )}
        {pending.map((p) => {
          const running = planShape(p.running?.plan);
          const proposed = planShape(p.proposed.plan);
          const cost = switchCost(running, proposed);
          const rows = diffRows(running, proposed, p);
          const comment = comments[p.id] ?? "";
          const allowed = canApprove(viewer, p.proposedBy);
          const where = p.deployment
            ? `${p.deployment.model} v${p.deployment.version} on ${p.deployment.host}`
            : "a removed deployment";
          const sweep = sweepOf(p.evidence);
          const otherPending = pending.filter((o) => o.id !== p.id && o.deployment?.id === p.deployment?.id).length;
          const optimizerHref =
            p.deployment && p.profileId
              ? `/optimizer?${serializeOptimizerState({ deployment: p.deployment.id, profile: p.profileId, batch: String(p.proposed.batchSize), timeout: String(p.proposed.batchTimeoutMs) })}`
              : null;
          return (
            <article className="proposal-card" key={p.id} data-testid="proposal" data-proposal-id={p.id}>
              <header>
                <h3>
                  {p.deployment && canOpenDeployment ? (
                    <Link href={`/deployments/${p.deployment.id}`}>{where}</Link>
                  ) : (
                    where
                  )}
                </h3>
                <span className="badge warn">{sweep ? "pending sweep" : "pending"}</span>
                <span className="proposal-meta">
                  <span>proposed by {p.proposedBy ?? "the estimator"}</span>
                  <span>{formatTime(p.createdAt)}</span>
                  <span>against generation {p.baseGeneration}</span>
                  <span>expires {expiresIn(p.expiresAt, now)}</span>
                  {optimizerHref && <Link href={optimizerHref}>open in the Optimizer</Link>}
                </span>
              </header>
              <p className="proposal-reason">
                <strong>Reason:</strong> {p.reason}
              </p>
              {sweep ? (
                <div className="sweep-proposal" data-testid="sweep-proposal">
                  <p>
                    <strong>Batching sweep:</strong> {sweep.candidates.length} candidate
                    {sweep.candidates.length === 1 ? "" : "s"} (window / max batch) {candidatesText(sweep.candidates)};{" "}
                    {sweep.durationS} s of load per point at {formatSig(sweep.ratePerS, 4)} req/s. Afterwards the
                    running configuration (generation {p.baseGeneration}: B = {p.proposed.batchSize}, timeout{" "}
                    {formatSig(p.proposed.batchTimeoutMs, 4)} ms) is restored as a new generation; a failed step
                    restores it too.
                  </p>
                  <p className="warn-box" data-testid="sweep-confirm">
                    {sweepConfirmText(sweep, otherPending)}
                  </p>
                </div>
              ) : (
                <>
                  <div className="table-wrap">
                    <table className="data diff-table" data-testid="proposal-diff">
                      <thead>
                        <tr>
                          <th></th>
                          <th>Running (generation {p.deployment?.generation ?? "?"})</th>
                          <th>Proposed</th>
                        </tr>
                      </thead>
                      <tbody>
                        {rows.map((r) => (
                          <tr key={r.label} data-row={r.label}>
                            <th scope="row">{r.label}</th>
                            <td>{r.running}</td>
                            <td className={r.changed ? "changed" : undefined}>{r.proposed}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  <p className="switch-cost" data-testid="switch-cost" data-kind={cost.kind}>
                    <strong>Expected switch cost:</strong> {cost.text}
                  </p>
                  <EvidenceBlock evidence={(p.evidence ?? {}) as Evidence} />
                  {p.trial ? (
                    <PlanTrialPanel trial={p.trial} />
                  ) : (
                    <p className="muted small" data-testid="no-trial">
                      Not checked by a plan trial ({(p.evidence as Evidence | null)?.trialNote ?? "none was asked for"}
                      ): predictions only.
                    </p>
                  )}
                </>
              )}
              {isSre && (
                <form className="decision" data-testid="decision" onSubmit={(e) => e.preventDefault()}>
                  <label className="form-field">
                    <span>Comment (required to reject)</span>
                    <textarea
                      rows={1}
                      maxLength={1000}
                      value={comment}
                      data-testid="decision-comment"
                      onChange={(e) => setComments((x) => ({ ...x, [p.id]: e.target.value }))}
                    />
                  </label>
                  {sweep && (
                    <label className="checkbox-field small">
                      <input
                        type="checkbox"
                        data-testid="sweep-confirm-check"
                        checked={!!confirmed[p.id]}
                        onChange={(e) => setConfirmed((x) => ({ ...x, [p.id]: e.target.checked }))}
                      />{" "}
                      I understand: temporary generations, load on the deployment, {otherPending} pending proposal
                      {otherPending === 1 ? "" : "s"} expiring
                    </label>
                  )}
                  <button
                    type="button"
                    className="btn primary"
                    data-testid="approve"
                    disabled={!allowed || approve.isPending || (!!sweep && !confirmed[p.id])}
                    title={allowed ? undefined : "You proposed this: another SRE (or an admin) approves it"}
                    onClick={() => {
                      setErrors((x) => ({ ...x, [p.id]: "" }));
                      approve.mutate(
                        { proposalId: p.id, comment: comment.trim() || undefined },
                        {
                          onError: fail(p.id),
                          onSuccess: (r) => setNotice("sweepId" in r ? sweepApprovedText(r) : null),
                        },
                      );
                    }}
                  >
                    Approve
                  </button>
                  <button
                    type="button"
                    className="btn danger"
                    data-testid="reject"
                    disabled={!comment.trim() || reject.isPending}
                    title={comment.trim() ? undefined : "Say why in the comment to reject"}
                    onClick={() => {
                      setErrors((x) => ({ ...x, [p.id]: "" }));
                      reject.mutate({ proposalId: p.id, comment: comment.trim() }, { onError: fail(p.id) });
                    }}
                  >
                    Reject
                  </button>
                  {!allowed && <span className="muted small">You proposed this one: another SRE approves it.</span>}
                  {allowed && !!sweep && !confirmed[p.id] && (
                    <span className="muted small" data-testid="approve-blocked">
                      Tick &ldquo;I understand&rdquo; to approve the sweep.
                    </span>
                  )}
                  {!comment.trim() && (
                    <span className="muted small" data-testid="reject-blocked">
                      Rejecting needs a comment saying why.
                    </span>
                  )}
                </form>
              )}
              {errors[p.id] && (
                <div className="error-box" role="alert" style={{ marginTop: 10 }}>
                  {errors[p.id]}
                </div>
              )}
            </article>
          );
        })}
      </section>

      <section className="section">
        <h2>History</h2>
        {decided.length === 0 ? (
          <div className="panel muted" data-testid="no-history">
            No decided proposal yet.
          </div>
        ) : (
          <div className="table-wrap">
            <table className="data compact-table" data-testid="proposal-history">
              <thead>
                <tr>
                  <th>Proposed</th>
                  <th>Deployment</th>
                  <th>Configuration</th>
                  <th>Reason</th>
                  <th>State</th>
                  <th>Outcome</th>
                  <th>Batch latency</th>
                </tr>
              </thead>
              <tbody>
                {decided.map((p) => {
                  const proposed = planShape(p.proposed.plan);
                  const swept = sweepOf(p.evidence);
                  const phases = phaseText(p.applyReport as ApplyReport | null);
                  const gap = gapText(
                    p.measuredBatchLatencyMs,
                    p.predictedLatencyMs,
                    p.contentionGap,
                    p.contentionFlag,
                  );
                  return (
                    <tr key={p.id} data-proposal-id={p.id} data-state={p.state}>
                      <td className="small">
                        <div>{p.proposedBy ?? "estimator"}</div>
                        <div className="muted nowrap">{formatTime(p.createdAt)}</div>
                      </td>
                      <td className="small">
                        {p.deployment
                          ? `${p.deployment.model} v${p.deployment.version} on ${p.deployment.host}`
                          : "removed"}
                      </td>
                      <td className="small">
                        {swept
                          ? `batching sweep: ${candidatesText(swept.candidates)}`
                          : proposed
                            ? `${proposed.groups.map((g) => `${g.count}×⟨${g.threads}, ${g.batch}⟩`).join(" + ")}; B = ${proposed.batchSize}`
                            : "—"}
                      </td>
                      <td className="small">{p.reason}</td>
                      <td>
                        <span className={`badge ${stateBadge(p.state)}`} data-testid="proposal-state">
                          {p.state}
                        </span>
                      </td>
                      <td className="small" data-testid="proposal-outcome">
                        <div>{outcomeText({ ...p, applyReport: p.applyReport as ApplyReport | null })}</div>
                        {p.state !== "rejected" && p.state !== "withdrawn" && p.decisionComment && (
                          <div className="muted">“{p.decisionComment}”</div>
                        )}
                        {phases && (
                          <div className="phase-list" data-testid="phase-timings">
                            phases: {phases}
                          </div>
                        )}
                        {p.trial && (
                          <div className="muted" data-testid="history-trial">
                            plan trial: {trialStatus(p.trial)}
                          </div>
                        )}
                      </td>
                      <td className={`small${gap.flag ? " gap-flag" : ""}`} data-testid="latency-gap">
                        {gap.flag ? "⚠ " : ""}
                        {gap.text}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
