import { nonNegative, nonNegativeInteger, positiveInteger } from "./guards";

/**
 * HEURISTIC: the adaptive batching window of Listing 2, kept to the chapter's logic. It picks a candidate formation
 * timer from queue depth, arrival rate and the latency budget. Its inputs omit the time the oldest request has
 * already waited and the work queued ahead of the batch, so the window it returns is not a remaining-deadline
 * allowance: deadline-aware dispatch must account for both.
 */

export interface AdaptiveWindowInput {
  queueDepth: number;
  /** Requests per second. */
  arrivalRatePerS: number;
  sloMs: number;
  serviceMs: number;
  fixedOverheadMs: number;
  /** Deployment-tuned target; the listing uses 16. */
  targetBatchSize?: number;
}

export interface AdaptiveWindow {
  kind: "heuristic";
  windowMs: number;
  /** Which branch of the listing produced it. */
  branch: "batch-ready" | "arrival-estimate" | "budget-cap" | "low-traffic";
}

export function adaptiveWindowHeuristic(input: AdaptiveWindowInput): AdaptiveWindow {
  const queueDepth = nonNegativeInteger("queueDepth", input.queueDepth);
  const rate = nonNegative("arrivalRatePerS", input.arrivalRatePerS);
  nonNegative("sloMs", input.sloMs);
  nonNegative("serviceMs", input.serviceMs);
  nonNegative("fixedOverheadMs", input.fixedOverheadMs);
  const target = positiveInteger("targetBatchSize", input.targetBatchSize ?? 16);

  if (queueDepth >= target) return { kind: "heuristic", windowMs: 0, branch: "batch-ready" };
  const maxWaitMs = Math.max(0, input.sloMs - input.serviceMs - input.fixedOverheadMs);
  if (rate > 0) {
    const estimatedWaitMs = ((target - queueDepth) / rate) * 1000;
    return estimatedWaitMs <= maxWaitMs
      ? { kind: "heuristic", windowMs: estimatedWaitMs, branch: "arrival-estimate" }
      : { kind: "heuristic", windowMs: maxWaitMs, branch: "budget-cap" };
  }
  return { kind: "heuristic", windowMs: maxWaitMs, branch: "low-traffic" };
}
