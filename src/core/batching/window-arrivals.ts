import { finiteResult, nonNegative, nonNegativeInteger, openUnit } from "./guards";
import { poissonCdf, poissonQuantile, poissonSurvival } from "./poisson";

/**
 * Arrivals in a window T_w under Poisson traffic (Eq. 9) and the batch an arriving request sees (Eq. 12 input):
 * B_seen = 1 + Poisson(λ·T_w), the request itself plus the other arrivals.
 */

export interface WindowArrivalStats {
  /** λ·T_w */
  mean: number;
  /** √(λ·T_w) */
  std: number;
  /** e^(−λ·T_w): windows that hold no request. */
  probabilityEmpty: number;
}

function windowMean(arrivalRatePerS: number, windowMs: number): number {
  nonNegative("arrivalRatePerS", arrivalRatePerS);
  nonNegative("windowMs", windowMs);
  return finiteResult("arrivalRatePerS", (arrivalRatePerS * windowMs) / 1000);
}

export function windowArrivalStats(arrivalRatePerS: number, windowMs: number): WindowArrivalStats {
  const mean = windowMean(arrivalRatePerS, windowMs);
  return { mean, std: Math.sqrt(mean), probabilityEmpty: poissonCdf(0, mean) };
}

/** Pr(k ≥ n) for the count in one window. */
export function probabilityAtLeast(arrivalRatePerS: number, windowMs: number, n: number): number {
  nonNegativeInteger("n", n);
  return poissonSurvival(n, windowMean(arrivalRatePerS, windowMs));
}

export interface RequestSeenBatch {
  /** λ·T_w */
  poissonMean: number;
  /** E[B_seen] = 1 + λ·T_w */
  mean: number;
  /** The quantile level, 0.99 unless asked otherwise. */
  level: number;
  /** 1 + (the smallest k with Pr(Poisson ≤ k) ≥ level). */
  quantileBatch: number;
}

export function requestSeenBatch(arrivalRatePerS: number, windowMs: number, level = 0.99): RequestSeenBatch {
  openUnit("level", level);
  const poissonMean = windowMean(arrivalRatePerS, windowMs);
  return { poissonMean, mean: 1 + poissonMean, level, quantileBatch: 1 + poissonQuantile(level, poissonMean) };
}
