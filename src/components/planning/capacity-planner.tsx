"use client";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { niceCeil } from "@/lib/planning/axis";
import { useTRPC } from "@/trpc/react";
import { ChartFrame } from "@/components/charts/chart-frame";
import { StackedBarChart } from "@/components/charts/stacked-bar-chart";
import { XYChart, type XYMarker } from "@/components/charts/xy-chart";
import { formatMs, formatPercent, formatRate, formatSig } from "@/lib/planning/format";
import {
  CAPACITY_PRESETS,
  CURVE_MAX_UTILIZATION,
  capacitySpec,
  computeCapacity,
  type CapacityField,
  type CapacityState,
  type LiveOperatingPoint,
} from "./capacity-data";
import { Field, FieldGroup, ModelMessage, PresetBar, SummaryTile, matchingPreset } from "./planner-controls";
import { serializeLiveSource, type LiveSource } from "@/contracts/live-source";
import { LIVE_REFETCH_MS, LiveSourcePicker, describeWindow } from "./live-source-picker";
import { usePlannerState } from "./use-planner-state";

const UTILIZATION_TICKS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
const pct = (v: number) => `${Math.round(v * 100)}%`;

/**
 * The capacity planner. With a chosen deployment (operators only), its live operating point (ρ and the time in the
 * server, from its heartbeats over the chosen window) is drawn on the model curves (issue 18).
 */
export function CapacityPlanner({
  initial,
  initialLiveSource,
  canReadLive = false,
}: {
  initialLiveSource: LiveSource;
  initial: CapacityState;
  canReadLive?: boolean;
}) {
  // The chosen deployment and window ride in the URL beside the planner's fields: a live view can be shared.
  const [liveSource, setLiveSource] = useState<LiveSource>(initialLiveSource);
  const { state, setField, setState } = usePlannerState(capacitySpec, initial, serializeLiveSource(liveSource));
  const trpc = useTRPC();
  const view = useMemo(() => computeCapacity(state), [state]);
  const liveQuery = useQuery(
    trpc.planning.operatingPoint.queryOptions(
      { deploymentId: liveSource.deploymentId, windowMinutes: liveSource.windowMinutes },
      { enabled: canReadLive && liveSource.deploymentId !== "", refetchInterval: LIVE_REFETCH_MS },
    ),
  );
  const liveData = liveSource.deploymentId !== "" ? liveQuery.data : undefined;
  const live: LiveOperatingPoint | null =
    liveData && liveData.utilization !== null
      ? {
          id: liveData.deploymentId,
          label: "live",
          utilization: liveData.utilization,
          meanMs: liveData.meanMs ?? undefined,
          p99Ms: liveData.p99Ms ?? undefined,
        }
      : null;
  const field = (k: CapacityField) => (
    <Field name={k} spec={capacitySpec[k]} value={state[k]} error={view.errors[k]} onChange={(v) => setField(k, v)} />
  );

  const plan = view.plan?.ok ? view.plan.value : null;
  const feasible = plan?.feasible ? plan : null;
  const curves = view.curves?.ok ? view.curves.value : null;
  const liveMarkers: XYMarker[] = [];
  if (live && curves) {
    if (live.meanMs !== undefined)
      liveMarkers.push({ x: live.utilization, y: live.meanMs, label: `${live.label} mean`, color: "#111827" });
    if (live.p99Ms !== undefined)
      liveMarkers.push({ x: live.utilization, y: live.p99Ms, label: `${live.label} p99`, color: "#b45309" });
  }

  return (
    <>
      <PresetBar
        presets={CAPACITY_PRESETS}
        activeId={matchingPreset(CAPACITY_PRESETS, state)}
        onSelect={(id) => setState(CAPACITY_PRESETS.find((p) => p.id === id)!.state)}
      />
      <div className="planner">
        <form className="planner-inputs" onSubmit={(e) => e.preventDefault()} aria-label="Capacity inputs">
          <FieldGroup title="Load">
            {field("rate")}
            {field("service")}
          </FieldGroup>
          <FieldGroup title="p99 SLO">
            {field("budget")}
            {field("outside")}
            {field("multiplier")}
          </FieldGroup>
          <FieldGroup title="Fleet">
            {field("headroom")}
            {field("k")}
            {field("perReplica")}
          </FieldGroup>
          <FieldGroup title="Curves">
            {field("servers")}
            <LiveSourcePicker
              canReadLive={canReadLive}
              value={liveSource}
              onChange={setLiveSource}
              label="Live operating point of"
              noun="a live operating point (measured ρ, mean and p99)"
            />
            {liveSource.deploymentId !== "" && liveQuery.error && (
              <p className="field-error" role="alert">
                {liveQuery.error.message}
              </p>
            )}
          </FieldGroup>
        </form>

        <div className="planner-results">
          {view.plan && !view.plan.ok && <ModelMessage message={view.plan.message} testId="plan-message" />}
          {plan && !plan.feasible && (
            <ModelMessage
              message={`No utilization is safe: ${plan.safeUtilization.reason}.`}
              testId="plan-infeasible"
            />
          )}
          {feasible && (
            <div className="summary-strip" data-testid="capacity-summary">
              <SummaryTile
                label="Safe utilization ρ_max"
                value={formatPercent(feasible.safeUtilization.maxUtilization)}
                sub={`1 − m·S / ${formatMs(feasible.safeUtilization.modelBudgetMs)}`}
                testId="rho-max"
              />
              <SummaryTile
                label="Required service rate"
                value={formatRate(feasible.replicas.requiredServiceRatePerS)}
                sub={`λ / ρ_max; ${formatRate(feasible.perReplicaRatePerS)} per replica`}
                testId="required-rate"
              />
              <SummaryTile
                label="Replicas"
                value={`${feasible.replicas.baseReplicas} → ${feasible.replicas.finalReplicas}`}
                sub={`⌈${formatSig(feasible.replicas.exactReplicas, 4)}⌉, then +${state.headroom}% headroom`}
                testId="replicas"
              />
              <SummaryTile
                label={`After ${state.k} failure${state.k === "1" ? "" : "s"}`}
                value={formatPercent(feasible.replicas.postFailure.utilizationAfterFailures)}
                sub={feasible.replicas.postFailure.withinMaxUtilization ? "≤ ρ_max: survives" : "> ρ_max: add replicas"}
                status={feasible.replicas.postFailure.withinMaxUtilization ? "ok" : "bad"}
                testId="post-failure"
              />
            </div>
          )}

          {liveData && (
            <section className="card planner-card" data-testid="live-point">
              <h2>
                Live operating point <span className="badge ok">measured</span>
              </h2>
              <p className="muted small" data-testid="live-window">
                {liveData.label}: {describeWindow(liveData.window)}
              </p>
              {liveData.arrivalRatePerS === null || liveData.window.requests === 0 ? (
                <p className="muted">
                  No requests in this window: send traffic to the deployment to see where it runs.
                </p>
              ) : (
                <div className="summary-strip">
                  <SummaryTile
                    label="Arrival rate λ"
                    value={`${formatSig(liveData.arrivalRatePerS, 3)} req/s`}
                    sub="requests over the heartbeat intervals"
                    testId="live-rate"
                  />
                  <SummaryTile
                    label="Utilization ρ"
                    value={liveData.utilization === null ? "not reported" : formatPercent(liveData.utilization)}
                    sub="instance-set busy time / interval"
                    testId="live-utilization"
                  />
                  <SummaryTile
                    label="Time in server"
                    value={liveData.meanMs === null ? "—" : `${formatMs(liveData.meanMs)} mean`}
                    sub={
                      liveData.p99Ms === null
                        ? "queue wait + compute"
                        : `p99 ${formatMs(liveData.p99Ms)} (queue wait + compute)`
                    }
                    testId="live-latency"
                  />
                  <SummaryTile
                    label="Service time S"
                    value={liveData.serviceTimeMs === null ? "—" : formatMs(liveData.serviceTimeMs)}
                    sub="busy time per request (ρ / λ)"
                    testId="live-service"
                  />
                </div>
              )}
              {liveData.serviceTimeMs !== null && (
                <button
                  type="button"
                  className="btn small"
                  data-testid="use-live-service"
                  onClick={() => setField("service", String(Number(liveData.serviceTimeMs!.toPrecision(4))))}
                >
                  Use its S ({formatMs(liveData.serviceTimeMs)}) for the curves
                </button>
              )}
              {live && live.utilization > CURVE_MAX_UTILIZATION && (
                <p className="muted small">
                  ρ is above the curves&apos; {formatPercent(CURVE_MAX_UTILIZATION)}: the point is off the chart.
                </p>
              )}
            </section>
          )}

          <ChartFrame
            title="Utilization–latency curves"
            units="x: utilization ρ per server (%) · y: time in system (ms), clipped at the axis top · dashed red: the p99 budget"
            csv={view.curvesCsv}
            testId="capacity-chart"
            empty={curves ? null : "Fix the inputs marked in red to draw the curves."}
            note={
              curves
                ? `S = ${formatMs(curves.serviceTimeMs)}; M/M/1 p99 ≈ ${formatSig(curves.multiplier, 4)} × mean (Eq. 5); M/M/c with c = ${curves.servers} at the same per-server ρ, p99 exact. Planning estimates under Poisson arrivals: a load test must confirm them.${live ? ` Live point (measured): ρ ${formatPercent(live.utilization)}, mean and p99 time in the server; it sits on the curves when S matches its measured service time.` : ""}`
                : undefined
            }
          >
            {curves && (
              <XYChart
                rows={curves.points as unknown as Record<string, number>[]}
                xKey="utilization"
                xLabel="utilization ρ (%)"
                yLabel="latency (ms)"
                xDomain={[0, CURVE_MAX_UTILIZATION]}
                xTicks={UTILIZATION_TICKS}
                yDomain={[
                  0,
                  live?.p99Ms !== undefined && live.p99Ms > curves.yMaxMs ? niceCeil(live.p99Ms * 1.1) : curves.yMaxMs,
                ]}
                formatX={pct}
                formatY={(v) => formatSig(v, 3)}
                lines={[
                  { key: "mm1MeanMs", label: "M/M/1 mean", color: "#2f6fed" },
                  { key: "mm1P99Ms", label: "M/M/1 p99", color: "#d64545" },
                  { key: "md1MeanMs", label: "M/D/1 mean", color: "#0f9488", dashed: true },
                  { key: "mmcMeanMs", label: `M/M/${curves.servers} mean`, color: "#8b5cf6" },
                  { key: "mmcP99Ms", label: `M/M/${curves.servers} p99`, color: "#8b5cf6", dashed: true },
                ]}
                references={[
                  {
                    axis: "y",
                    value: curves.modelBudgetMs,
                    label: `p99 budget ${formatMs(curves.modelBudgetMs)}`,
                    color: "#d64545",
                  },
                  ...(curves.maxUtilization !== null
                    ? [
                        {
                          axis: "x" as const,
                          value: curves.maxUtilization,
                          label: `ρ_max ${formatPercent(curves.maxUtilization)}`,
                          color: "#1f9d55",
                          labelPosition: "insideTopLeft" as const,
                        },
                      ]
                    : []),
                ]}
                markers={liveMarkers}
                height={330}
              />
            )}
          </ChartFrame>

          <ChartFrame
            title="Replicas for the peak"
            units="x: replicas · from the exact need to the fleet with headroom and N+k, both readings"
            csv={view.replicasCsv}
            testId="replicas-chart"
            empty={feasible ? null : "No plan: fix the inputs, or an SLO an idle replica can meet."}
            note={feasible ? feasible.caveats.join(" ") : undefined}
          >
            {feasible && (
              <StackedBarChart
                rows={view.replicaBars.map((b) => ({ step: b.step, replicas: b.replicas }))}
                categoryKey="step"
                segments={[{ key: "replicas", label: "replicas", color: "#2f6fed" }]}
                valueLabel="replicas"
                formatValue={(v) => formatSig(v, 4)}
                showTotals
                categoryWidth={150}
                legend={false}
                height={230}
              />
            )}
          </ChartFrame>

          {feasible && (
            <section className="card planner-card">
              <h2>Failures (N+{state.k})</h2>
              <table className="data compact-table" data-testid="replica-table">
                <thead>
                  <tr>
                    <th>Fleet</th>
                    <th>Replicas</th>
                    <th>Left after {state.k} fail</th>
                    <th>ρ on the survivors</th>
                    <th>Within ρ_max</th>
                  </tr>
                </thead>
                <tbody>
                  {view.replicaBars.slice(2).map((b) => (
                    <tr key={b.step}>
                      <td>{b.step}</td>
                      <td className="num">{b.replicas}</td>
                      <td className="num">{Math.max(0, b.replicas - Number(state.k))}</td>
                      <td className="num">{formatPercent(b.utilizationAfterFailures)}</td>
                      <td>
                        <span className={`badge ${b.withinMaxUtilization ? "ok" : "bad"}`}>
                          {b.withinMaxUtilization ? "yes" : "no"}
                        </span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="muted small">
                &ldquo;N+k on base&rdquo; survives k failures at the same ρ_max; &ldquo;N+k on final&rdquo; keeps the
                headroom after k failures (Napkin Math 13.3&apos;s two readings).
              </p>
            </section>
          )}
        </div>
      </div>
    </>
  );
}
