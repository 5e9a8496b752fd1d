import { finiteResult, nonNegative, openUnit } from "./guards";

/**
 * Poisson distribution helpers for window arrival counts (Eq. 9) and the request-seen batch (Eq. 12). Terms are
 * computed in log space from a window around the mean, so large means (λ·T_w in the thousands) neither underflow
 * e^(−m) nor lose the tail.
 */

// Lanczos approximation (g = 7, 9 terms), ~1e-15 relative accuracy for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (LANCZOS[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

function logPmf(k: number, mean: number): number {
  if (mean === 0) return k === 0 ? 0 : -Infinity;
  return k * Math.log(mean) - mean - logGamma(k + 1);
}

/** Below mean − 20·√mean the Poisson mass is under e^(−200): summing from there loses nothing a double can hold. */
function windowStart(mean: number): number {
  return Math.max(0, Math.floor(mean - 20 * Math.sqrt(mean)));
}

/** Pr(X = k), X ~ Poisson(mean). Non-integer or negative k has probability 0. */
export function poissonPmf(k: number, mean: number): number {
  nonNegative("mean", mean);
  finiteResult("k", k);
  if (k < 0 || !Number.isInteger(k)) return 0;
  return Math.exp(logPmf(k, mean));
}

/** Pr(X ≤ k). */
export function poissonCdf(k: number, mean: number): number {
  nonNegative("mean", mean);
  finiteResult("k", k);
  if (k < 0) return 0;
  const top = Math.floor(k);
  let sum = 0;
  for (let j = windowStart(mean); j <= top; j++) {
    const term = Math.exp(logPmf(j, mean));
    sum += term;
    // Past the mean, once terms stop registering the sum is complete.
    if (j > mean && term < sum * 1e-17) break;
  }
  return Math.min(1, sum);
}

/** Pr(X ≥ n) = 1 − Pr(X ≤ n − 1). */
export function poissonSurvival(n: number, mean: number): number {
  return 1 - poissonCdf(n - 1, mean);
}

/** The smallest k with Pr(X ≤ k) ≥ p (Appendix D item 6). */
export function poissonQuantile(p: number, mean: number): number {
  openUnit("p", p);
  nonNegative("mean", mean);
  const last = Math.ceil(mean + 50 * Math.sqrt(mean) + 100);
  let sum = 0;
  for (let j = windowStart(mean); j < last; j++) {
    sum += Math.exp(logPmf(j, mean));
    if (sum >= p) return j;
  }
  // Only reachable when p is within rounding of 1: the window's end already holds all the mass a double can see.
  return last;
}
