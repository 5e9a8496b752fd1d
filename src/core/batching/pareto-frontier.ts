import { PlanningInputError } from "../planning/errors";
import { nonNegative, positive, positiveInteger } from "./guards";
import { batchThroughputPerS, serviceTimeMs, type ServiceTimeModel } from "./service-time";
import { requestSeenBatch } from "./window-arrivals";

/**
 * The latency-throughput Pareto frontier over (window, max batch) candidates (§13.5.4, F-38): throughput up, p99
 * envelope down. Throughput is the pipelined saturated capacity B_max/T(B_max).
 *
 * Without an arrival rate each batch is taken as full (B = B_max), which is how the chapter's endpoints reproduce:
 * mean T_w/2 + T(B_max), envelope T_w + T(B_max). With one, the batch is min(B_max, request-seen batch) at that rate
 * (mean at 1 + λT_w, envelope at the p99), and candidates that cannot carry the rate are marked unstable and left off.
 */

export interface BatchingCandidate {
  windowMs: number;
  maxBatch: number;
}

export interface EvaluatedCandidate extends BatchingCandidate {
  throughputPerS: number;
  meanLatencyMs: number;
  envelopeMs: number;
  stable: boolean;
}

export interface FrontierOptions {
  arrivalRatePerS?: number;
  /** Quantile for the request-seen batch; default 0.99. */
  level?: number;
}

export function evaluateCandidate(
  model: ServiceTimeModel,
  candidate: BatchingCandidate,
  options: FrontierOptions = {},
): EvaluatedCandidate {
  const windowMs = nonNegative("windowMs", candidate.windowMs);
  const maxBatch = positiveInteger("maxBatch", candidate.maxBatch);
  const throughputPerS = batchThroughputPerS(model, maxBatch);
  if (options.arrivalRatePerS === undefined) {
    const t = serviceTimeMs(model, maxBatch);
    return {
      windowMs,
      maxBatch,
      throughputPerS,
      meanLatencyMs: windowMs / 2 + t,
      envelopeMs: windowMs + t,
      stable: true,
    };
  }
  const seen = requestSeenBatch(options.arrivalRatePerS, windowMs, options.level ?? 0.99);
  return {
    windowMs,
    maxBatch,
    throughputPerS,
    meanLatencyMs: windowMs / 2 + serviceTimeMs(model, Math.min(seen.mean, maxBatch)),
    envelopeMs: windowMs + serviceTimeMs(model, Math.min(seen.quantileBatch, maxBatch)),
    stable: options.arrivalRatePerS < throughputPerS,
  };
}

/** a dominates b: at least as fast and as short on both axes, strictly better on one. */
export function dominates(a: EvaluatedCandidate, b: EvaluatedCandidate): boolean {
  return (
    a.throughputPerS >= b.throughputPerS &&
    a.envelopeMs <= b.envelopeMs &&
    (a.throughputPerS > b.throughputPerS || a.envelopeMs < b.envelopeMs)
  );
}

/** Nondominated stable candidates in order of rising envelope (and so rising throughput). Exact ties are all kept. */
export function paretoFrontier(
  model: ServiceTimeModel,
  candidates: readonly BatchingCandidate[],
  options: FrontierOptions = {},
): EvaluatedCandidate[] {
  const points = candidates.map((c) => evaluateCandidate(model, c, options)).filter((p) => p.stable);
  points.sort(
    (a, b) =>
      a.envelopeMs - b.envelopeMs ||
      b.throughputPerS - a.throughputPerS ||
      a.windowMs - b.windowMs ||
      a.maxBatch - b.maxBatch,
  );
  const frontier: EvaluatedCandidate[] = [];
  let bestThroughput = -Infinity;
  for (const p of points) {
    const last = frontier[frontier.length - 1];
    const tie = last !== undefined && p.envelopeMs === last.envelopeMs && p.throughputPerS === last.throughputPerS;
    if (p.throughputPerS > bestThroughput || tie) {
      frontier.push(p);
      bestThroughput = Math.max(bestThroughput, p.throughputPerS);
    }
  }
  return frontier;
}

/**
 * The highest-throughput stable candidate whose envelope fits the latency limit (ties: lower envelope, then smaller
 * window); null when none fits.
 */
export function bestUnderLatencyLimit(
  model: ServiceTimeModel,
  candidates: readonly BatchingCandidate[],
  latencyLimitMs: number,
  options: FrontierOptions = {},
): EvaluatedCandidate | null {
  positive("latencyLimitMs", latencyLimitMs);
  if (candidates.length === 0)
    throw new PlanningInputError("out_of_range", "candidates", "no candidates to choose from");
  const fitting = paretoFrontier(model, candidates, options).filter((p) => p.envelopeMs <= latencyLimitMs);
  // The frontier rises in throughput with envelope, so the last fitting point is the fastest.
  let best: EvaluatedCandidate | null = null;
  for (const p of fitting) {
    if (best === null || p.throughputPerS > best.throughputPerS) best = p;
  }
  return best;
}
