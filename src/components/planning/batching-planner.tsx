"use client";
import Link from "next/link";
import { useEffect, useMemo } from "react";
import { niceTicks } from "@/lib/planning/axis";
import { ChartFrame, ModelBadge } from "@/components/charts/chart-frame";
import { XYChart, type XYMarker, type XYReference } from "@/components/charts/xy-chart";
import { formatFixed, formatMs, formatPercent, formatRate, formatSig } from "@/lib/planning/format";
import { chosenResiduals, paretoXAxis, type MeasuredBatchingPoint } from "./batching-chart";
import { computeBatching, modelPointFor } from "./batching-data";
import {
  BATCHING_PRESETS,
  batchingSpec,
  profileAwareSpec,
  type BatchingField,
  type BatchingState,
  type ProfileCurveOption,
} from "./batching-form";
import { Field, FieldGroup, Figures, ModelMessage, PresetBar, SummaryTile, matchingPreset } from "./planner-controls";
import { usePlannerState } from "./use-planner-state";
import { gapRows } from "@/components/batching-sweeps/sweep-data";

const KNEE_TICKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const CHECK_LABELS: Record<string, string> = {
  stability: "Stability (λ < μ_eff)",
  "mean-screen": "Mean screen (Eq. 11)",
  "tail-envelope": "Tail envelope (Eq. 12)",
  "window-fraction": "Window ≤ share of SLO",
  "memory-cap": "Memory cap",
  "zero-window": "Zero-window conditions",
};

/**
 * The batching planner. Plug-in points for data that does not exist yet: `profiles` (a model's stored profile as the
 * T(B) source), `measuredPoints` (load-tested configurations drawn over the frontier), and `proposeHref` (the
 * Optimizer page's proposal form, pre-filled with the validated candidate). `extraQuery` (the chosen deployment)
 * stays in the address bar beside the planner's own state. `onCandidate` tells the page the validator's candidate.
 */
export function BatchingPlanner({
  initial,
  profiles = [],
  measuredPoints = [],
  measuredLabel = "measured (load test)",
  proposeHref,
  proposeNote,
  extraQuery = "",
  onCandidate,
}: {
  initial: BatchingState;
  profiles?: readonly ProfileCurveOption[];
  measuredPoints?: readonly MeasuredBatchingPoint[];
  measuredLabel?: string;
  proposeHref?: (candidate: { windowMs: string; maxBatch: string }) => string | null;
  proposeNote?: string;
  extraQuery?: string;
  onCandidate?: (candidate: { windowMs: string; maxBatch: string; rate: string }) => void;
}) {
  const { state, setField, setState } = usePlannerState(batchingSpec, initial, extraQuery);
  const { cWindow, cBatch, rate } = state;
  useEffect(() => onCandidate?.({ windowMs: cWindow, maxBatch: cBatch, rate }), [onCandidate, cWindow, cBatch, rate]);
  const href = proposeHref?.({ windowMs: state.cWindow, maxBatch: state.cBatch }) ?? null;
  const spec = useMemo(() => profileAwareSpec(profiles), [profiles]);
  const view = useMemo(() => computeBatching(state, profiles), [state, profiles]);
  const field = (k: BatchingField, extra: { multiline?: boolean } = {}) => (
    <Field
      name={k}
      spec={spec[k]}
      value={state[k]}
      error={view.errors[k]}
      onChange={(v) => setField(k, v)}
      {...extra}
    />
  );
  const service = view.service?.ok ? view.service.value : null;
  const knee = view.knee?.ok ? view.knee.value : null;
  const pareto = view.pareto?.ok ? view.pareto.value : null;
  const validator = view.validator?.ok ? view.validator.value : null;
  const slo = Number(state.slo);

  const xAxis = paretoXAxis(
    pareto?.stable.map((p) => p.envelopeMs) ?? [],
    measuredPoints.map((m) => m.p99Ms),
    slo,
  );
  const paretoRefs: XYReference[] = [];
  if (pareto?.limitMs != null)
    paretoRefs.push({
      axis: "x",
      value: pareto.limitMs,
      label: `limit ${formatMs(pareto.limitMs)}`,
      color: "#c77700",
      labelPosition: "insideTopLeft",
    });
  if (Number.isFinite(slo) && slo > 0)
    paretoRefs.push({
      axis: "x",
      value: slo,
      label: `SLO ${formatMs(slo)}`,
      color: "#d64545",
      labelPosition: "insideBottomLeft",
    });
  const bestMarker: XYMarker[] = pareto?.best
    ? [
        {
          x: pareto.best.envelopeMs,
          y: pareto.best.throughputPerS,
          label: `best: ${formatFixed(pareto.best.windowMs, 3)} ms / ${pareto.best.maxBatch}`,
          color: "#c77700",
          r: 8,
          labelPosition: "left",
        },
      ]
    : [];

  return (
    <>
      <PresetBar
        presets={BATCHING_PRESETS}
        activeId={matchingPreset(BATCHING_PRESETS, state)}
        onSelect={(id) => setState(BATCHING_PRESETS.find((p) => p.id === id)!.state)}
      />
      <div className="planner">
        <form className="planner-inputs" onSubmit={(e) => e.preventDefault()} aria-label="Batching inputs">
          <FieldGroup title="Service time T(B)">
            {field("source")}
            {state.source === "typed" && (
              <>
                {field("fixedMs")}
                {field("perSampleMs")}
              </>
            )}
            {state.source === "points" && field("points", { multiline: true })}
            {state.source === "profile" &&
              (profiles.length > 0 ? (
                <>
                  {field("profile")}
                  {field("threads")}
                </>
              ) : (
                <p className="field-error" data-testid="no-profiles">
                  No model profiles are available yet: type T(B) or paste profiled points.
                </p>
              ))}
          </FieldGroup>
          <FieldGroup title="Traffic and SLO">
            {field("rate")}
            {field("slo")}
          </FieldGroup>
          <FieldGroup title="Frontier candidates">
            {field("windows")}
            {field("batches")}
            {field("frontierBatch")}
            {field("limit")}
          </FieldGroup>
          <FieldGroup title="Candidate to validate">
            <div className="field-pair">
              {field("cWindow")}
              {field("cBatch")}
            </div>
            {field("memCap")}
            {field("fraction")}
          </FieldGroup>
          <FieldGroup title="Knee chart">{field("kneeWindow")}</FieldGroup>
        </form>

        <div className="planner-results">
          {view.service && !view.service.ok && <ModelMessage message={view.service.message} testId="service-message" />}

          <section className="card planner-card" data-testid="validator">
            <h2>
              Validator: T_w = {state.cWindow} ms, B_max = {state.cBatch} <ModelBadge />
              {validator && (
                <span
                  className={`fit-state ${validator.validation.pass ? "ok" : "bad"}`}
                  data-testid="validator-verdict"
                >
                  {validator.validation.pass ? "passes" : "fails"}
                </span>
              )}
            </h2>
            {validator ? (
              <>
                <div className="summary-strip compact-strip" data-testid="table10-card">
                  <SummaryTile
                    label="Window budget"
                    value={formatMs(validator.card.maxWindowMs)}
                    sub={`${state.fraction} × ${formatMs(slo)}`}
                  />
                  <SummaryTile
                    label="Request-seen batch, mean"
                    value={formatSig(validator.card.expectedSeenBatch, 4)}
                    sub={`1 + λT_w, λT_w = ${formatSig(validator.card.poissonMean, 4)}`}
                    testId="seen-mean"
                  />
                  <SummaryTile
                    label="Request-seen p99 batch"
                    value={formatFixed(validator.card.p99SeenBatch, 0)}
                    sub="1 + Poisson₀.₉₉(λT_w)"
                    testId="seen-p99"
                  />
                  <SummaryTile
                    label="p99 envelope"
                    value={formatMs(validator.card.envelopeMs)}
                    sub="T_w + T(p99 batch)"
                    testId="envelope"
                  />
                  <SummaryTile
                    label="Capacity B/T(B)"
                    value={formatRate(validator.card.capacityPerS, "/s", 4)}
                    sub={`${formatRate(validator.card.deratedCapacityPerS, "/s", 4)} at η 0.89; offered ${formatRate(validator.card.offeredPerS, "/s")}`}
                    testId="capacity"
                  />
                </div>
                <table className="data compact-table checks-table" data-testid="checks">
                  <thead>
                    <tr>
                      <th>Check</th>
                      <th>Result</th>
                      <th>Numbers</th>
                    </tr>
                  </thead>
                  <tbody>
                    {validator.validation.checks.map((c) => (
                      <tr key={c.id} data-testid={`check-${c.id}`}>
                        <td>{CHECK_LABELS[c.id] ?? c.id}</td>
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
                {proposeHref && (
                  <p>
                    {href ? (
                      <Link className="btn-link" href={href} data-testid="propose">
                        Propose this
                      </Link>
                    ) : null}{" "}
                    {proposeNote && (
                      <span className="muted small" data-testid="propose-note">
                        {proposeNote}
                      </span>
                    )}
                  </p>
                )}
                <p className="muted small">
                  Passing clears these screens only: worker backlog and the request&apos;s other stages still need a
                  load test.
                </p>
              </>
            ) : (
              <p className="muted">
                {view.validator && !view.validator.ok
                  ? view.validator.message
                  : "Fix the inputs marked in red to validate the candidate."}
              </p>
            )}
          </section>

          <ChartFrame
            title={`Pareto frontier at ${state.rate} req/s`}
            units={`x: p99 latency envelope ${state.frontierBatch === "seen" ? "T_w + T(request-seen p99 batch at λ)" : "T_w + T(B_max)"} (ms) · y: saturated throughput B_max/T(B_max) (req/s)`}
            csv={view.paretoCsv}
            testId="pareto-chart"
            empty={
              pareto
                ? null
                : view.pareto && !view.pareto.ok
                  ? view.pareto.message
                  : "Fix the inputs marked in red to draw the frontier."
            }
            note={
              pareto && (
                <span data-testid="pareto-note">
                  {pareto.frontier.length} on the frontier (joined as a staircase), {pareto.dominated.length} dominated
                  (faded)
                  {pareto.unstable.length > 0
                    ? `, ${pareto.unstable.length} unstable at this rate (capacity ≤ λ) and left off`
                    : ""}
                  .{" "}
                  {pareto.batchMode === "full"
                    ? "Full batches: the conservative envelope of the chapter's frontier."
                    : "Request-seen batches at λ: a short window sees small batches, so the smallest window with the largest cap tends to dominate."}{" "}
                  {pareto.limitMs === null ? (
                    "Type a latency limit to highlight the best configuration under it."
                  ) : pareto.best ? (
                    <strong data-testid="best-config">
                      Best under {formatMs(pareto.limitMs)}: T_w = {formatFixed(pareto.best.windowMs, 3)} ms, B_max ={" "}
                      {pareto.best.maxBatch}: {formatRate(pareto.best.throughputPerS)}, envelope{" "}
                      {formatMs(pareto.best.envelopeMs)}, mean {formatMs(pareto.best.meanLatencyMs)}.
                    </strong>
                  ) : (
                    <strong data-testid="best-config">
                      No stable candidate&apos;s envelope fits {formatMs(pareto.limitMs)}.
                    </strong>
                  )}
                </span>
              )
            }
          >
            {pareto && (
              <XYChart
                xKey="envelopeMs"
                xScale={xAxis.scale}
                xLabel={
                  xAxis.scale === "log" ? "p99 (ms, log scale: measured far above the model)" : "p99 envelope (ms)"
                }
                yLabel="throughput (req/s)"
                xDomain={xAxis.domain}
                xTicks={xAxis.ticks}
                yDomain={[
                  0,
                  niceTicks(
                    Math.max(
                      1,
                      ...pareto.stable.map((p) => p.throughputPerS),
                      ...measuredPoints.map((m) => m.throughputPerS),
                    ) * 1.08,
                  ).top,
                ]}
                formatX={(v) => formatSig(v, 3)}
                formatY={(v) => formatSig(v, 3)}
                lines={[
                  {
                    key: "throughputPerS",
                    label: "frontier (model)",
                    color: "#2f6fed",
                    shape: "step",
                    dots: true,
                    data: pareto.frontier.map((p) => ({ envelopeMs: p.envelopeMs, throughputPerS: p.throughputPerS })),
                  },
                ]}
                points={[
                  {
                    key: "dominated",
                    label: "dominated (model)",
                    color: "#94a3b8",
                    opacity: 0.35,
                    points: pareto.dominated.map((p) => ({ x: p.envelopeMs, y: p.throughputPerS })),
                  },
                  ...(measuredPoints.length > 0
                    ? [
                        {
                          key: "measured",
                          label: measuredLabel,
                          color: "#d61f69",
                          shape: "diamond" as const,
                          points: measuredPoints.map((m) => ({ x: m.p99Ms, y: m.throughputPerS })),
                        },
                      ]
                    : []),
                ]}
                references={paretoRefs}
                markers={bestMarker}
                height={330}
              />
            )}
          </ChartFrame>

          {measuredPoints.length > 0 && (
            <section className="card planner-card" data-testid="measured-vs-model">
              <h2>Measured vs model</h2>
              <p className="muted small">
                Each measured point is a load test of that (window, max batch) on the deployment at the sweep&apos;s
                offered rate: its p99 beside the model&apos;s envelope (
                {state.frontierBatch === "seen" ? "request-seen p99 batch at λ" : "full batches"}) and its achieved
                throughput beside the model&apos;s saturated capacity B_max/T(B_max). A measured point can only reach
                the offered rate.
              </p>
              <table className="data compact-table">
                <thead>
                  <tr>
                    <th>T_w / B_max</th>
                    <th>measured p99</th>
                    <th>model envelope</th>
                    <th>gap</th>
                    <th>measured throughput</th>
                    <th>model capacity</th>
                  </tr>
                </thead>
                <tbody>
                  {gapRows(
                    measuredPoints.map((m) => ({
                      windowMs: m.windowMs,
                      maxBatch: m.maxBatch,
                      p99Ms: m.p99Ms,
                      okPerS: m.throughputPerS,
                      offeredPerS: m.offeredPerS ?? null,
                      error: null,
                    })),
                    (c) => (service ? modelPointFor(service.model, c, Number(state.rate), state.frontierBatch) : null),
                  ).map((r) => (
                    <tr key={r.candidate} data-testid="gap-row">
                      <td>{r.candidate}</td>
                      <td className="num">{r.measuredP99}</td>
                      <td className="num">{r.modelEnvelope}</td>
                      <td className="num">{r.p99Gap}</td>
                      <td className="num">{r.measuredThroughput}</td>
                      <td className="num">{r.modelCapacity}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}

          <ChartFrame
            title="Throughput–latency knee (Figure 6)"
            units={`x: batch size (log scale) · left y: throughput (req/s) · right y: T_w + T(B) (ms), T_w = ${state.kneeWindow} ms`}
            csv={view.kneeCsv}
            testId="knee-chart"
            empty={
              knee
                ? null
                : view.knee && !view.knee.ok
                  ? view.knee.message
                  : "Fix the inputs marked in red to draw the knee."
            }
            note={
              knee && (
                <span data-testid="knee-note">
                  {knee.kneeBatch === null
                    ? "No knee: the per-sample time is zero, so latency never grows with the batch."
                    : `Knee B* = (T_w + F)/s ≈ ${formatSig(knee.kneeBatch, 4)}: latency ${formatMs(knee.kneeLatencyMs)} (twice T_w + F), unpipelined throughput ${formatRate(knee.kneeThroughputPerS)} (half the ceiling 1/s).`}{" "}
                  Unpipelined waits out the window before each batch; pipelined overlaps formation with execution
                  (B/T(B)).
                </span>
              )
            }
          >
            {knee && (
              <XYChart
                rows={knee.rows as unknown as Record<string, number>[]}
                xKey="batch"
                xScale="log"
                xDomain={[1, 1024]}
                xTicks={KNEE_TICKS}
                xLabel="batch size B (log scale)"
                yLabel="throughput (req/s)"
                yRightLabel="latency (ms)"
                formatX={(v) => formatFixed(v, 0)}
                formatY={(v) => formatSig(v, 3)}
                formatYRight={(v) => formatSig(v, 3)}
                lines={[
                  { key: "pipelinedThroughputPerS", label: "pipelined B/T(B)", color: "#2f6fed" },
                  { key: "unpipelinedThroughputPerS", label: "unpipelined B/(T_w + T(B))", color: "#0f9488" },
                  { key: "latencyMs", label: "T_w + T(B) (ms)", color: "#d64545", axis: "right", dashed: true },
                ]}
                references={
                  knee.kneeBatch !== null && knee.kneeBatch <= 1024
                    ? [
                        {
                          axis: "x",
                          value: knee.kneeBatch,
                          label: `knee ≈ ${formatSig(knee.kneeBatch, 3)}`,
                          color: "#111827",
                          labelPosition: "insideTopLeft",
                        },
                      ]
                    : []
                }
                height={300}
              />
            )}
          </ChartFrame>

          <ChartFrame
            title="Service-time fit"
            units="x: batch size · y: batch latency T(B) (ms) · points: profiled, line: the fit"
            csv={view.fitCsv}
            testId="fit-chart"
            modeled={false}
            empty={
              service?.fit
                ? null
                : service
                  ? `Typed model: ${service.formula}. Choose "fit to profiled points" to fit a profile and see its residuals.`
                  : "Fix the inputs marked in red."
            }
            note={
              service?.fit ? (
                <span data-testid="fit-formula">
                  {service.formula}. {service.fit.reason}.
                </span>
              ) : undefined
            }
          >
            {service?.fit && (
              <div className="two-col fit-grid">
                <XYChart
                  rows={service.fitLine}
                  xKey="batch"
                  xLabel="batch size B"
                  yLabel="T(B) (ms)"
                  formatX={(v) => formatSig(v, 3)}
                  formatY={(v) => formatSig(v, 4)}
                  lines={[{ key: "predictedMs", label: "fit", color: "#2f6fed" }]}
                  points={[
                    {
                      key: "latencyMs",
                      label: "profiled",
                      color: "#111827",
                      points: chosenResiduals(service.fit).residuals.map((r) => ({ x: r.batch, y: r.latencyMs })),
                    },
                  ]}
                  height={240}
                />
                <table className="data compact-table" data-testid="residuals">
                  <thead>
                    <tr>
                      <th>B</th>
                      <th>measured</th>
                      <th>fit</th>
                      <th>residual</th>
                    </tr>
                  </thead>
                  <tbody>
                    {chosenResiduals(service.fit).residuals.map((r) => (
                      <tr key={r.batch}>
                        <td className="num">{formatFixed(r.batch, 3)}</td>
                        <td className="num">{formatMs(r.latencyMs)}</td>
                        <td className="num">{formatMs(r.predictedMs)}</td>
                        <td className="num">
                          {formatMs(r.residualMs, 2)} ({formatPercent(r.relativeResidual, 2)})
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </ChartFrame>

          {service && (
            <Figures
              testId="service-model"
              items={[
                { label: "Service-time model", value: service.formula },
                {
                  label: "Source",
                  value:
                    state.source === "typed"
                      ? "typed"
                      : state.source === "points"
                        ? "fitted to the profiled points"
                        : "a model's profile",
                },
              ]}
            />
          )}
        </div>
      </div>
    </>
  );
}
