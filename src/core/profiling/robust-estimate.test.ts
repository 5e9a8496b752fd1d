import { describe, expect, it } from "vitest";
import { blockMeans, robustEstimate } from "./robust-estimate";

describe("robust estimate of round means", () => {
  it("trims a burst: 20% of 5 rounds is one round at each end", () => {
    // [10, 11, 12, 13, 100]: g = ⌊0.2·5⌋ = 1, kept [11, 12, 13] → 12. Winsorized [11, 11, 12, 13, 13]: mean 12,
    // variance (1 + 1 + 0 + 1 + 1) / 4 = 1; SE = 1 / ((1 − 2/5)·√5) = 0.7454; t(0.975, h − 1 = 2) = 4.3027 → 3.207.
    const e = robustEstimate([13, 100, 10, 12, 11]);
    expect(e.estimateMs).toBeCloseTo(12, 12);
    expect(e.halfWidthMs).toBeCloseTo(4.3027 * 0.74536, 3);
    expect(e.lowerMs).toBeCloseTo(12 - e.halfWidthMs, 12);
  });

  it("below 5 rounds nothing is trimmed: the plain mean and its t interval", () => {
    // [1, 2, 3]: mean 2, s = 1, SE = 1/√3 = 0.5774, t(0.975, 2) = 4.3027 → 2.484.
    const e = robustEstimate([1, 2, 3]);
    expect(e.estimateMs).toBe(2);
    expect(e.halfWidthMs).toBeCloseTo(2.4841, 3);
  });

  it("one round has no interval", () => {
    expect(robustEstimate([5]).halfWidthMs).toBe(Infinity);
    expect(() => robustEstimate([])).toThrow(/at least one round/);
  });

  it("cuts consecutive samples into equal blocks", () => {
    expect(blockMeans([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5)).toEqual([1.5, 3.5, 5.5, 7.5, 9.5]);
    expect(blockMeans([4, 6], 5)).toEqual([4, 6]);
  });
});
