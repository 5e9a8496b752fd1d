/**
 * A profile cell's estimate from interleaved rounds: each round contributes the mean of the iterations it ran, and
 * the cell's latency is the 20%-trimmed mean of those round means, with the Tukey–McLaughlin confidence interval
 * (winsorized standard error, Student t with h − 1 degrees of freedom, h = rounds kept). A burst of other load that
 * hits one round moves one round mean, which the trimming drops; slow drift hits every cell alike because the
 * cells take turns. With fewer than 5 rounds nothing is trimmed (the plain mean and its t interval).
 */
import { studentTQuantile } from "../stats/confidence";
import { StatsInputError } from "../stats/errors";

export const TRIM_FRACTION = 0.2;

export interface RobustEstimate {
  rounds: number;
  /** The trimmed mean of the round means, in ms. */
  estimateMs: number;
  /** Half-width of its confidence interval, in ms (Infinity with one round). */
  halfWidthMs: number;
  lowerMs: number;
  upperMs: number;
}

export function robustEstimate(roundMeansMs: readonly number[], confidence = 0.95): RobustEstimate {
  const k = roundMeansMs.length;
  if (k === 0) throw new StatsInputError("too_few_samples", "roundMeansMs", "an estimate needs at least one round");
  const sorted = [...roundMeansMs].sort((a, b) => a - b);
  const g = Math.floor(TRIM_FRACTION * k);
  const kept = sorted.slice(g, k - g);
  const h = kept.length;
  const estimate = kept.reduce((s, x) => s + x, 0) / h;
  if (k < 2 || h < 2)
    return { rounds: k, estimateMs: estimate, halfWidthMs: Infinity, lowerMs: -Infinity, upperMs: Infinity };
  // Winsorized: the g smallest become the (g+1)-th smallest, the g largest the (g+1)-th largest.
  const winsorized = sorted.map((x) => Math.min(Math.max(x, sorted[g]!), sorted[k - 1 - g]!));
  const wMean = winsorized.reduce((s, x) => s + x, 0) / k;
  const wVar = winsorized.reduce((s, x) => s + (x - wMean) ** 2, 0) / (k - 1);
  const standardError = Math.sqrt(wVar) / ((1 - (2 * g) / k) * Math.sqrt(k));
  const halfWidth = studentTQuantile((1 + confidence) / 2, h - 1) * standardError;
  return {
    rounds: k,
    estimateMs: estimate,
    halfWidthMs: halfWidth,
    lowerMs: estimate - halfWidth,
    upperMs: estimate + halfWidth,
  };
}

/** Consecutive samples of one cell measured in one go, cut into `blocks` equal blocks: their means, for the same estimator. */
export function blockMeans(samplesMs: readonly number[], blocks: number): number[] {
  const n = samplesMs.length;
  const count = Math.max(1, Math.min(blocks, n));
  const means: number[] = [];
  for (let i = 0; i < count; i++) {
    const part = samplesMs.slice(Math.floor((i * n) / count), Math.floor(((i + 1) * n) / count));
    means.push(part.reduce((s, x) => s + x, 0) / part.length);
  }
  return means;
}
