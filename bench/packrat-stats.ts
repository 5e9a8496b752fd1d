// The arithmetic of the Packrat benchmark (bench/packrat.bench.ts), kept pure so it can be tested: per-repetition
// statistics, spreads across repetitions, paired speedups, the verdict a table shows, and prediction errors.

export type BenchStatsErrorCode = "empty" | "not_finite" | "not_positive" | "length_mismatch" | "invalid_option";

/** Bad input to a statistic; `parameter` names the argument. Statistics never return NaN or Infinity. */
export class BenchStatsError extends Error {
  readonly code: BenchStatsErrorCode;
  readonly parameter: string;

  constructor(code: BenchStatsErrorCode, parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.name = "BenchStatsError";
    this.code = code;
    this.parameter = parameter;
  }
}

function checkSamples(values: readonly number[], parameter: string, positive: boolean): void {
  if (!Array.isArray(values) || values.length === 0)
    throw new BenchStatsError("empty", parameter, "needs at least one value");
  values.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new BenchStatsError("not_finite", parameter, `value ${i} is ${String(v)}`);
    if (positive && v <= 0) throw new BenchStatsError("not_positive", parameter, `value ${i} is ${v}, must be > 0`);
  });
}

/** Nearest-rank quantile: the ⌈q·n⌉-th smallest value (the convention of the profiler's cell statistics). */
export function nearestRank(values: readonly number[], q: number): number {
  checkSamples(values, "values", false);
  if (typeof q !== "number" || !(q > 0 && q <= 1))
    throw new BenchStatsError("invalid_option", "q", `must be in (0, 1], got ${String(q)}`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1]!;
}

export interface RepetitionStats {
  n: number;
  meanMs: number;
  /** Nearest rank: with fewer than 100 samples this is the maximum. */
  p99Ms: number;
}

/** Mean and p99 of one repetition's batch latencies. */
export function repetitionStats(samplesMs: readonly number[]): RepetitionStats {
  checkSamples(samplesMs, "samplesMs", true);
  const mean = samplesMs.reduce((s, x) => s + x, 0) / samplesMs.length;
  return { n: samplesMs.length, meanMs: mean, p99Ms: nearestRank(samplesMs, 0.99) };
}

export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** Min, median (mean of the middle two for an even count) and max of one figure across repetitions. */
export function spreadOf(values: readonly number[]): Spread {
  checkSamples(values, "values", false);
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! };
}

/**
 * Paired speedups, one per repetition: baseline ÷ Packrat of the same repetition (the two ran back to back, so they
 * saw the same moment of a noisy machine). > 1 means Packrat was faster.
 */
export function pairedSpeedups(baselineMs: readonly number[], packratMs: readonly number[]): number[] {
  checkSamples(baselineMs, "baselineMs", true);
  checkSamples(packratMs, "packratMs", true);
  if (baselineMs.length !== packratMs.length) {
    throw new BenchStatsError(
      "length_mismatch",
      "packratMs",
      `has ${packratMs.length} repetitions, the baseline ${baselineMs.length}`,
    );
  }
  return baselineMs.map((b, i) => b / packratMs[i]!);
}

export type Verdict = "Packrat faster" | "Packrat slower" | "no clear difference";

/**
 * What a table says about a comparison: faster (or slower) only when every repetition agrees, since with five
 * repetitions a median alone cannot tell a real difference from the machine's noise.
 */
export function verdictOf(speedups: readonly number[]): Verdict {
  checkSamples(speedups, "speedups", true);
  if (speedups.every((s) => s > 1)) return "Packrat faster";
  if (speedups.every((s) => s < 1)) return "Packrat slower";
  return "no clear difference";
}

/** (measured − predicted) ÷ predicted: +0.25 means the measurement was 25% slower than the optimizer predicted. */
export function relativeError(predictedMs: number, measuredMs: number): number {
  checkSamples([predictedMs], "predictedMs", true);
  checkSamples([measuredMs], "measuredMs", true);
  return (measuredMs - predictedMs) / predictedMs;
}

/** Requests per block: enough to fill `targetMs` at `expectedMs` each, clamped to [min, max]. */
export function requestsPerBlock(expectedMs: number, targetMs: number, min: number, max: number): number {
  checkSamples([expectedMs], "expectedMs", true);
  checkSamples([targetMs], "targetMs", true);
  if (!Number.isInteger(min) || min < 1)
    throw new BenchStatsError("invalid_option", "min", `must be an integer ≥ 1, got ${min}`);
  if (!Number.isInteger(max) || max < min)
    throw new BenchStatsError("invalid_option", "max", `must be an integer ≥ min (${min}), got ${max}`);
  return Math.min(max, Math.max(min, Math.round(targetMs / expectedMs)));
}

export interface Shape {
  count: number;
  threads: number;
  batch: number;
}

/** ⟨i, t, b⟩ groups as one string, e.g. "⟨2,1,4⟩" or "⟨1,1,2⟩+⟨1,1,6⟩", in (threads, batch) order. */
export function formatShape(shape: readonly Shape[]): string {
  if (!Array.isArray(shape) || shape.length === 0)
    throw new BenchStatsError("empty", "shape", "needs at least one group");
  return canonical(shape)
    .map((g) => `⟨${g.count},${g.threads},${g.batch}⟩`)
    .join("+");
}

/** Whether two shapes run the same instances (the same multiset of ⟨t, b⟩), however they are grouped. */
export function sameShape(a: readonly Shape[], b: readonly Shape[]): boolean {
  return formatShape(a) === formatShape(b);
}

function canonical(shape: readonly Shape[]): Shape[] {
  const counts = new Map<string, Shape>();
  for (const g of shape) {
    if (
      !Number.isInteger(g.count) ||
      g.count < 1 ||
      !Number.isInteger(g.threads) ||
      g.threads < 1 ||
      !Number.isInteger(g.batch) ||
      g.batch < 1
    ) {
      throw new BenchStatsError(
        "invalid_option",
        "shape",
        `group ${JSON.stringify(g)} needs positive integer count, threads and batch`,
      );
    }
    const key = `${g.threads},${g.batch}`;
    const seen = counts.get(key);
    counts.set(key, { count: (seen?.count ?? 0) + g.count, threads: g.threads, batch: g.batch });
  }
  return [...counts.values()].sort((x, y) => x.threads - y.threads || x.batch - y.batch);
}
