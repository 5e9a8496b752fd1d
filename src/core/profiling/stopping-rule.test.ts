import { describe, expect, it } from "vitest";
import { Prng } from "../stats/prng";
import {
  cellStatistics,
  PRECISION_STOPPING_RULE,
  estimateGridDurationMs,
  PAPER_STOPPING_RULE,
  shouldStop,
} from "./stopping-rule";

describe("profiling stopping rule", () => {
  it("the fixed (paper) rule stops at exactly 100 measured iterations", () => {
    expect(shouldStop(PAPER_STOPPING_RULE, new Array(99).fill(1), 0)).toBeNull();
    expect(shouldStop(PAPER_STOPPING_RULE, new Array(100).fill(1), 0)).toBe("fixed-count");
  });

  it("adaptive: never before 10 iterations, even with zero spread", () => {
    expect(shouldStop(PRECISION_STOPPING_RULE, new Array(9).fill(5), 0)).toBeNull();
    // 10 identical samples: half-width 0 ≤ 2% of 5 → converged.
    expect(shouldStop(PRECISION_STOPPING_RULE, new Array(10).fill(5), 0)).toBe("converged");
  });

  it("adaptive: converges once the 95% half-width is ≤ 2% of the mean", () => {
    // Samples alternating 9 and 11: mean 10, s ≈ 1.0 (n − 1 denominator). Half-width = t(0.975, n−1)·s/√n.
    // n = 10: t = 2.262, s = 1.054 → 0.754 (7.5%): keep going. n = 60: t ≈ 2.001, s ≈ 1.008 → 0.260 (2.6%).
    // n = 100: t = 1.984, s = 1.005 → 0.199 (1.99%) ≤ 2% → stop.
    const alternating = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? 11 : 9));
    expect(shouldStop(PRECISION_STOPPING_RULE, alternating(10), 0)).toBeNull();
    expect(shouldStop(PRECISION_STOPPING_RULE, alternating(60), 0)).toBeNull();
    expect(shouldStop(PRECISION_STOPPING_RULE, alternating(100), 0)).toBe("converged");
  });

  it("adaptive: caps at 200 iterations and at 30 s per cell", () => {
    const random = new Prng(3);
    const noisy = Array.from({ length: 200 }, () => 10 + random.normal() * 8);
    expect(shouldStop(PRECISION_STOPPING_RULE, noisy, 1000)).toBe("max-iterations");
    expect(shouldStop(PRECISION_STOPPING_RULE, noisy.slice(0, 12), 30_000)).toBe("time-cap");
  });

  it("cell statistics: nearest-rank percentiles and the sample standard deviation", () => {
    // 1..100: mean 50.5, p50 = 50, p90 = 90, p99 = 99; s = √(Σ(i − 50.5)²/99) = √(83325/99) = 29.011.
    const s = cellStatistics(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(s).toMatchObject({ iterations: 100, meanMs: 50.5, p50Ms: 50, p90Ms: 90, p99Ms: 99 });
    expect(s.stddevMs).toBeCloseTo(29.0115, 3);
    // Half-width = 1.984217 · 29.0115/10 = 5.7565.
    expect(s.ciHalfWidthMs).toBeCloseTo(5.7565, 3);
  });

  it("duration estimate: b/t scaling between the fewest and most iterations", () => {
    // probe 2 ms at t = 1, b = 1; grid t ∈ {1, 2}, b ∈ {1, 4}: per-iteration 2, 8, 1, 4 ms → Σ = 15 ms.
    // Fixed 10 + 100: 110 iterations → 1650 ms both ends.
    expect(estimateGridDurationMs(2, [1, 2], [1, 4], PAPER_STOPPING_RULE)).toEqual({ lowMs: 1650, highMs: 1650 });
    // Adaptive: low (5 + 10) · 15 = 225 ms; high (5 + 200) · 15 = 3075 ms (no cell reaches the 30 s cap).
    expect(estimateGridDurationMs(2, [1, 2], [1, 4], PRECISION_STOPPING_RULE)).toEqual({ lowMs: 225, highMs: 3075 });
  });
});
