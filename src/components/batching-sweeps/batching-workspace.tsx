"use client";
// The batching page's body (issue #20): the planner fed with what the control plane knows — complete profiles as
// the T(B) source, the chosen deployment for "Propose this", its sweeps' measured points drawn over the model — and
// the sweep panel where ML engineers and SREs propose a measured sweep (an SRE approves it on the Approvals page).
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useState, type FormEvent } from "react";
import { formatTime } from "@/components/format-time";
import { serializeOptimizerState } from "@/components/optimizer/optimizer-data";
import { BatchingPlanner } from "@/components/planning/batching-planner";
import type { MeasuredBatchingPoint } from "@/components/planning/batching-chart";
import type { BatchingState } from "@/components/planning/batching-form";
import { formatMs, formatRate } from "@/lib/planning/format";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/trpc/react";
import { candidatesText, parseCandidates } from "./sweep-data";

const STATE_BADGE: Record<string, string> = {
  pending: "warn",
  running: "warn",
  restoring: "warn",
  done: "ok",
  failed: "bad",
  cancelled: "muted",
};

export function BatchingWorkspace({
  initial,
  initialDeployment,
  canPropose,
  canStop,
}: {
  initial: BatchingState;
  initialDeployment: string | null;
  canPropose: boolean;
  canStop: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [deploymentId, setDeploymentId] = useState<string | null>(initialDeployment);
  const context = useQuery(
    trpc.batching.context.queryOptions(
      { deploymentId: deploymentId ?? undefined },
      {
        placeholderData: keepPreviousData,
        refetchInterval: (q) =>
          q.state.data?.sweeps.some((s) => s.state === "running" || s.state === "restoring") ? 2000 : 15_000,
      },
    ),
  );
  const deployments = context.data?.deployments ?? [];
  const chosen = context.data?.chosen && context.data.chosen.id === deploymentId ? context.data.chosen : null;
  const sweeps = chosen ? (context.data?.sweeps ?? []) : [];
  // The newest sweep that measured anything is drawn over the model.
  const drawn = sweeps.find((s) => s.points.some((p) => p.status === "done")) ?? null;
  const measured: MeasuredBatchingPoint[] = (drawn?.points ?? [])
    .filter((p) => p.status === "done" && p.okPerS !== null && p.p99Ms !== null)
    .map((p) => ({
      windowMs: p.windowMs,
      maxBatch: p.maxBatch,
      throughputPerS: p.okPerS!,
      p99Ms: p.p99Ms!,
      offeredPerS: p.offeredPerS ?? undefined,
    }));

  const [candidate, setCandidate] = useState({
    windowMs: initial.cWindow,
    maxBatch: initial.cBatch,
    rate: initial.rate,
  });
  const onCandidate = useCallback((c: { windowMs: string; maxBatch: string; rate: string }) => setCandidate(c), []);
  const proposeHref = useCallback(
    (c: { windowMs: string; maxBatch: string }) =>
      deploymentId
        ? `/optimizer?${serializeOptimizerState({ deployment: deploymentId, profile: null, batch: c.maxBatch, timeout: c.windowMs, from: "batching" })}`
        : null,
    [deploymentId],
  );

  return (
    <>
      <section className="panel section batching-deployment" data-testid="batching-deployment">
        <label className="form-field">
          <span>Deployment (for “Propose this” and measured points)</span>
          <select
            data-testid="batching-deployment-select"
            value={deploymentId ?? ""}
            onChange={(e) => setDeploymentId(e.target.value || null)}
          >
            <option value="">none: plan without a deployment</option>
            {deployments.map((d) => (
              <option
                key={d.id}
                value={d.id}
              >{`${d.model} v${d.version} on ${d.host} (generation ${d.generation}${d.running ? `, B = ${d.running.batchSize}, window ${d.running.batchTimeoutMs} ms` : ""})`}</option>
            ))}
          </select>
        </label>
        {chosen && (
          <p className="small muted" data-testid="batching-deployment-facts">
            {chosen.state}; arrival rate{" "}
            {chosen.arrivalRatePerS === null ? "not reported yet" : formatRate(chosen.arrivalRatePerS, "req/s", 3)}; SLO{" "}
            {chosen.sloDeadlineMs === null ? "not set" : formatMs(chosen.sloDeadlineMs)}.
            {measured.length > 0
              ? ` ${measured.length} measured point${measured.length === 1 ? "" : "s"} from the sweep of ${formatTime(drawn!.createdAt)} are drawn over the frontier.`
              : " No measured points yet: propose a sweep below."}
          </p>
        )}
      </section>

      <BatchingPlanner
        initial={initial}
        profiles={context.data?.profiles ?? []}
        measuredPoints={measured}
        measuredLabel={drawn ? `measured (load test, ${formatRate(drawn.ratePerS)} offered)` : undefined}
        proposeHref={canPropose ? proposeHref : undefined}
        proposeNote={
          canPropose
            ? chosen
              ? `on the Optimizer, for ${chosen.model} on ${chosen.host}`
              : "choose a deployment above to propose this"
            : undefined
        }
        extraQuery={deploymentId ? `deployment=${encodeURIComponent(deploymentId)}` : ""}
        onCandidate={onCandidate}
      />

      <SweepPanel
        deployment={chosen}
        sweeps={sweeps}
        canPropose={canPropose}
        canStop={canStop}
        candidate={candidate}
        onChanged={() => void queryClient.invalidateQueries({ queryKey: trpc.batching.context.queryKey() })}
      />
    </>
  );
}

type Sweep = inferRouterOutputs<AppRouter>["batching"]["context"]["sweeps"][number];

function SweepPanel({
  deployment,
  sweeps,
  canPropose,
  canStop,
  candidate,
  onChanged,
}: {
  deployment: { id: string; model: string; host: string; state: string } | null;
  sweeps: Sweep[];
  canPropose: boolean;
  canStop: boolean;
  candidate: { windowMs: string; maxBatch: string; rate: string };
  onChanged: () => void;
}) {
  const trpc = useTRPC();
  const [candidates, setCandidates] = useState("");
  const [durationS, setDurationS] = useState("5");
  const [rate, setRate] = useState("20");
  const [reason, setReason] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const propose = useMutation(
    trpc.batching.proposeSweep.mutationOptions({
      onSuccess: (r) => {
        setCreated(r.proposalId);
        setReason("");
        onChanged();
      },
    }),
  );
  const stop = useMutation(trpc.batching.cancelSweep.mutationOptions({ onSuccess: () => onChanged() }));
  // Until edited, the candidates are an unbatched baseline and the validator's candidate.
  const candidateText = candidates || `0/1, ${candidate.windowMs}/${candidate.maxBatch}`;
  const parsed = parseCandidates(candidateText);
  const duration = Number(durationS);
  const durationError =
    /^\d+$/.test(durationS.trim()) && duration >= 2 && duration <= 120
      ? null
      : "The duration per point must be a whole number of seconds, 2…120";
  const rateValue = Number(rate);
  const rateError =
    rate.trim() !== "" && Number.isFinite(rateValue) && rateValue > 0 && rateValue <= 100_000
      ? null
      : "The offered rate must be a number > 0 and at most 100,000 req/s";
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!deployment || !parsed.ok || durationError || rateError || !reason.trim()) return;
    setCreated(null);
    propose.mutate({
      deploymentId: deployment.id,
      candidates: parsed.value,
      durationS: duration,
      ratePerS: rateValue,
      reason: reason.trim(),
    });
  };

  return (
    <section className="card planner-card section" data-testid="sweep-panel">
      <h2>Measured points: a sweep on the deployment</h2>
      <p className="muted small">
        A sweep runs each (window, max batch) candidate as a temporary generation of the deployment with a short
        open-loop Poisson load test, then restores the running configuration as a new generation. It is a proposal like
        any other: an SRE approves it on the <Link href="/approvals">Approvals</Link> page, and approving it expires the
        deployment&apos;s other pending proposals. The load adds to the deployment&apos;s own traffic. If a step fails,
        the configuration is restored and the sweep says why.
      </p>
      {!deployment ? (
        <p className="muted" data-testid="sweep-no-deployment">
          Choose a deployment above to propose a sweep or see its measured points.
        </p>
      ) : (
        <>
          {canPropose && (
            <form className="sweep-form" onSubmit={submit} data-testid="sweep-form">
              <label className="form-field">
                <span>Candidates (window ms / max batch)</span>
                <input
                  data-testid="sweep-candidates"
                  value={candidateText}
                  onChange={(e) => setCandidates(e.target.value)}
                  aria-invalid={!parsed.ok}
                />
                {!parsed.ok && (
                  <em className="form-field-error" data-testid="sweep-candidates-error">
                    {parsed.error}
                  </em>
                )}
              </label>
              <label className="form-field">
                <span>Duration per point (s)</span>
                <input
                  data-testid="sweep-duration"
                  inputMode="numeric"
                  value={durationS}
                  onChange={(e) => setDurationS(e.target.value)}
                  aria-invalid={!!durationError}
                />
                {durationError && <em className="form-field-error">{durationError}</em>}
              </label>
              <label className="form-field">
                <span>Offered rate (req/s)</span>
                <input
                  data-testid="sweep-rate"
                  inputMode="decimal"
                  value={rate}
                  onChange={(e) => setRate(e.target.value)}
                  aria-invalid={!!rateError}
                />
                {rateError && <em className="form-field-error">{rateError}</em>}
                <em className="muted small">
                  The model&apos;s envelope uses λ = {candidate.rate} req/s: set λ to this rate to compare like with
                  like.
                </em>
              </label>
              <label className="form-field sweep-reason">
                <span>Reason</span>
                <input
                  data-testid="sweep-reason"
                  maxLength={500}
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  placeholder="e.g. check the frontier against the deployment"
                />
              </label>
              <button
                className="btn primary"
                type="submit"
                data-testid="sweep-submit"
                disabled={!parsed.ok || !!durationError || !!rateError || !reason.trim() || propose.isPending}
              >
                Propose sweep
              </button>
            </form>
          )}
          {propose.error && (
            <div className="error-box" role="alert" data-testid="sweep-error">
              {propose.error.message}
            </div>
          )}
          {created && (
            <div className="ok-box" data-testid="sweep-proposed">
              Sweep proposed for {deployment.model} on {deployment.host}: it waits for an SRE on the{" "}
              <Link href="/approvals">Approvals</Link> page.
            </div>
          )}
          {stop.error && (
            <div className="error-box" role="alert">
              {stop.error.message}
            </div>
          )}
          {sweeps.length === 0 ? (
            <p className="muted" data-testid="no-sweeps">
              No sweep of this deployment yet.
            </p>
          ) : (
            <div className="table-wrap">
              <table className="data compact-table" data-testid="sweeps">
                <thead>
                  <tr>
                    <th>Proposed</th>
                    <th>Candidates</th>
                    <th>State</th>
                    <th>Progress</th>
                    <th>Measured (p99 · throughput)</th>
                  </tr>
                </thead>
                <tbody>
                  {sweeps.map((s) => (
                    <tr key={s.id} data-testid="sweep-row" data-state={s.state}>
                      <td className="small">
                        <div>{s.proposedBy ?? "?"}</div>
                        <div className="muted nowrap">{formatTime(s.createdAt)}</div>
                        <div className="muted">{s.reason}</div>
                      </td>
                      <td className="small">
                        {candidatesText(s.candidates)}
                        <div className="muted">
                          {s.durationS} s each at {formatRate(s.ratePerS)}
                        </div>
                      </td>
                      <td>
                        <span className={`badge ${STATE_BADGE[s.state] ?? ""}`} data-testid="sweep-state">
                          {s.state}
                        </span>
                      </td>
                      <td className="small" data-testid="sweep-progress">
                        {s.state === "pending" && <>waiting for approval (proposal {s.proposalState})</>}
                        {s.state === "running" && (
                          <>
                            point {s.pointIndex + 1} of {s.candidates.length}:{" "}
                            {s.phase === "loading" ? (
                              <>
                                load test{" "}
                                {s.loadTestId && canPropose ? (
                                  <Link href={`/load-tests/${s.loadTestId}`}>running</Link>
                                ) : (
                                  "running"
                                )}
                              </>
                            ) : (
                              "applying"
                            )}{" "}
                            on generation {s.pointGeneration}
                          </>
                        )}
                        {s.state === "restoring" && (
                          <>
                            restoring generation {s.baseGeneration} as generation {s.restoreGeneration}
                          </>
                        )}
                        {s.state === "done" && (
                          <>
                            measured {s.points.length} points; generation {s.baseGeneration}&apos;s configuration
                            restored as generation {s.restoreGeneration}
                          </>
                        )}
                        {(s.state === "failed" || s.state === "cancelled") && (
                          <span className="bad">{s.failureReason}</span>
                        )}
                        {s.expiredProposals > 0 && (
                          <div className="muted">
                            {s.expiredProposals} pending proposal{s.expiredProposals === 1 ? "" : "s"} expired
                          </div>
                        )}
                        {canStop && s.state === "running" && (
                          <div>
                            <button
                              type="button"
                              className="btn danger small"
                              data-testid="sweep-stop"
                              disabled={stop.isPending}
                              onClick={() => stop.mutate({ sweepId: s.id })}
                            >
                              Stop and restore
                            </button>
                          </div>
                        )}
                      </td>
                      <td className="small" data-testid="sweep-points">
                        {s.points.length === 0
                          ? "—"
                          : s.points.map((p) => (
                              <div key={`${p.windowMs}/${p.maxBatch}`}>
                                {p.windowMs} ms / {p.maxBatch}:{" "}
                                {p.status === "done" ? (
                                  <>
                                    {formatMs(p.p99Ms)} · {formatRate(p.okPerS)}
                                  </>
                                ) : (
                                  <span className="bad">{p.error}</span>
                                )}
                                {p.loadTestId && canPropose && (
                                  <>
                                    {" "}
                                    (<Link href={`/load-tests/${p.loadTestId}`}>report</Link>)
                                  </>
                                )}
                              </div>
                            ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
