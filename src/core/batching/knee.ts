import { nonNegative } from "./guards";
import { serviceTimeMs, type AffineSegment, type ServiceTimeModel } from "./service-time";

/**
 * Figure 6: a strictly serial worker that waits out the whole window before each batch (no pipelining), and the
 * planning knee where per-sample work equals the fixed part of the latency.
 */

/** T_w + T(B): latency of the unpipelined worker. */
export function unpipelinedLatencyMs(model: ServiceTimeModel, batch: number, windowMs: number): number {
  nonNegative("windowMs", windowMs);
  return windowMs + serviceTimeMs(model, batch);
}

/** B / (T_w + T(B)) per second: throughput when formation is not overlapped with execution. */
export function unpipelinedThroughputPerS(model: ServiceTimeModel, batch: number, windowMs: number): number {
  return (batch / unpipelinedLatencyMs(model, batch, windowMs)) * 1000;
}

/** A segment's own knee (T_w + F)/s, or null where it has no per-sample cost and so no knee. */
function segmentKnee(seg: AffineSegment, windowMs: number): number | null {
  if (!(seg.perSampleMs > 0)) return null;
  const knee = (windowMs + seg.fixedMs) / seg.perSampleMs;
  return knee > 0 ? knee : null;
}

/**
 * B* = (T_w + F)/s: there latency is 2·(T_w + F) and throughput half the ceiling 1/s. For a two-segment model the knee
 * is the first segment's solution that lies inside that segment. Null when no segment has one (e.g. s = 0).
 */
export function kneeBatch(model: ServiceTimeModel, windowMs: number): number | null {
  nonNegative("windowMs", windowMs);
  if (model.kind === "affine") return segmentKnee(model, windowMs);
  const lower = segmentKnee(model.lower, windowMs);
  if (lower !== null && lower <= model.breakBatch) return lower;
  const upper = segmentKnee(model.upper, windowMs);
  if (upper !== null && upper > model.breakBatch) return upper;
  return null;
}
