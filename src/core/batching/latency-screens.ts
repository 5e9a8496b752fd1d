import { PlanningInputError } from "../planning/errors";
import { nonNegative, positive, positiveInteger } from "./guards";
import { serviceTimeMs, type AffineSegment, type ServiceTimeModel } from "./service-time";
import { requestSeenBatch } from "./window-arrivals";

/**
 * The chapter's two screens for a batching window: the mean-latency bound on batch size (Eq. 11) and the
 * conservative tail envelope (Eq. 12), plus the planning mean latency T_w/2 + T(E[B_seen]). Times in ms.
 */

/** The largest whole b in [lo, hi] with T_w/2 + F + s·b ≤ budget on one segment; 0 if none; null if unbounded. */
function segmentBound(
  seg: AffineSegment,
  lo: number,
  hi: number | null,
  halfWindow: number,
  budget: number,
): number | null {
  if (seg.perSampleMs < 0) {
    throw new PlanningInputError("out_of_range", "model", "a negative per-sample time has no latency-bounded batch");
  }
  // T_w/2 + T(b) summed as serviceTimeMs and its callers do (T first): at a decimal tie such as F 12.9, s 0.05,
  // T_w/2 4.7, budget 29.8, b 244, (T_w/2 + F) + s·b rounds above the budget where T_w/2 + (F + s·b) does not.
  const fits = (b: number) => halfWindow + (seg.fixedMs + seg.perSampleMs * b) <= budget;
  if (seg.perSampleMs === 0) return fits(lo) ? hi : 0;
  let b = Math.floor((budget - halfWindow - seg.fixedMs) / seg.perSampleMs);
  // The closed form can land one off an exact boundary through rounding; step to the true integer bound.
  for (let i = 0; i < 3 && b >= lo && !fits(b); i++) b--;
  for (let i = 0; i < 3 && fits(b + 1); i++) b++;
  if (!Number.isSafeInteger(b)) {
    throw new PlanningInputError("out_of_range", "model", "the per-sample time is too small to bound the batch");
  }
  if (hi !== null) b = Math.min(b, hi);
  return b >= lo ? b : 0;
}

/**
 * B_L = max{B : T_w/2 + T(B) ≤ L_budget} (Eq. 11), a feasibility bound on the mean, not a throughput optimum and not a
 * p99 certificate. 0 when even one request misses the budget; null when no batch size is ruled out (s = 0).
 */
export function latencyBoundedBatch(model: ServiceTimeModel, windowMs: number, budgetMs: number): number | null {
  nonNegative("windowMs", windowMs);
  positive("budgetMs", budgetMs);
  const half = windowMs / 2;
  if (model.kind === "affine") return segmentBound(model, 1, null, half, budgetMs);
  const split = Math.floor(model.breakBatch);
  const lower = split >= 1 ? segmentBound(model.lower, 1, split, half, budgetMs) : 0;
  const upper = segmentBound(model.upper, Math.max(1, split + 1), null, half, budgetMs);
  if (upper === null) return null;
  return Math.max(lower ?? 0, upper);
}

/** B = min(B_L, engine maximum, memory cap): the batch the screens allow. */
export function effectiveBatchCap(
  latencyBound: number | null,
  engineMaxBatch: number,
  memoryCapBatch?: number,
): number {
  positiveInteger("engineMaxBatch", engineMaxBatch);
  let cap = engineMaxBatch;
  if (latencyBound !== null) cap = Math.min(cap, latencyBound);
  if (memoryCapBatch !== undefined) cap = Math.min(cap, memoryCapBatch);
  return cap;
}

/**
 * Planning mean latency T_w/2 + T(E[B_seen]) (reconstructed in the digest: it reproduces the chapter's 8.7 ms; with an
 * affine T it equals T_w/2 + E[T(B_seen)]). A max batch, when given, caps the batch.
 */
export function planningMeanLatencyMs(
  model: ServiceTimeModel,
  arrivalRatePerS: number,
  windowMs: number,
  maxBatch?: number,
): number {
  const seen = requestSeenBatch(arrivalRatePerS, windowMs);
  const batch = maxBatch === undefined ? seen.mean : Math.min(seen.mean, positiveInteger("maxBatch", maxBatch));
  return windowMs / 2 + serviceTimeMs(model, batch);
}

export interface TailEnvelope {
  /** The request-seen quantile batch, before any cap. */
  requestSeenBatch: number;
  /** The batch used: the request-seen quantile, capped at the max batch when one is given. */
  batch: number;
  /** E_env = T_w + T(batch) */
  envelopeMs: number;
}

/**
 * E_env = T_w + T(B_seen,99) (Eq. 12): the full window plus the p99 request-seen batch's service time. Conservative,
 * because the longest wait and the largest batch need not hit the same request; it ignores worker backlog.
 */
export function tailEnvelope(
  model: ServiceTimeModel,
  arrivalRatePerS: number,
  windowMs: number,
  options: { level?: number; maxBatch?: number } = {},
): TailEnvelope {
  const seen = requestSeenBatch(arrivalRatePerS, windowMs, options.level ?? 0.99);
  const batch =
    options.maxBatch === undefined
      ? seen.quantileBatch
      : Math.min(seen.quantileBatch, positiveInteger("maxBatch", options.maxBatch));
  return { requestSeenBatch: seen.quantileBatch, batch, envelopeMs: windowMs + serviceTimeMs(model, batch) };
}
