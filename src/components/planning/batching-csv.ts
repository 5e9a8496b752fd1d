// The batching planner's CSV exports (full precision): the knee's curve, the frontier's candidates, the fit's
// residuals.
import type { EvaluatedCandidate } from "@/core/batching/pareto-frontier";
import type { CsvTable } from "@/lib/planning/csv";
import type { KneeView, ParetoView, ServiceModelView } from "./batching-data";

export function kneeCsv(k: KneeView | null): CsvTable {
  return {
    columns: [
      "batch",
      "unpipelined_throughput_per_s",
      "pipelined_throughput_per_s",
      "window_plus_service_ms",
      "window_ms",
      "knee_batch",
    ],
    rows: k
      ? k.rows.map((r) => [
          r.batch,
          r.unpipelinedThroughputPerS,
          r.pipelinedThroughputPerS,
          r.latencyMs,
          k.windowMs,
          k.kneeBatch,
        ])
      : [],
  };
}

export function paretoCsv(p: ParetoView | null): CsvTable {
  const columns = [
    "window_ms",
    "max_batch",
    "throughput_per_s",
    "mean_latency_ms",
    "p99_envelope_ms",
    "status",
    "best_under_limit",
    "arrival_rate_per_s",
  ];
  if (!p) return { columns, rows: [] };
  const isBest = (c: EvaluatedCandidate) =>
    p.best !== null && p.best.windowMs === c.windowMs && p.best.maxBatch === c.maxBatch;
  const rows = [
    ...p.stable.map((c) => [
      c.windowMs,
      c.maxBatch,
      c.throughputPerS,
      c.meanLatencyMs,
      c.envelopeMs,
      c.onFrontier ? "frontier" : "dominated",
      isBest(c),
      p.arrivalRatePerS,
    ]),
    ...p.unstable.map((c) => [
      c.windowMs,
      c.maxBatch,
      c.throughputPerS,
      c.meanLatencyMs,
      c.envelopeMs,
      "unstable",
      false,
      p.arrivalRatePerS,
    ]),
  ];
  return { columns, rows };
}

export function fitCsv(s: ServiceModelView | null): CsvTable {
  const columns = ["batch", "measured_ms", "predicted_ms", "residual_ms", "relative_residual"];
  if (!s?.fit) return { columns, rows: [] };
  const chosen = s.fit.chosen === "affine" ? s.fit.affine : s.fit.twoSegment!;
  return {
    columns,
    rows: chosen.residuals.map((r) => [r.batch, r.latencyMs, r.predictedMs, r.residualMs, r.relativeResidual]),
  };
}
