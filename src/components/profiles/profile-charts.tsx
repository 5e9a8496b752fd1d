"use client";
// A profile's line charts (Packrat Figures 1–2): latency, speedup and parallel efficiency vs threads per batch size;
// throughput and per-sample latency vs batch size per thread count. Measurements, not models: no model badge.
import { ChartFrame } from "@/components/charts/chart-frame";
import { XYChart, type XYLine } from "@/components/charts/xy-chart";
import { formatFixed, formatPercent, formatSig } from "@/lib/planning/format";
import type { ProfileCellData, ProfileGrid } from "./profile-grid-data";
import {
  latencyVsThreads,
  perSampleLatencyVsBatch,
  scalingVsThreads,
  seriesCsvTable,
  threadsVerdicts,
  throughputVsBatch,
  type ChartSeries,
} from "./profile-series-data";

const COLORS = [
  "#2f6fed",
  "#d64545",
  "#1f9d55",
  "#c77700",
  "#7c3aed",
  "#0891b2",
  "#be185d",
  "#4d7c0f",
  "#92400e",
  "#475569",
  "#0f766e",
  "#9333ea",
  "#b91c1c",
];

const ascending = (xs: readonly number[]) => [...new Set(xs)].sort((a, b) => a - b);

/** At most ~12 ticks: every value for small grids, every k-th for T = 64. */
function thin(values: readonly number[]): number[] {
  const step = Math.ceil(values.length / 12);
  return values.filter((_, i) => i % step === 0 || i === values.length - 1);
}

function lines(chart: ChartSeries): XYLine[] {
  return chart.series.map((s, i) => ({ key: s.key, label: s.label, color: COLORS[i % COLORS.length]!, dots: true }));
}

export function ProfileCharts({ grid, cells }: { grid: ProfileGrid; cells: readonly ProfileCellData[] }) {
  const threads = ascending(grid.threads);
  const batches = ascending(grid.batches);
  const latency = latencyVsThreads(grid, cells);
  const { speedup, efficiency, baselines } = scalingVsThreads(grid, cells);
  const throughput = throughputVsBatch(grid, cells);
  const perSample = perSampleLatencyVsBatch(grid, cells);
  const verdicts = threadsVerdicts(grid, cells);
  const fromOne = [...baselines.values()].every((t0) => t0 === 1);
  // Domains padded a little past the first and last measured value, so the end points' dots are not cut in half.
  const [t0, tN] = [threads[0]!, threads[threads.length - 1]!];
  const [b0, bN] = [batches[0]!, batches[batches.length - 1]!];
  const tPad = Math.max(0.05, (tN - t0) * 0.03);
  const bPad = Math.max(1.05, (bN / b0) ** 0.03);
  const tAxis = {
    xKey: "threads",
    xLabel: "intra-op threads t",
    xDomain: [t0 - tPad, tN + tPad] as [number, number],
    xTicks: thin(threads),
    formatX: (v: number) => String(v),
  };
  const bAxis = {
    xKey: "batch",
    xLabel: "batch size b (samples, log scale)",
    xScale: "log" as const,
    xDomain: [b0 / bPad, bN * bPad] as [number, number],
    xTicks: thin(batches),
    formatX: (v: number) => String(v),
  };
  // The ideal speedup line S = t / t₀, drawn over the thread axis when every batch size is measured from t = 1.
  const ideal = fromOne ? speedup.rows.map((r) => ({ threads: r.threads!, ideal: r.threads! })) : [];

  return (
    <div className="profile-charts">
      <ChartFrame
        title="Latency vs threads"
        units="x: intra-op threads t · y: mean batch latency L(t, b) in ms · one line per batch size b"
        csv={seriesCsvTable(latency, "threads", "ms")}
        testId="profile-latency-threads"
        modeled={false}
        empty={latency.empty}
      >
        <XYChart
          rows={latency.rows}
          {...tAxis}
          yLabel="mean batch latency (ms)"
          lines={lines(latency)}
          formatY={(v) => formatSig(v, 3)}
          height={300}
        />
      </ChartFrame>
      <ChartFrame
        title="Speedup vs threads"
        units={`x: threads t · y: speedup L(${fromOne ? "1" : "t₀"}, b) / L(t, b), × · dashed: ideal (t / t₀)`}
        csv={seriesCsvTable(speedup, "threads", "speedup")}
        testId="profile-speedup"
        modeled={false}
        empty={speedup.empty}
        note={
          verdicts.length > 0 && (
            <span data-testid="threads-verdicts">
              Where threads stop paying:{" "}
              {verdicts
                .map(
                  (v) =>
                    `b = ${v.batch}: fastest at t = ${v.bestThreads} (${formatFixed(v.bestSpeedup, 2)}× over t = ${v.baselineThreads}), efficiency ≥ 50% ${v.efficientUpTo === null ? "at no step" : `up to t = ${v.efficientUpTo}`}`,
                )
                .join("; ")}
              .
            </span>
          )
        }
      >
        <XYChart
          rows={speedup.rows}
          {...tAxis}
          yLabel="speedup (×)"
          lines={[
            ...lines(speedup),
            ...(ideal.length
              ? [{ key: "ideal", label: "ideal (= t)", color: "#94a3b8", dashed: true, data: ideal, width: 1.5 }]
              : []),
          ]}
          formatY={(v) => `${formatSig(v, 3)}×`}
          height={300}
        />
      </ChartFrame>
      <ChartFrame
        title="Parallel efficiency vs threads"
        units="x: threads t · y: efficiency = speedup × t₀ / t, % (100% = every added core pays in full)"
        csv={seriesCsvTable(efficiency, "threads", "efficiency")}
        testId="profile-efficiency"
        modeled={false}
        empty={efficiency.empty}
      >
        <XYChart
          rows={efficiency.rows}
          {...tAxis}
          yLabel="parallel efficiency (%)"
          lines={lines(efficiency)}
          references={[{ axis: "y", value: 0.5, label: "50%", color: "#c77700", labelPosition: "insideTopRight" }]}
          formatY={(v) => formatPercent(v, 0)}
          height={300}
        />
      </ChartFrame>
      <ChartFrame
        title="Throughput vs batch size"
        units="x: batch size b (log scale) · y: b / L(t, b) × 1000, samples/s · one line per thread count t"
        csv={seriesCsvTable(throughput, "batch", "samples_per_s")}
        testId="profile-throughput"
        modeled={false}
        empty={throughput.empty}
      >
        <XYChart
          rows={throughput.rows}
          {...bAxis}
          yLabel="throughput (samples/s)"
          lines={lines(throughput)}
          formatY={(v) => formatSig(v, 3)}
          height={300}
        />
      </ChartFrame>
      <ChartFrame
        title="Per-sample latency vs batch size"
        units="x: batch size b (log scale) · y: L(t, b) / b, ms per sample · one line per thread count t"
        csv={seriesCsvTable(perSample, "batch", "ms_per_sample")}
        testId="profile-per-sample"
        modeled={false}
        empty={perSample.empty}
      >
        <XYChart
          rows={perSample.rows}
          {...bAxis}
          yLabel="latency per sample (ms)"
          lines={lines(perSample)}
          formatY={(v) => formatSig(v, 3)}
          height={300}
        />
      </ChartFrame>
    </div>
  );
}
