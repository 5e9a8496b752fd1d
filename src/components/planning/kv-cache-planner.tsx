"use client";
import { useMemo } from "react";
import { ChartFrame, ModelBadge } from "@/components/charts/chart-frame";
import { StackedBarChart } from "@/components/charts/stacked-bar-chart";
import { XYChart } from "@/components/charts/xy-chart";
import {
  formatBytes,
  formatBytesExact,
  formatCount,
  formatFixed,
  formatGB,
  formatGiB,
  formatMs,
  formatPercent,
  formatSig,
  formatTimes,
} from "@/lib/planning/format";
import { BYTES_PER_GB } from "@/lib/planning/format";
import { niceTicks } from "@/lib/planning/axis";
import {
  KV_PRESETS,
  computeKvCache,
  kvCacheSpec,
  type KvCacheField,
  type KvCacheState,
  type SizingView,
} from "./kv-cache-data";
import { Field, FieldGroup, Figures, ModelMessage, PresetBar, SummaryTile, matchingPreset } from "./planner-controls";
import { usePlannerState } from "./use-planner-state";

const LINE_COLORS = ["#94a3b8", "#2f6fed", "#0f9488", "#d64545", "#8b5cf6", "#c77700", "#db2777"];
const SEGMENT_COLORS: Record<string, string> = {
  weights: "#64748b",
  reserve: "#c7a76b",
  kv: "#2f6fed",
  free: "#dbe7d4",
  over: "#d64545",
};
const DECODE_TICKS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

const REASONS: Record<string, string> = {
  "weights-fill-memory": "the weights and reserve alone fill the memory",
  "one-sequence-exceeds-budget": "one sequence's cache is larger than the memory left",
  "one-token-per-sequence-exceeds-budget": "not even one token per sequence fits",
  "request-exceeds-budget": "the chosen load's cache is larger than the memory left",
};

/** The KV-cache budget planner: sizing, the memory bar, Figure 8, decode, and the speculative decoding calculator. */
export function KvCachePlanner({ initial }: { initial: KvCacheState }) {
  const { state, setField, setState } = usePlannerState(kvCacheSpec, initial);
  const view = useMemo(() => computeKvCache(state), [state]);
  const field = (k: KvCacheField, extra: { unitOverride?: React.ReactNode } = {}) => (
    <Field
      name={k}
      spec={kvCacheSpec[k]}
      value={state[k]}
      error={view.errors[k]}
      onChange={(v) => setField(k, v)}
      {...extra}
    />
  );
  const s = view.sizing?.ok ? view.sizing.value : null;
  const f8 = view.figure8;
  const dec = view.decode?.ok ? view.decode.value : null;
  const spec = view.speculative?.ok ? view.speculative.value : null;
  const context = Number(state.context);

  const unitSelect = (
    <select
      aria-label="Memory unit"
      className="unit-select"
      value={state.memoryUnit}
      data-testid="field-memoryUnit"
      onChange={(e) => setField("memoryUnit", e.target.value)}
    >
      {kvCacheSpec.memoryUnit.options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.value}
        </option>
      ))}
    </select>
  );

  return (
    <>
      <PresetBar
        presets={KV_PRESETS}
        activeId={matchingPreset(KV_PRESETS, state)}
        onSelect={(id) => setState(KV_PRESETS.find((p) => p.id === id)!.state)}
      />
      <div className="planner">
        <form className="planner-inputs" onSubmit={(e) => e.preventDefault()} aria-label="KV cache inputs">
          <FieldGroup title="Model">
            <div className="field-pair">
              {field("layers")}
              {field("headDim")}
            </div>
            <div className="field-pair">
              {field("kvHeads")}
              {field("queryHeads")}
            </div>
            {field("dtype")}
          </FieldGroup>
          <FieldGroup title="Load">
            {field("context")}
            {field("concurrency")}
            {field("beam")}
          </FieldGroup>
          <FieldGroup title="Accelerator">
            {field("memory", { unitOverride: unitSelect })}
            {field("weights")}
            {field("reserve")}
            {field("bandwidth")}
          </FieldGroup>
          <FieldGroup title="Speculative decoding">
            {field("draft")}
            <div className="field-pair">
              {field("alpha")}
              {field("gamma")}
            </div>
          </FieldGroup>
        </form>

        <div className="planner-results">
          {view.sizing && !view.sizing.ok && <ModelMessage message={view.sizing.message} testId="sizing-message" />}
          {s && (
            <div className="summary-strip" data-testid="kv-summary">
              <SummaryTile
                label="KV bytes per token"
                value={formatBytesExact(s.bytesPerToken)}
                sub={`2 × layers × KV heads × head dim × ${formatSig(s.bytesPerToken / (2 * Number(state.layers) * Number(state.kvHeads) * Number(state.headDim)), 2)} B${s.gqaFactor && s.gqaFactor > 1 ? ` · GQA ${formatSig(s.gqaFactor, 3)}× smaller` : ""}`}
                testId="bytes-per-token"
              />
              <SummaryTile
                label="Per sequence"
                value={formatGB(s.bytesPerSequence)}
                sub={`${formatCount(context)} tokens${state.beam !== "1" ? ` × beam ${state.beam}` : ""}`}
                testId="bytes-per-sequence"
              />
              <SummaryTile
                label="Sequences that fit"
                value={s.sequences.fits ? formatCount(s.sequences.sequences) : "0"}
                sub={`${formatGB(Math.max(0, s.budgetBytes))} for KV of ${formatGB(s.deviceBytes)}`}
                status={s.sequences.fits ? undefined : "bad"}
                testId="sequences-fit"
              />
              <SummaryTile
                label={`${formatCount(Number(state.concurrency))} × ${formatCount(context)} tokens`}
                value={s.load.fits ? "fits" : "does not fit"}
                sub={
                  s.load.fits
                    ? `${formatGB(s.load.headroomBytes)} to spare`
                    : `short by ${formatGB(s.load.shortfallBytes)}`
                }
                status={s.load.fits ? "ok" : "bad"}
                testId="load-fit"
              />
            </div>
          )}
          {s && !s.load.fits && <DoesNotFit s={s} concurrency={state.concurrency} context={context} />}

          <ChartFrame
            title="Accelerator memory"
            units={`x: memory (GB, 10⁹ B) · weights, reserve, the chosen load's KV cache, and what is left · dashed: the device (${s ? `${formatGB(s.deviceBytes)} = ${formatGiB(s.deviceBytes)}` : "—"})`}
            csv={view.memoryCsv}
            testId="memory-chart"
            empty={s ? null : "Fix the inputs marked in red to size the cache."}
          >
            {s && (
              <StackedBarChart
                rows={[
                  Object.fromEntries([
                    ["bar", "device"],
                    ...view.memoryBar.map((m) => [m.key, m.bytes / BYTES_PER_GB]),
                  ]),
                ]}
                categoryKey="bar"
                segments={view.memoryBar.map((m) => ({ key: m.key, label: m.label, color: SEGMENT_COLORS[m.key]! }))}
                valueLabel="memory (GB)"
                references={[
                  { value: s.deviceBytes / BYTES_PER_GB, label: `device ${formatGB(s.deviceBytes)}`, color: "#111827" },
                ]}
                domainMax={niceTicks((view.memoryBar.reduce((sum, m) => sum + m.bytes, 0) / BYTES_PER_GB) * 1.04).top}
                formatValue={(v) => formatSig(v, 3)}
                height={150}
                categoryWidth={58}
              />
            )}
          </ChartFrame>

          <ChartFrame
            title="Concurrency vs context (Figure 8)"
            units="x: context length (tokens) · y: KV cache (GB) for each batch of sequences · dashed red: memory left for KV"
            csv={view.figure8Csv}
            testId="figure8-chart"
            empty={f8 ? null : "Fix the inputs marked in red to draw Figure 8."}
            note={
              f8 && (
                <span data-testid="figure8-crossings">
                  Longest context that fits:{" "}
                  {f8.lines.map((l, i) => (
                    <span key={l.batch}>
                      {i > 0 && " · "}
                      batch {l.batch}: {l.crossingTokens === null ? "none" : `${formatCount(l.crossingTokens)} tokens`}
                    </span>
                  ))}
                  . Before runtime overhead; paged allocation wastes at most one partial block per sequence.
                </span>
              )
            }
          >
            {f8 && (
              <XYChart
                rows={f8.rows}
                xKey="context"
                xLabel="context (tokens)"
                yLabel="KV cache (GB)"
                xDomain={[0, f8.xMaxTokens]}
                xTicks={Array.from({ length: 9 }, (_, i) => (f8.xMaxTokens * i) / 8)}
                yDomain={[0, f8.yMaxGB]}
                formatX={formatTokens}
                formatY={(v) => formatSig(v, 3)}
                lines={f8.lines.map((l, i) => ({
                  key: `b${l.batch}`,
                  label: `batch ${l.batch}`,
                  color: LINE_COLORS[i % LINE_COLORS.length]!,
                  width: String(l.batch) === state.concurrency ? 3.5 : 2,
                }))}
                references={[
                  {
                    axis: "y",
                    value: f8.budgetGB,
                    label: `KV budget ${formatSig(f8.budgetGB, 3)} GB`,
                    color: "#d64545",
                    labelPosition: "insideBottomRight",
                  },
                  { axis: "x", value: context, label: `context ${formatCount(context)}`, color: "#64748b" },
                ]}
                height={320}
              />
            )}
          </ChartFrame>

          <ChartFrame
            title="Decode floor and throughput vs batch"
            units="x: decode batch (sequences, log scale) · left y: time per output token (ms) · right y: aggregate tokens/s · bandwidth bound, at the chosen context"
            csv={view.decodeCsv}
            testId="decode-chart"
            empty={
              dec
                ? null
                : view.decode && !view.decode.ok
                  ? view.decode.message
                  : "Fix the inputs marked in red to draw the decode curves."
            }
            note={
              dec &&
              s && (
                <span data-testid="decode-floor">
                  Floor (weights only, one captured graph): {formatMs(dec.floorMs)} per token ={" "}
                  {formatSig(dec.floorMs > 0 ? 1000 / dec.floorMs : null, 4)} tokens/s. Each step also reads every
                  sequence&apos;s cache: batching shares the weight read, not the cache reads.{" "}
                  {s.sequences.fits
                    ? `The cache holds at most ${formatCount(s.sequences.sequences)} such sequences.`
                    : "No sequence of this context fits."}
                </span>
              )
            }
          >
            {dec && (
              <XYChart
                rows={dec.rows.map((r) => ({ batch: r.batch, stepMs: r.stepMs, tokensPerS: r.tokensPerS }))}
                xKey="batch"
                xScale="log"
                xDomain={[1, 256]}
                xTicks={DECODE_TICKS}
                xLabel="batch (sequences)"
                yLabel="TPOT (ms)"
                yRightLabel="tokens/s (all sequences)"
                formatX={(v) => formatFixed(v, 0)}
                formatY={(v) => formatSig(v, 3)}
                formatYRight={(v) => formatSig(v, 3)}
                lines={[
                  { key: "stepMs", label: "time per output token (ms)", color: "#d64545", dots: true },
                  { key: "tokensPerS", label: "aggregate tokens/s", color: "#2f6fed", axis: "right", dots: true },
                ]}
                references={
                  s?.sequences.fits && s.sequences.sequences <= 256
                    ? [
                        {
                          axis: "x",
                          value: Math.max(1, s.sequences.sequences),
                          label: `KV fits ≤ ${formatCount(s.sequences.sequences)}`,
                          color: "#64748b",
                          labelPosition: "insideTopLeft",
                        },
                      ]
                    : []
                }
                height={300}
              />
            )}
          </ChartFrame>

          <section className="card planner-card" data-testid="speculative">
            <h2>
              Speculative decoding (Eq. 15) <ModelBadge />
            </h2>
            {spec ? (
              <>
                <Figures
                  items={[
                    {
                      label: "Tokens per target pass E",
                      value: formatSig(spec.expectedTokens, 5),
                      note: `(1 − α^(γ+1)) / (1 − α) at α = ${state.alpha}, γ = ${state.gamma}`,
                      testId: "spec-expected",
                    },
                    {
                      label: "Draft steps",
                      value: `${state.gamma} × ${formatMs(spec.draftStepMs)}`,
                      note: "draft weights ÷ bandwidth each",
                    },
                    {
                      label: "Verify pass",
                      value: formatMs(spec.targetVerifyMs),
                      note: "one target weight stream at batch 1",
                    },
                    { label: "Time per generated token", value: formatMs(spec.timePerTokenMs), testId: "spec-time" },
                    {
                      label: "Speed-up over plain decode",
                      value: formatTimes(spec.speedup),
                      note:
                        spec.speedup < 1
                          ? "a net loss: turn it off at this acceptance"
                          : "batch-1 decode; the gain shrinks as the batch grows",
                      testId: "spec-speedup",
                    },
                  ]}
                />
                <div className="spacer" />
                <ChartFrame
                  title="Speculative speed-up vs acceptance"
                  units="x: acceptance α · y: speed-up over plain decode (×), one line per draft length γ · dashed: break-even"
                  csv={view.speculativeCsv}
                  testId="speculative-chart"
                >
                  <XYChart
                    rows={spec.curve}
                    xKey="alpha"
                    xLabel="acceptance α"
                    yLabel="speed-up (×)"
                    xDomain={[0, 1]}
                    xTicks={[0, 0.2, 0.4, 0.6, 0.8, 1]}
                    formatX={(v) => formatSig(v, 2)}
                    formatY={(v) => formatSig(v, 3)}
                    lines={spec.gammas.map((g, i) => ({
                      key: `g${g}`,
                      label: `γ = ${g}`,
                      color: LINE_COLORS[(i + 1) % LINE_COLORS.length]!,
                      width: String(g) === state.gamma ? 3.5 : 2,
                    }))}
                    references={[
                      {
                        axis: "y",
                        value: 1,
                        label: "break-even",
                        color: "#64748b",
                        labelPosition: "insideBottomRight",
                      },
                    ]}
                    markers={[
                      {
                        x: Number(state.alpha),
                        y: spec.speedup,
                        label: `${formatTimes(spec.speedup, 3)}`,
                        color: "#111827",
                        r: 6,
                      },
                    ]}
                    height={260}
                  />
                </ChartFrame>
              </>
            ) : (
              <p className="muted">
                {view.speculative && !view.speculative.ok
                  ? view.speculative.message
                  : "Fix the inputs marked in red to estimate speculative decoding."}
              </p>
            )}
          </section>
        </div>
      </div>
    </>
  );
}

function DoesNotFit({ s, concurrency, context }: { s: SizingView; concurrency: string; context: number }) {
  if (s.load.fits) return null;
  return (
    <div className="error-box does-not-fit" role="alert" data-testid="does-not-fit">
      <strong>Does not fit.</strong> {concurrency} sequences × {formatCount(context)} tokens need{" "}
      {formatGB(s.load.cacheBytes)} of KV cache; {REASONS[s.load.reason] ?? s.load.reason}. Needed in all{" "}
      {formatGB(s.load.requiredBytes)} against {formatGB(s.deviceBytes)}:{" "}
      <strong data-testid="shortfall">short by {formatGB(s.load.shortfallBytes)}</strong> (
      {formatBytes(s.load.shortfallBytes)}). At this context{" "}
      {s.sequences.fits ? `${formatCount(s.sequences.sequences)} sequences fit` : "no sequence fits"}
      {s.contextAtConcurrency.fits
        ? `; at ${concurrency} sequences, ${formatCount(s.contextAtConcurrency.contextTokens)} tokens each fit`
        : ""}
      . Used: {formatPercent(s.load.requiredBytes / s.deviceBytes, 0)} of the device.
    </div>
  );
}

/** Token counts on an axis: 8,192 reads "8k", as context lengths are named; other values in full. */
function formatTokens(v: number): string {
  if (v > 0 && v % 1024 === 0) return `${formatFixed(v / 1024, 0)}k`;
  return formatFixed(v, 0);
}
