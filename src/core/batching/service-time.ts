import { PlanningInputError } from "../planning/errors";
import { finite, finiteResult, nonNegative, positive } from "./guards";

/**
 * Batch service-time models (F-23): T(B) = F + s·B, or two such segments broken at a profiled batch size when one
 * line does not fit the profile. Times in milliseconds, rates in per second.
 */

export interface AffineSegment {
  /** F: the part of a batch's time that does not grow with batch size (kernel issue, device floor, weight read). */
  fixedMs: number;
  /** s: device work per sample. */
  perSampleMs: number;
}

export interface AffineServiceTime extends AffineSegment {
  kind: "affine";
}

export interface TwoSegmentServiceTime {
  kind: "two-segment";
  /** The lower segment serves B ≤ breakBatch, the upper one B > breakBatch. */
  breakBatch: number;
  lower: AffineSegment;
  upper: AffineSegment;
}

export type ServiceTimeModel = AffineServiceTime | TwoSegmentServiceTime;

/** Builds T(B) = F + s·B from user input: F ≥ 0, s ≥ 0, and not both zero. */
export function affineServiceTime(fixedMs: number, perSampleMs: number): AffineServiceTime {
  nonNegative("fixedMs", fixedMs);
  nonNegative("perSampleMs", perSampleMs);
  if (fixedMs + perSampleMs <= 0) {
    throw new PlanningInputError("out_of_range", "perSampleMs", "F and s cannot both be zero: a batch must take time");
  }
  return { kind: "affine", fixedMs, perSampleMs };
}

/** The affine piece that applies at batch size b. */
export function segmentAt(model: ServiceTimeModel, batch: number): AffineSegment {
  if (model.kind === "affine") return model;
  return batch <= model.breakBatch ? model.lower : model.upper;
}

/** T(B). Batch may be fractional (a mean batch such as E[B_seen] = 1 + λ·T_w). */
export function serviceTimeMs(model: ServiceTimeModel, batch: number): number {
  positive("batch", batch);
  const seg = segmentAt(model, batch);
  finite("model.fixedMs", seg.fixedMs);
  finite("model.perSampleMs", seg.perSampleMs);
  const t = finiteResult("batch", seg.fixedMs + seg.perSampleMs * batch);
  // A fitted model can extrapolate to a non-positive time; that is a bad model for this batch, not a fast one.
  if (t <= 0) throw new PlanningInputError("out_of_range", "model", `T(${batch}) = ${t} ms is not a positive time`);
  return t;
}

/** μ_eff(B) = B / T(B) in samples per second (Eq. 10): the pipelined, saturated capacity. */
export function batchThroughputPerS(model: ServiceTimeModel, batch: number): number {
  return (batch / serviceTimeMs(model, batch)) * 1000;
}

/** T(B) / B: device time each sample costs inside a batch of B. */
export function perSampleTimeMs(model: ServiceTimeModel, batch: number): number {
  return serviceTimeMs(model, batch) / batch;
}

/** F / T(B): the share of a batch's time that batching amortizes (Table 8). Not utilization, not duty cycle. */
export function fixedCostShare(model: ServiceTimeModel, batch: number): number {
  return segmentAt(model, batch).fixedMs / serviceTimeMs(model, batch);
}

/** One row of a batching sweep (Table 8): the window column is the unpipelined worst case T_w + T(B). */
export interface BatchSweepRow {
  batch: number;
  serviceMs: number;
  windowPlusServiceMs: number;
  perSampleMs: number;
  throughputPerS: number;
  fixedCostShare: number;
}

export function batchSweep(model: ServiceTimeModel, batches: readonly number[], windowMs: number): BatchSweepRow[] {
  nonNegative("windowMs", windowMs);
  return batches.map((batch) => {
    const serviceMs = serviceTimeMs(model, batch);
    return {
      batch,
      serviceMs,
      windowPlusServiceMs: windowMs + serviceMs,
      perSampleMs: serviceMs / batch,
      throughputPerS: (batch / serviceMs) * 1000,
      fixedCostShare: segmentAt(model, batch).fixedMs / serviceMs,
    };
  });
}
