import { PlanningInputError } from "../planning/errors";
import { finite, openUnit, positive } from "./guards";
import type { AffineServiceTime, ServiceTimeModel, TwoSegmentServiceTime } from "./service-time";

/**
 * Fits T(B) = F + s·B to profiled (batch, latency) points by least squares (F-23, digest §6.3 item 22). When one line
 * fits poorly (R² below 0.99 or a residual above 5% of the measured T(b)), it also fits two lines broken at the
 * profiled batch size with the least squared error, and says which model it chose and why.
 */

export interface ProfilePoint {
  batch: number;
  latencyMs: number;
}

export interface FitResidual {
  batch: number;
  latencyMs: number;
  predictedMs: number;
  /** measured − predicted */
  residualMs: number;
  /** |residual| / measured T(b) */
  relativeResidual: number;
}

export interface FitQuality {
  r2: number;
  /** Sum of squared residuals, ms². */
  sse: number;
  maxRelativeResidual: number;
  residuals: FitResidual[];
}

export interface AffineFit extends FitQuality {
  model: AffineServiceTime;
}

export interface TwoSegmentFit extends FitQuality {
  model: TwoSegmentServiceTime;
}

export interface ServiceTimeFit {
  model: ServiceTimeModel;
  chosen: "affine" | "two-segment";
  reason: string;
  affine: AffineFit;
  /** Present when the affine fit failed the quality bar and the profile has ≥ 4 distinct batch sizes. */
  twoSegment: TwoSegmentFit | null;
  thresholds: { minR2: number; maxRelativeResidual: number };
}

export interface FitOptions {
  /** Default 0.99. */
  minR2?: number;
  /** Default 0.05 (5% of T(b)). */
  maxRelativeResidual?: number;
}

interface Line {
  fixedMs: number;
  perSampleMs: number;
}

function distinctBatches(points: readonly ProfilePoint[]): number[] {
  return [...new Set(points.map((p) => p.batch))].sort((a, b) => a - b);
}

/** Ordinary least squares on centred sums, which recovers F and s from noiseless points to rounding error. */
function leastSquares(points: readonly ProfilePoint[]): Line {
  const n = points.length;
  let mx = 0;
  let my = 0;
  for (const p of points) {
    mx += p.batch;
    my += p.latencyMs;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.batch - mx) ** 2;
    sxy += (p.batch - mx) * (p.latencyMs - my);
  }
  const perSampleMs = sxy / sxx;
  return { fixedMs: my - perSampleMs * mx, perSampleMs };
}

function quality(points: readonly ProfilePoint[], predict: (batch: number) => number): FitQuality {
  let mean = 0;
  for (const p of points) mean += p.latencyMs;
  mean /= points.length;
  let sse = 0;
  let sst = 0;
  let maxRelativeResidual = 0;
  const residuals = points.map((p) => {
    const predictedMs = predict(p.batch);
    const residualMs = p.latencyMs - predictedMs;
    const relativeResidual = Math.abs(residualMs) / p.latencyMs;
    sse += residualMs ** 2;
    sst += (p.latencyMs - mean) ** 2;
    maxRelativeResidual = Math.max(maxRelativeResidual, relativeResidual);
    return { batch: p.batch, latencyMs: p.latencyMs, predictedMs, residualMs, relativeResidual };
  });
  // All latencies equal (to rounding): the flat line explains them fully.
  const roundingScale = points.length * (64 * Number.EPSILON * Math.max(1, Math.abs(mean))) ** 2;
  const r2 = sst <= roundingScale ? 1 : 1 - sse / sst;
  return { r2, sse, maxRelativeResidual, residuals };
}

function fitAffine(points: readonly ProfilePoint[]): AffineFit {
  const line = leastSquares(points);
  const model: AffineServiceTime = { kind: "affine", ...line };
  return { model, ...quality(points, (b) => line.fixedMs + line.perSampleMs * b) };
}

/** Every break at a profiled batch that leaves ≥ 2 distinct batch sizes on each side; the least total SSE wins. */
function fitTwoSegments(points: readonly ProfilePoint[]): TwoSegmentFit | null {
  const batches = distinctBatches(points);
  let best: TwoSegmentFit | null = null;
  for (let k = 1; k <= batches.length - 3; k++) {
    const breakBatch = batches[k] as number;
    const lowerPts = points.filter((p) => p.batch <= breakBatch);
    const upperPts = points.filter((p) => p.batch > breakBatch);
    const lower = leastSquares(lowerPts);
    const upper = leastSquares(upperPts);
    const model: TwoSegmentServiceTime = { kind: "two-segment", breakBatch, lower, upper };
    const q = quality(points, (b) => {
      const seg = b <= breakBatch ? lower : upper;
      return seg.fixedMs + seg.perSampleMs * b;
    });
    if (best === null || q.sse < best.sse) best = { model, ...q };
  }
  return best;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const r2s = (x: number) => x.toFixed(4);

export function fitServiceTime(points: readonly ProfilePoint[], options: FitOptions = {}): ServiceTimeFit {
  const minR2 = openUnit("minR2", options.minR2 ?? 0.99);
  const maxRel = positive("maxRelativeResidual", options.maxRelativeResidual ?? 0.05);
  if (!Array.isArray(points)) throw new PlanningInputError("out_of_range", "points", "must be an array");
  points.forEach((p, i) => {
    positive(`points[${i}].batch`, p.batch);
    positive(`points[${i}].latencyMs`, p.latencyMs);
  });
  if (distinctBatches(points).length < 2) {
    throw new PlanningInputError("out_of_range", "points", "need at least two distinct batch sizes to fit a line");
  }
  const affine = fitAffine(points);
  finite("points", affine.model.fixedMs);
  finite("points", affine.model.perSampleMs);
  const thresholds = { minR2, maxRelativeResidual: maxRel };
  const affineOk = affine.r2 >= minR2 && affine.maxRelativeResidual <= maxRel;
  const affineSummary = `one line: R² ${r2s(affine.r2)}, largest residual ${pct(affine.maxRelativeResidual)} of T(b)`;
  if (affineOk) {
    return {
      model: affine.model,
      chosen: "affine",
      reason: `${affineSummary} (bar: R² ≥ ${minR2}, residuals ≤ ${pct(maxRel)})`,
      affine,
      twoSegment: null,
      thresholds,
    };
  }
  const twoSegment = fitTwoSegments(points);
  if (twoSegment === null) {
    return {
      model: affine.model,
      chosen: "affine",
      reason: `${affineSummary} fails the bar, but two segments need at least 4 distinct batch sizes`,
      affine,
      twoSegment: null,
      thresholds,
    };
  }
  const twoSummary =
    `two segments broken at b = ${twoSegment.model.breakBatch}: R² ${r2s(twoSegment.r2)}, ` +
    `largest residual ${pct(twoSegment.maxRelativeResidual)}`;
  if (twoSegment.sse < affine.sse) {
    const stillPoor = twoSegment.r2 < minR2 || twoSegment.maxRelativeResidual > maxRel ? " (still below the bar)" : "";
    return {
      model: twoSegment.model,
      chosen: "two-segment",
      reason: `${affineSummary} fails the bar; ${twoSummary}${stillPoor} lower the squared error`,
      affine,
      twoSegment,
      thresholds,
    };
  }
  return {
    model: affine.model,
    chosen: "affine",
    reason: `${affineSummary} fails the bar, and ${twoSummary} do not lower the squared error`,
    affine,
    twoSegment,
    thresholds,
  };
}
