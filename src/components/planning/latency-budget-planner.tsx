"use client";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "@/trpc/react";
import { axisCeil } from "@/lib/planning/axis";
import { ChartFrame, ModelBadge } from "@/components/charts/chart-frame";
import { StackedBarChart } from "@/components/charts/stacked-bar-chart";
import { formatMs, formatPercent, formatSig, formatTimes } from "@/lib/planning/format";
import {
  LATENCY_PRESETS,
  STAGES,
  computeLatencyBudget,
  latencyBudgetSpec,
  type LatencyBudgetField,
  type LatencyBudgetState,
  type MeasuredStageSource,
  type StageSource,
} from "./latency-budget-data";
import { Field, FieldGroup, Figures, ModelMessage, PresetBar, SummaryTile, matchingPreset } from "./planner-controls";
import { serializeLiveSource, type LiveSource } from "@/contracts/live-source";
import { LIVE_REFETCH_MS, LiveSourcePicker, describeWindow } from "./live-source-picker";
import { usePlannerState } from "./use-planner-state";

const SOURCE_BADGE: Record<StageSource, string> = {
  entered: "badge entered",
  model: "badge model",
  measured: "badge ok",
};

/**
 * The latency budget planner. With a chosen deployment (operators only), the stages the agent measures come from its
 * heartbeats' histograms over the chosen window (issue 18); the rest stay entered.
 */
export function LatencyBudgetPlanner({
  initial,
  initialLiveSource,
  canReadLive = false,
}: {
  initialLiveSource: LiveSource;
  initial: LatencyBudgetState;
  canReadLive?: boolean;
}) {
  // The chosen deployment and window ride in the URL beside the planner's fields: a live view can be shared.
  const [liveSource, setLiveSource] = useState<LiveSource>(initialLiveSource);
  const { state, setField, setState } = usePlannerState(latencyBudgetSpec, initial, serializeLiveSource(liveSource));
  const trpc = useTRPC();
  const live = useQuery(
    trpc.planning.measuredStages.queryOptions(
      { deploymentId: liveSource.deploymentId, windowMinutes: liveSource.windowMinutes },
      { enabled: canReadLive && liveSource.deploymentId !== "", refetchInterval: LIVE_REFETCH_MS },
    ),
  );
  const liveData = liveSource.deploymentId !== "" ? live.data : undefined;
  const measured: MeasuredStageSource | null = useMemo(
    () => (liveData ? { id: liveData.deploymentId, label: liveData.label, stages: liveData.stages } : null),
    [liveData],
  );
  const view = useMemo(() => computeLatencyBudget(state, measured), [state, measured]);
  const activePreset = matchingPreset(LATENCY_PRESETS, state);
  const err = (k: LatencyBudgetField) => view.errors[k];
  const field = (k: LatencyBudgetField, extra: { compact?: boolean } = {}) => (
    <Field
      name={k}
      spec={latencyBudgetSpec[k]}
      value={state[k]}
      error={err(k)}
      onChange={(v) => setField(k, v)}
      {...extra}
    />
  );

  const b = view.budget?.ok ? view.budget.value : null;
  const rowOf = (kind: string) => b?.rows.find((r) => r.kind === kind);
  const stageErrors = STAGES.flatMap((s) => [err(`${s.kind}P50`), err(`${s.kind}P99`)]).filter(
    (m): m is string => m !== undefined,
  );
  const domainMax = b ? axisCeil(Math.max(b.deadlineMs, b.p99.totalMs) * 1.08) : undefined;

  return (
    <>
      <PresetBar
        presets={LATENCY_PRESETS}
        activeId={activePreset}
        onSelect={(id) => setState(LATENCY_PRESETS.find((p) => p.id === id)!.state)}
      />
      <div className="planner">
        <form className="planner-inputs" onSubmit={(e) => e.preventDefault()} aria-label="Latency budget inputs">
          <FieldGroup title="Source">
            <LiveSourcePicker
              canReadLive={canReadLive}
              value={liveSource}
              onChange={setLiveSource}
              label="Measured stages from"
              noun="measured stages (deserialize through serialize)"
            />
            {liveSource.deploymentId !== "" && live.error && (
              <p className="field-error" role="alert">
                {live.error.message}
              </p>
            )}
            {liveData && (
              <p className="muted small" data-testid="measured-window">
                {Object.keys(liveData.stages).length > 0
                  ? "Measured: "
                  : `${liveData.state === "serving" ? "Serving, but" : `State ${liveData.state}:`} no requests measured; `}
                {describeWindow(liveData.window)}
              </p>
            )}
          </FieldGroup>
          <FieldGroup title="SLO">{field("deadline")}</FieldGroup>
          <FieldGroup title="Queue and load">
            {field("queueMode")}
            {measured?.stages.queue && (
              <p className="muted small" data-testid="queue-measured-note">
                The queue stage is measured: this choice applies without a deployment.
              </p>
            )}
            {field("rate")}
          </FieldGroup>
          <FieldGroup title="What-if (Amdahl)">
            {field("speedStage")}
            {field("speedup")}
          </FieldGroup>
        </form>

        <div className="planner-results">
          {view.budget && !view.budget.ok && <ModelMessage message={view.budget.message} testId="budget-message" />}
          {b && (
            <div className="summary-strip" data-testid="budget-summary">
              <SummaryTile
                label="p50 path"
                value={formatMs(b.p50.totalMs)}
                sub={`${formatMs(b.p50.remainingMs)} left`}
              />
              <SummaryTile
                label="p99 path"
                value={formatMs(b.p99.totalMs)}
                sub={
                  b.p99.withinDeadline ? `${formatMs(b.p99.remainingMs)} left` : `${formatMs(-b.p99.remainingMs)} over`
                }
                status={b.p99.withinDeadline ? "ok" : "bad"}
                testId="p99-total"
              />
              <SummaryTile
                label="p99 deadline"
                value={formatMs(b.deadlineMs)}
                sub={b.p99.withinDeadline ? "met" : "missed"}
                status={b.p99.withinDeadline ? "ok" : "bad"}
                testId="deadline-verdict"
              />
              <SummaryTile
                label="Left for queue + batch + inference"
                value={formatMs(b.workerAllowanceMs)}
                sub={`deadline − ${formatMs(b.outsideWorkerUpperBoundMs)} outside-worker p99s`}
                status={b.workerAllowanceFeasible ? undefined : "bad"}
                testId="worker-allowance"
              />
            </div>
          )}

          <ChartFrame
            title="Latency budget by stage"
            units="x: latency (ms) · bars: p50 and p99 paths, stacked by stage · dashed line: the p99 deadline"
            csv={view.csv}
            testId="latency-chart"
            modeled={b?.queueModel !== null}
            empty={b ? null : "Fix the inputs marked in red to draw the budget."}
            note={
              !b
                ? undefined
                : b.queueModel
                  ? `Queue: M/M/1 wait at ρ = ${formatSig(b.queueModel.utilization, 3)} (λ = ${state.rate} req/s, S = inference p50 = ${formatMs(b.queueModel.serviceTimeMs)}): p50 ${formatMs(b.queueModel.p50Ms)}, p99 ${formatMs(b.queueModel.p99Ms)}. Other stages as ${measured ? "measured or entered" : "entered"}.`
                  : `Every stage as ${measured ? "measured or entered" : "entered"}.`
            }
          >
            {b && (
              <StackedBarChart
                rows={view.chart}
                categoryKey="percentile"
                segments={b.rows
                  .filter((r) => r.p50Ms > 0 || r.p99Ms > 0)
                  .map((r) => ({ key: r.kind, label: r.label, color: r.color }))}
                valueLabel="latency (ms)"
                references={[{ value: b.deadlineMs, label: `deadline ${formatMs(b.deadlineMs)}`, color: "#d64545" }]}
                domainMax={domainMax}
                formatValue={(v) => formatMs(v, 3)}
                showTotals
                height={210}
              />
            )}
          </ChartFrame>

          <section className="card planner-card">
            <h2>Stages</h2>
            <table className="data stage-table" data-testid="stage-table">
              <thead>
                <tr>
                  <th>Stage</th>
                  <th>Source</th>
                  <th>p50 (ms)</th>
                  <th>p99 (ms)</th>
                  <th>Share of p50</th>
                  <th>Share of p99</th>
                </tr>
              </thead>
              <tbody>
                {STAGES.map((s) => {
                  const row = rowOf(s.kind);
                  const source: StageSource =
                    row?.source ?? (s.kind === "queue" && state.queueMode === "model" ? "model" : "entered");
                  const editable = source === "entered";
                  return (
                    <tr key={s.kind} data-testid={`stage-${s.kind}`}>
                      <td>
                        <span className="swatch" style={{ background: s.color }} aria-hidden />
                        {s.label}
                      </td>
                      <td>
                        <span className={SOURCE_BADGE[source]}>{source}</span>
                        {source === "measured" && liveData && (
                          <span className="muted small" data-testid={`stage-${s.kind}-window`}>
                            {" "}
                            last {liveData.window.minutes} min, n ={" "}
                            {(liveData.stages[s.kind]?.count ?? 0).toLocaleString("en-US")}
                          </span>
                        )}
                      </td>
                      <td>
                        {editable ? (
                          field(`${s.kind}P50`, { compact: true })
                        ) : (
                          <span className="num">{formatSig(row?.p50Ms, 4)}</span>
                        )}
                      </td>
                      <td>
                        {editable ? (
                          field(`${s.kind}P99`, { compact: true })
                        ) : (
                          <span className="num">{formatSig(row?.p99Ms, 4)}</span>
                        )}
                      </td>
                      <td className="num">{row ? formatPercent(row.p50SharePercent / 100) : "—"}</td>
                      <td className="num">{row ? formatPercent(row.p99SharePercent / 100) : "—"}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {stageErrors.length > 0 && (
              <ul className="field-error-list" data-testid="stage-errors">
                {stageErrors.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            )}
            <p className="muted small">
              Shares are each stage&apos;s time over the path&apos;s total, each rounded on its own, so a column need
              not sum to 100% (Table 3). The outside-worker stages&apos; p99s are the upper bound Checkpoint 13.1
              subtracts from the deadline; a mean cannot certify a p99.
            </p>
          </section>

          <section className="card planner-card" data-testid="amdahl">
            <h2>
              Amdahl what-if <ModelBadge />
            </h2>
            {view.amdahl?.ok ? (
              <Figures
                items={[
                  {
                    label: `${view.amdahl.value.stageLabel} ${formatTimes(view.amdahl.value.factor)} faster`,
                    value: `${formatMs(view.amdahl.value.beforeMs)} → ${formatMs(view.amdahl.value.afterMs)}`,
                    note: "p50 path, one isolated request (F-03)",
                    testId: "amdahl-after",
                  },
                  {
                    label: "End-to-end speed-up",
                    value: formatTimes(view.amdahl.value.speedup),
                    note: `latency −${formatPercent(view.amdahl.value.latencyReduction)}`,
                    testId: "amdahl-speedup",
                  },
                  {
                    label: "Ceiling (stage free)",
                    value:
                      view.amdahl.value.ceilingSpeedup === null
                        ? "unbounded (the stage is the whole path)"
                        : formatTimes(view.amdahl.value.ceilingSpeedup),
                  },
                ]}
              />
            ) : (
              <p className="muted">{view.amdahl ? view.amdahl.message : "Needs a valid budget and speed-up factor."}</p>
            )}
            <h3 className="subhead">Queueing dividend under load (Fallacy 1)</h3>
            {view.dividend?.ok ? (
              <Figures
                testId="dividend"
                items={[
                  {
                    label: "Utilization ρ",
                    value: `${formatSig(view.dividend.value.utilizationBefore, 3)} → ${formatSig(view.dividend.value.utilizationAfter, 3)}`,
                    note: `at ${formatSig(view.dividend.value.arrivalRatePerS, 5)} req/s`,
                  },
                  {
                    label: "Mean time in the server (M/M/1)",
                    value: `${formatMs(view.dividend.value.meanBeforeMs)} → ${formatMs(view.dividend.value.meanAfterMs)}`,
                  },
                  {
                    label: "Server speed-up vs model speed-up",
                    value: `${formatTimes(view.dividend.value.systemSpeedup)} vs ${formatTimes(view.dividend.value.modelSpeedup)}`,
                    note: "ρ falls too, so the queue shrinks faster than the service time",
                    testId: "dividend-speedup",
                  },
                ]}
              />
            ) : (
              <p className="muted" data-testid="dividend-message">
                {view.dividend
                  ? view.dividend.message
                  : "Needs a valid arrival rate, inference p50 and speed-up factor."}
              </p>
            )}
          </section>
        </div>
      </div>
    </>
  );
}
