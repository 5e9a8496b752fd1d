"use client";
// The Optimizer page body (issue #16): a deployment, a compatible profile of its model and B give Packrat's plan,
// both baselines, the allocation, latency vs B, why the plan wins, and the batching validator; ML engineers and
// SREs propose it for an SRE's approval. Managers read. The choices live in the URL so a view can be shared.
import Link from "next/link";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { CoreMap } from "@/components/agents/core-map";
import { ChartFrame } from "@/components/charts/chart-frame";
import { XYChart } from "@/components/charts/xy-chart";
import { SummaryTile } from "@/components/planning/planner-controls";
import { formatFixed, formatMs, formatRate, formatSig } from "@/lib/planning/format";
import { useTRPC } from "@/trpc/react";
import { PlanTrialPanel } from "@/components/trials/plan-trial-panel";
import { PlanExportPanel } from "./plan-export-panel";
import {
  batchTicks,
  chartCsv,
  chartRows,
  checkLabels,
  defaultProfile,
  describeGroups,
  parseBatch,
  parseTimeout,
  perturbedWarning,
  plannedCoreMap,
  profileOptions,
  serializeOptimizerState,
  tupleText,
  validateCandidate,
  type OptimizerUrlState,
} from "./optimizer-data";

const COLORS = { packrat: "#2f6fed", allThreads: "#c77700", oneThread: "#1f9d55", marker: "#1c2330" };
const times = (x: number) => `${formatSig(x, 3)}×`;

export function OptimizerView({ initial, canPropose }: { initial: OptimizerUrlState; canPropose: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<OptimizerUrlState>(initial);
  const set = (patch: Partial<OptimizerUrlState>) => setState((s) => ({ ...s, ...patch }));

  const context = useQuery(
    trpc.proposals.optimizerContext.queryOptions(
      { deploymentId: state.deployment ?? undefined },
      { placeholderData: keepPreviousData },
    ),
  );
  const deployments = context.data?.deployments ?? [];
  // Without a deployment in the URL the server picks the first; while another loads, the previous one is not shown.
  const loaded = context.data?.chosen;
  const chosen = loaded && (state.deployment === null || loaded.id === state.deployment) ? loaded : null;
  const deploymentId = chosen?.id ?? state.deployment;

  const profileId = chosen ? defaultProfile(chosen.profiles, state.profile) : null;
  const profile = chosen?.profiles.find((p) => p.id === profileId) ?? null;
  const runningB = chosen?.running?.batchSize ?? null;
  const runningTimeout = chosen?.running?.batchTimeoutMs ?? 0;
  const batch = parseBatch(state.batch, runningB);
  const timeout = parseTimeout(state.timeout, runningTimeout);

  // The address bar always reproduces the view (replaceState: no history entry per keystroke).
  useEffect(() => {
    const query = serializeOptimizerState({ ...state, deployment: deploymentId, profile: profileId ?? state.profile });
    if (window.location.search.replace(/^\?/, "") !== query)
      window.history.replaceState(null, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
  }, [state, deploymentId, profileId]);

  const canOptimize = !!chosen && !!profile && profile.compatible && batch.ok && timeout.ok;
  const optimize = useQuery(
    trpc.proposals.optimize.queryOptions(
      {
        deploymentId: chosen?.id ?? "",
        profileId: profile?.id ?? "",
        batchSize: batch.ok ? batch.value : 1,
        batchTimeoutMs: timeout.ok ? timeout.value : undefined,
      },
      { enabled: canOptimize, placeholderData: keepPreviousData, retry: false },
    ),
  );
  const result = canOptimize ? optimize.data : undefined;
  const plan = result?.kind === "plan" ? result : null;

  const validator = useMemo(
    () =>
      plan && chosen
        ? validateCandidate({
            rows: plan.table,
            batchSize: plan.batchSize,
            timeoutMs: plan.batchTimeoutMs,
            slo: { deadlineMs: chosen.model.sloDeadlineMs, quantile: chosen.model.sloQuantile },
            arrivalRatePerS: chosen.arrivalRatePerS,
          })
        : null,
    [plan, chosen],
  );

  // From the batching page's "Propose this": the reason starts as what was validated there (editable).
  const [reason, setReason] = useState(
    initial.from === "batching"
      ? `Batching page validator: window ${initial.timeout} ms, max batch ${initial.batch}`
      : "",
  );
  const [created, setCreated] = useState<string | null>(null);
  const [withTrial, setWithTrial] = useState(true);
  // The proposal just made, polled while its plan trial runs: predicted beside measured, here and on Approvals.
  const createdList = useQuery(
    trpc.proposals.list.queryOptions(
      { deploymentId: chosen?.id ?? undefined },
      {
        enabled: !!created && !!chosen,
        refetchInterval: (q) => (q.state.data?.find((p) => p.id === created)?.state === "trialing" ? 2000 : false),
      },
    ),
  );
  const createdProposal = created ? (createdList.data?.find((p) => p.id === created) ?? null) : null;
  const cancelTrial = useMutation(
    trpc.proposals.cancelTrial.mutationOptions({ onSuccess: () => void createdList.refetch() }),
  );
  const propose = useMutation(
    trpc.proposals.create.mutationOptions({
      onSuccess: (r) => {
        setCreated(r.id);
        setReason("");
        void queryClient.invalidateQueries({ queryKey: trpc.proposals.list.queryKey() });
      },
    }),
  );
  // Why Propose is disabled, said beside it (null: it is enabled).
  const proposeBlocked = propose.isPending
    ? "Proposing…"
    : optimize.isPlaceholderData
      ? "Waiting for the optimizer's plan for these settings."
      : !reason.trim()
        ? "Write a reason first: the SRE who approves it reads it."
        : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!plan || !chosen || !profile || !reason.trim()) return;
    setCreated(null);
    propose.mutate({
      deploymentId: chosen.id,
      profileId: profile.id,
      batchSize: plan.batchSize,
      batchTimeoutMs: plan.batchTimeoutMs,
      reason: reason.trim(),
      trial: withTrial,
      validation: validator?.ok
        ? {
            pass: validator.value.validation.pass,
            note: validator.value.note,
            checks: validator.value.validation.checks.map((c) => ({ id: c.id, status: c.status, message: c.message })),
          }
        : undefined,
    });
  };

  if (context.isPending) return <p className="muted">Loading…</p>;
  if (context.error)
    return (
      <div className="error-box" role="alert">
        {context.error.message}
      </div>
    );
  if (deployments.length === 0) {
    return (
      <div className="panel" data-testid="optimizer-empty">
        No deployment yet: an SRE deploys a model on the <Link href="/agents">Agents</Link> page, and an ML engineer
        profiles it; then the optimizer has something to plan.
      </div>
    );
  }

  const options = chosen ? profileOptions(chosen.profiles) : [];
  const option = options.find((o) => o.id === profileId);
  const maxB = plan ? plan.table.length : 0;
  return (
    <>
      <section className="panel optimizer-controls" data-testid="optimizer-controls">
        <label className="form-field">
          <span>Deployment</span>
          <select
            data-testid="opt-deployment"
            value={deploymentId ?? ""}
            onChange={(e) => set({ deployment: e.target.value, profile: null, batch: "", timeout: "" })}
          >
            {deployments.map((d) => (
              <option key={d.id} value={d.id}>
                {d.model} v{d.version} on {d.host} · T = {d.cores} cores
              </option>
            ))}
          </select>
        </label>
        <label className="form-field">
          <span>Profile of the model</span>
          <select
            data-testid="opt-profile"
            value={profileId ?? ""}
            disabled={!chosen || options.length === 0}
            onChange={(e) => set({ profile: e.target.value })}
          >
            {options.length === 0 && <option value="">no profile of this model yet</option>}
            {options.map((o) => (
              <option key={o.id} value={o.id} disabled={o.disabled} title={o.note ?? undefined}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
        <label className="form-field">
          <span>Batch B (samples)</span>
          <input
            data-testid="opt-batch"
            inputMode="numeric"
            value={state.batch}
            placeholder={runningB === null ? "" : `${runningB} (running)`}
            onChange={(e) => set({ batch: e.target.value })}
            aria-invalid={!batch.ok}
          />
          {!batch.ok && <em className="form-field-error">{batch.error}</em>}
        </label>
        <label className="form-field">
          <span>Timeout (ms)</span>
          <input
            data-testid="opt-timeout"
            inputMode="decimal"
            value={state.timeout}
            placeholder={`${formatFixed(runningTimeout, 3)} (running)`}
            onChange={(e) => set({ timeout: e.target.value })}
            aria-invalid={!timeout.ok}
          />
          {!timeout.ok && <em className="form-field-error">{timeout.error}</em>}
        </label>
      </section>

      {initial.from === "batching" && (
        <div className="panel section" data-testid="prefilled-from-batching">
          Pre-filled from the <Link href="/planning/batching">batching page</Link>&apos;s validator: window T_w ={" "}
          {initial.timeout || "?"} ms as the batch timeout, max batch B_max = {initial.batch || "?"} as B. Check the
          plan and the validator below against this deployment&apos;s profile, then propose it.
        </div>
      )}
      {chosen && (
        <p className="optimizer-running small" data-testid="running-plan">
          <strong>Running (generation {chosen.generation}):</strong>{" "}
          {chosen.running
            ? `${describeGroups(chosen.running.plan.instances)}; B = ${chosen.running.batchSize}, timeout ${formatFixed(chosen.running.batchTimeoutMs, 3)} ms`
            : "no configuration yet"}
          {" · "}core budget T = {chosen.cores} cores · arrival rate{" "}
          {chosen.arrivalRatePerS === null ? "not reported yet" : formatRate(chosen.arrivalRatePerS, "requests/s", 3)}
          {" · "}SLO{" "}
          {chosen.model.sloDeadlineMs === null ? (
            <Link href={`/models/${chosen.model.id}`}>not set</Link>
          ) : (
            `${formatSig(chosen.model.sloDeadlineMs, 4)} ms at p${formatSig((chosen.model.sloQuantile ?? 0.99) * 100, 3)}`
          )}
        </p>
      )}
      {state.deployment && !loaded && !context.isPlaceholderData && (
        <div className="error-box section" role="alert" data-testid="deployment-missing">
          There is no deployment {state.deployment} (it may have been removed): choose one above.
        </div>
      )}
      {chosen && chosen.profiles.length === 0 && (
        <div className="panel" data-testid="no-profiles">
          No profile of {chosen.model.name} yet: profile the deployment first (a threads × batch sweep on its agent).
        </div>
      )}
      {profile && !profile.compatible && (
        <div className="error-box section" role="alert" data-testid="profile-incompatible">
          This profile does not fit the deployment, so the optimizer refuses it: {option?.note}
        </div>
      )}
      {profile?.compatible && perturbedWarning(profile) && (
        <div className="warn-box section" data-testid="perturbed-warning">
          ⚠ This profile was {perturbedWarning(profile)}.
        </div>
      )}
      {canOptimize && optimize.error && (
        <div className="error-box section" role="alert">
          {optimize.error.message}
        </div>
      )}
      {plan && plan.flaggedInPlan.length > 0 && (
        <div className="warn-box section" data-testid="flagged-cells-warning">
          ⚠ This plan rests on {plan.flaggedInPlan.length === 1 ? "a cell" : `${plan.flaggedInPlan.length} cells`}{" "}
          measured while other processes took a large share of the profiled CPUs (
          {plan.flaggedInPlan
            .map(
              (c) =>
                `⟨t = ${c.threads}, b = ${c.batch}⟩${c.interferencePct === null ? "" : ` ${formatFixed(c.interferencePct, 0)}%`}`,
            )
            .join(", ")}
          ): its predicted latency may be off. Profile quality: {plan.quality.summary}.
        </div>
      )}
      {result?.kind === "infeasible" && (
        <div className="panel section" data-testid="infeasible">
          No plan for B = {batch.ok ? batch.value : "?"} on T = {result.cores} cores: {result.reason}
        </div>
      )}

      {plan && (
        <div
          className={`optimizer-results${optimize.isPlaceholderData ? " stale" : ""}`}
          data-testid="optimizer-results"
        >
          <div className="summary-strip">
            <SummaryTile
              label="Plan ⟨i, t, b⟩"
              value={tupleText(plan.instances)}
              sub={`${plan.instances.reduce((s, g) => s + g.count, 0)} instances · B = ${plan.batchSize}`}
              testId="opt-plan"
            />
            <SummaryTile
              label="Predicted batch latency"
              value={formatMs(plan.latencyMs, 4)}
              sub={`timeout ${formatFixed(plan.batchTimeoutMs, 3)} ms`}
              testId="opt-latency"
            />
            <SummaryTile
              label="Corrected for this host"
              value={formatMs(plan.correction.latencyMs, 4)}
              sub={
                plan.correction.model.observations
                  ? `contention + overhead from ${plan.correction.model.observations} trial measurements`
                  : "no plan trial on this host yet"
              }
              testId="opt-corrected"
            />
            <SummaryTile
              label="Predicted throughput"
              value={formatRate(plan.throughputPerS, "samples/s", 4)}
              sub="B ÷ batch latency"
              testId="opt-throughput"
            />
            <SummaryTile
              label="Cores used"
              value={`${plan.cores - plan.idleCores} of ${plan.cores}`}
              sub={plan.idleCores ? `${plan.idleCores} idle` : "none idle"}
            />
            <SummaryTile
              label="vs all threads ⟨1, T, B⟩"
              value={plan.baselines.allThreads.available ? times(plan.baselines.allThreads.speedup) : "—"}
              sub={plan.baselines.allThreads.available ? "predicted speedup" : "cell not profiled"}
              testId="opt-speedup-all"
            />
            <SummaryTile
              label="vs one thread each"
              value={plan.baselines.oneThread.available ? times(plan.baselines.oneThread.speedup) : "—"}
              sub={plan.baselines.oneThread.available ? "predicted speedup" : "cells not profiled"}
              testId="opt-speedup-one"
            />
          </div>
          <p className="why-line" data-testid="why-line">
            <strong>Why this plan:</strong> {plan.why}.
          </p>

          <div className="table-wrap">
            <table className="data compact-table" data-testid="baselines">
              <thead>
                <tr>
                  <th>Configuration</th>
                  <th>Instances</th>
                  <th className="num">Batch latency (profile)</th>
                  <th className="num">Corrected for this host</th>
                  <th className="num">Throughput</th>
                  <th className="num">Packrat&apos;s speedup</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td>
                    <strong>Packrat</strong>
                  </td>
                  <td>{describeGroups(plan.instances)}</td>
                  <td className="num">{formatMs(plan.latencyMs)}</td>
                  <td className="num">{formatMs(plan.correction.latencyMs)}</td>
                  <td className="num">{formatRate(plan.throughputPerS, "samples/s", 4)}</td>
                  <td className="num">1×</td>
                </tr>
                {(
                  [
                    ["All threads ⟨1, T, B⟩", plan.baselines.allThreads, plan.correction.allThreadsMs],
                    ["One thread per instance", plan.baselines.oneThread, plan.correction.oneThreadMs],
                  ] as const
                ).map(([label, b, corrected]) => (
                  <tr key={label}>
                    <td>{label}</td>
                    {b.available ? (
                      <>
                        <td>{describeGroups(b.instances)}</td>
                        <td className="num">{formatMs(b.latencyMs)}</td>
                        <td className="num">{formatMs(corrected)}</td>
                        <td className="num">{formatRate(b.throughputPerS, "samples/s", 4)}</td>
                        <td className="num">{times(b.speedup)}</td>
                      </>
                    ) : (
                      <td colSpan={5} className="muted">
                        not predictable: the profile lacks{" "}
                        {b.missing.map(([t, bb]) => `⟨t = ${t}, b = ${bb}⟩`).join(", ")}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>

          <section>
            <h2 className="optimizer-h2">Allocation</h2>
            <div className="allocation-grid">
              <div className="panel" data-testid="planned-core-map">
                <h3>Proposed</h3>
                <CoreMap
                  planned
                  topology={chosen!.topology}
                  allowedCpus={chosen!.allowedCpus}
                  deployments={plannedCoreMap(plan.plan.instances, chosen!.cpus)}
                />
              </div>
              {chosen?.running && (
                <div className="panel" data-testid="running-core-map">
                  <h3>Running (generation {chosen.generation})</h3>
                  <CoreMap
                    planned
                    topology={chosen.topology}
                    allowedCpus={chosen.allowedCpus}
                    deployments={plannedCoreMap(chosen.running.plan.instances, chosen.cpus)}
                  />
                </div>
              )}
            </div>
          </section>

          <ChartFrame
            title="Predicted batch latency vs B"
            units={`x: batch size B (samples), 1…${maxB}; y: predicted batch latency (ms) on T = ${plan.cores} cores, from the profile`}
            csv={chartCsv(plan.table)}
            testId="latency-vs-b"
            note="Packrat's optimum is a staircase: its latency holds until the next B. A baseline has a dot at each B the profile can predict it at (its cells were measured); dashes between dots only guide the eye, and where a line stops no prediction exists."
          >
            <XYChart
              rows={chartRows(plan.table)}
              xKey="batch"
              xLabel="batch size B (samples)"
              yLabel="batch latency (ms)"
              xDomain={[1, maxB]}
              xTicks={batchTicks(maxB)}
              formatX={(v) => formatFixed(v, 0)}
              formatY={(v) => formatSig(v, 3)}
              lines={[
                { key: "packrat", label: "Packrat optimum", color: COLORS.packrat, shape: "step", width: 2.5 },
                {
                  key: "allThreads",
                  label: "all threads ⟨1, T, B⟩",
                  color: COLORS.allThreads,
                  dashed: true,
                  dots: true,
                },
                {
                  key: "oneThread",
                  label: "one thread per instance",
                  color: COLORS.oneThread,
                  dashed: true,
                  dots: true,
                },
              ]}
              references={[{ axis: "x", value: plan.batchSize, label: `B = ${plan.batchSize}`, color: COLORS.marker }]}
              markers={[
                {
                  x: plan.batchSize,
                  y: plan.latencyMs,
                  label: formatMs(plan.latencyMs, 3),
                  color: COLORS.packrat,
                  labelPosition: "right",
                },
              ]}
            />
          </ChartFrame>

          <section className="card" data-testid="opt-validator">
            <div className="validator-head">
              <h2 className="optimizer-h2">Batching validator</h2>
              {validator?.ok && (
                <span
                  className={`fit-state ${validator.value.validation.pass ? "ok" : "bad"}`}
                  data-testid="opt-validator-verdict"
                >
                  {validator.value.validation.pass ? "passes" : "fails"}
                </span>
              )}
            </div>
            {validator?.ok ? (
              <>
                <table className="data compact-table" data-testid="opt-checks">
                  <thead>
                    <tr>
                      <th>Check</th>
                      <th>Result</th>
                      <th>Numbers</th>
                    </tr>
                  </thead>
                  <tbody>
                    {validator.value.validation.checks.map((c) => (
                      <tr key={c.id} data-check={c.id}>
                        <td className="nowrap">{checkLabels[c.id] ?? c.id}</td>
                        <td>
                          <span
                            className={`badge ${c.status === "pass" ? "ok" : c.status === "fail" ? "bad" : "warn"}`}
                          >
                            {c.status}
                          </span>
                        </td>
                        <td className="check-message">{c.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <p className="muted small">
                  {validator.value.note} T(B) = {formatMs(validator.value.fittedAtBatchMs, 4)} by the fit; the
                  optimizer&apos;s L*(B) = {formatMs(plan.latencyMs, 4)}.
                </p>
              </>
            ) : (
              <p className="muted" data-testid="opt-validator-unavailable">
                {validator?.ok === false ? validator.error : ""}
              </p>
            )}
          </section>

          {chosen && profile && (
            <PlanExportPanel
              deploymentId={chosen.id}
              profileId={profile.id}
              batchSize={plan.batchSize}
              batchTimeoutMs={plan.batchTimeoutMs}
            />
          )}

          {canPropose ? (
            <form className="card propose-form" onSubmit={submit} data-testid="propose-form">
              <h2 className="optimizer-h2">Propose this configuration</h2>
              <p className="muted small">
                An SRE approves or rejects it on the Approvals page; approved, it becomes generation{" "}
                {chosen!.generation + 1} of this deployment. It expires in 24 h, or as soon as the deployment moves past
                generation {chosen!.generation}.
              </p>
              <label className="form-field">
                <span>Reason (required)</span>
                <textarea
                  data-testid="propose-reason"
                  rows={2}
                  maxLength={500}
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  placeholder="e.g. the profile says 4-thread instances serve B = 8 twice as fast"
                  required
                />
              </label>
              <label className="trial-check small" data-testid="propose-trial-label">
                <input
                  type="checkbox"
                  data-testid="propose-trial"
                  checked={withTrial}
                  onChange={(e) => setWithTrial(e.target.checked)}
                />{" "}
                Check it by a plan trial first: the agent runs the optimizer&apos;s top 3 plans, ⟨1, T, B⟩ and the
                running configuration as they would be served (a few seconds each, interleaved, inside the core budget);
                the proposal is offered once measured, and if the trial contradicts the prediction beyond noise it
                proposes the measured best.
              </label>
              <div className="propose-actions">
                <button
                  className="btn primary"
                  type="submit"
                  data-testid="propose-submit"
                  disabled={proposeBlocked !== null}
                  aria-describedby={proposeBlocked ? "propose-blocked" : undefined}
                >
                  Propose
                </button>
                {proposeBlocked && (
                  <span className="muted small" id="propose-blocked" data-testid="propose-blocked">
                    {proposeBlocked}
                  </span>
                )}
                {propose.error && (
                  <span className="form-field-error" role="alert">
                    {propose.error.message}
                  </span>
                )}
                {created && (
                  <span className="notice-inline" data-testid="propose-done">
                    Proposed. {createdProposal?.state === "trialing" ? "Its plan trial runs first; then it" : "It"}{" "}
                    waits for an SRE on <Link href="/approvals">Approvals</Link>.
                  </span>
                )}
              </div>
              {createdProposal?.trial && (
                <PlanTrialPanel
                  trial={createdProposal.trial}
                  cancelling={cancelTrial.isPending}
                  onCancel={() => cancelTrial.mutate({ proposalId: createdProposal.id })}
                />
              )}
            </form>
          ) : (
            <p className="muted small" data-testid="read-only-note">
              Read-only: managers see what the optimizer would propose; ML engineers and SREs propose, SREs approve.
            </p>
          )}
        </div>
      )}
    </>
  );
}
