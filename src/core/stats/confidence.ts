/**
 * Student-t confidence interval of a mean: the profiler's "measure until the estimate is stable" test and the
 * load generator's error bars. The t quantile is computed here (no statistics library in src/core): the t CDF via
 * the regularized incomplete beta function (continued fraction, Lentz), inverted by safeguarded Newton steps.
 */
import { StatsInputError, requireFiniteNumber } from "./errors";

// Lanczos approximation (g = 7, n = 9): |relative error| < 1e-15 for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (!(x > 0) || !Number.isFinite(x))
    throw new StatsInputError("out_of_range", "x", `logGamma needs a finite x > 0, got ${x}`);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x); // reflection
  const z = x - 1;
  let sum = LANCZOS[0] as number;
  for (let i = 1; i < 9; i++) sum += (LANCZOS[i] as number) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Continued fraction for I_x(a, b) (Numerical Recipes' betacf, modified Lentz); converges for x < (a+1)/(a+b+2). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 100_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) return h;
  }
  return h; // not reached for the t distribution's arguments; h is then accurate to far better than a quantile needs
}

/**
 * Regularized incomplete beta I_x(a, b). The complement y = 1 − x is passed separately when the caller has it
 * exactly (x near 1 would otherwise lose every digit of y).
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number, y: number = 1 - x): number {
  if (!(x >= 0 && x <= 1)) throw new StatsInputError("out_of_range", "x", `must be in [0, 1], got ${x}`);
  if (!(a > 0) || !(b > 0))
    throw new StatsInputError("out_of_range", a > 0 ? "b" : "a", "shape parameters must be > 0");
  if (x === 0) return 0;
  if (y === 0) return 1;
  const logFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(y);
  const front = Math.exp(logFront);
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(y, b, a)) / b;
}

function requireDegreesOfFreedom(df: number): number {
  requireFiniteNumber("degreesOfFreedom", df);
  if (!(df > 0)) throw new StatsInputError("out_of_range", "degreesOfFreedom", `must be > 0, got ${df}`);
  return df;
}

/** P(T > t) for t ≥ 0: ½·I_{ν/(ν+t²)}(ν/2, ½), with 1 − x = t²/(ν+t²) formed without cancellation. */
function upperTail(t: number, df: number): number {
  const t2 = t * t;
  const x = df / (df + t2);
  const y = t2 / (df + t2);
  return 0.5 * regularizedIncompleteBeta(x, df / 2, 0.5, y);
}

/** Student-t CDF with ν degrees of freedom (ν > 0, not necessarily whole: Welch's ν is fractional). */
export function studentTCdf(t: number, degreesOfFreedom: number): number {
  requireFiniteNumber("t", t);
  const df = requireDegreesOfFreedom(degreesOfFreedom);
  const tail = upperTail(Math.abs(t), df);
  return t >= 0 ? 1 - tail : tail;
}

function studentTLogDensity(t: number, df: number): number {
  return (
    logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log1p((t * t) / df)
  );
}

/**
 * The t quantile: the t with P(T ≤ t) = p. Solved on the upper tail (so p near 1 keeps its digits) by Newton steps
 * kept inside a bisection bracket.
 */
export function studentTQuantile(p: number, degreesOfFreedom: number): number {
  requireFiniteNumber("p", p);
  if (!(p > 0 && p < 1)) throw new StatsInputError("out_of_range", "p", `must be in (0, 1), got ${p}`);
  const df = requireDegreesOfFreedom(degreesOfFreedom);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  const target = 1 - p;
  let lo = 0;
  let hi = 1;
  while (upperTail(hi, df) > target) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) throw new StatsInputError("out_of_range", "p", `too close to 1 for ν = ${df}`);
  }
  let t = 0.5 * (lo + hi);
  for (let i = 0; i < 200; i++) {
    const f = upperTail(t, df) - target; // decreasing in t
    if (f > 0) lo = t;
    else hi = t;
    const step = f / Math.exp(studentTLogDensity(t, df)); // d(tail)/dt = −density
    let next = t + step;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (Math.abs(next - t) <= 1e-14 * Math.max(1, Math.abs(next)) || hi - lo <= 1e-15 * hi) return next;
    t = next;
  }
  return t;
}

export interface MeanConfidenceInterval {
  count: number;
  mean: number;
  /** Sample standard deviation (n − 1 in the denominator). */
  standardDeviation: number;
  standardError: number;
  degreesOfFreedom: number;
  /** Two-sided confidence level, e.g. 0.95. */
  confidence: number;
  tCritical: number;
  halfWidth: number;
  lower: number;
  upper: number;
  /** halfWidth / |mean|: the profiler's stability test; null when the mean is 0. */
  relativeHalfWidth: number | null;
}

/** The CI from summary statistics: mean ± t_{(1+c)/2, n−1} · s/√n. */
export function meanConfidenceIntervalFromMoments(input: {
  count: number;
  mean: number;
  standardDeviation: number;
  confidence?: number;
}): MeanConfidenceInterval {
  const n = input.count;
  if (!Number.isSafeInteger(n)) throw new StatsInputError("not_integer", "count", `must be a whole number, got ${n}`);
  if (n < 2)
    throw new StatsInputError("too_few_samples", "count", `a confidence interval needs at least 2 samples, got ${n}`);
  const mean = requireFiniteNumber("mean", input.mean);
  const sd = requireFiniteNumber("standardDeviation", input.standardDeviation);
  if (sd < 0) throw new StatsInputError("out_of_range", "standardDeviation", `must be ≥ 0, got ${sd}`);
  const confidence = requireFiniteNumber("confidence", input.confidence ?? 0.95);
  if (!(confidence > 0 && confidence < 1))
    throw new StatsInputError("out_of_range", "confidence", `must be in (0, 1), got ${confidence}`);
  const df = n - 1;
  const tCritical = studentTQuantile((1 + confidence) / 2, df);
  const standardError = sd / Math.sqrt(n);
  const halfWidth = tCritical * standardError;
  return {
    count: n,
    mean,
    standardDeviation: sd,
    standardError,
    degreesOfFreedom: df,
    confidence,
    tCritical,
    halfWidth,
    lower: mean - halfWidth,
    upper: mean + halfWidth,
    relativeHalfWidth: mean !== 0 ? halfWidth / Math.abs(mean) : null,
  };
}

/** The CI of the mean of raw samples (two-pass mean and variance, which stays accurate for large offsets). */
export function meanConfidenceInterval(samples: readonly number[], confidence = 0.95): MeanConfidenceInterval {
  if (!Array.isArray(samples)) throw new StatsInputError("not_finite", "samples", "must be an array of numbers");
  samples.forEach((x, i) => requireFiniteNumber(`samples[${i}]`, x));
  const n = samples.length;
  if (n < 2)
    throw new StatsInputError("too_few_samples", "samples", `a confidence interval needs at least 2 samples, got ${n}`);
  const mean = samples.reduce((sum, x) => sum + x, 0) / n;
  const ss = samples.reduce((sum, x) => sum + (x - mean) * (x - mean), 0);
  return meanConfidenceIntervalFromMoments({ count: n, mean, standardDeviation: Math.sqrt(ss / (n - 1)), confidence });
}
