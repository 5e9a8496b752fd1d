// What the batching planner's charts draw beside the model: load-tested points, the fit's residuals, and the
// frontier chart's x axis, which turns logarithmic when a measurement sits far from the model.
import type { ServiceTimeFit } from "@/core/batching/service-time-fit";
import { niceTicks } from "@/lib/planning/axis";

/** A load-tested (window, max batch) configuration, drawn over the model when load tests exist. */
export interface MeasuredBatchingPoint {
  windowMs: number;
  maxBatch: number;
  throughputPerS: number;
  p99Ms: number;
  /** The rate the load test offered (its throughput can be no more). */
  offeredPerS?: number;
}

/** Residuals of the model the fit chose, for the table under the fit chart. */
export function chosenResiduals(fit: ServiceTimeFit) {
  return fit.chosen === "affine" ? fit.affine : fit.twoSegment!;
}

/**
 * The frontier chart's x axis (p99 envelope, ms): linear from 0 while the measured points sit near the model; when a
 * measured p99 is more than 5× the model's largest value (or the SLO), a log axis over whole decades so the model's
 * frontier stays readable beside the measurement.
 */
export function paretoXAxis(
  modelXs: readonly number[],
  measuredXs: readonly number[],
  sloMs: number,
): { scale: "linear" | "log"; domain: [number, number]; ticks: number[] } {
  const modelTop = Math.max(Number.isFinite(sloMs) ? sloMs : 0, ...modelXs, 1);
  const measuredTop = Math.max(0, ...measuredXs);
  if (measuredTop <= 5 * modelTop) {
    const nice = niceTicks(Math.max(modelTop, measuredTop) * 1.02);
    return { scale: "linear", domain: [0, nice.top], ticks: nice.ticks };
  }
  const xs = [...modelXs, ...measuredXs, ...(Number.isFinite(sloMs) && sloMs > 0 ? [sloMs] : [])].filter((x) => x > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...xs)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...xs) * 1.0001));
  const ticks: number[] = [];
  for (let decade = lo; decade < hi * 1.0001; decade *= 10)
    for (const m of [1, 2, 5]) if (decade * m <= hi * 1.0001) ticks.push(Number((decade * m).toPrecision(12)));
  return { scale: "log", domain: [lo, hi], ticks };
}
