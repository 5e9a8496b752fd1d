import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BenchStatsError,
  formatShape,
  nearestRank,
  pairedSpeedups,
  relativeError,
  repetitionStats,
  requestsPerBlock,
  sameShape,
  spreadOf,
  verdictOf,
} from "./packrat-stats";

describe("nearestRank", () => {
  it("p99 of 1..200 is the 198th value: ⌈0.99·200⌉ = 198", () => {
    const values = Array.from({ length: 200 }, (_, i) => 200 - i); // descending, so sorting matters
    expect(nearestRank(values, 0.99)).toBe(198);
  });

  it("p99 of fewer than 100 samples is the maximum: ⌈0.99·7⌉ = 7", () => {
    expect(nearestRank([3, 9, 1, 4, 1, 5, 2], 0.99)).toBe(9);
  });

  it("p50 of 4 values is the 2nd: ⌈0.5·4⌉ = 2", () => {
    expect(nearestRank([40, 10, 30, 20], 0.5)).toBe(20);
  });

  it("agrees with counting: at least ⌈q·n⌉ values are ≤ it and fewer are < it (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 50 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (xs, q) => {
          const r = nearestRank(xs, q);
          const need = Math.ceil(q * xs.length);
          expect(xs.filter((x) => x <= r).length).toBeGreaterThanOrEqual(need);
          expect(xs.filter((x) => x < r).length).toBeLessThan(need);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses an empty list and q outside (0, 1], naming the parameter", () => {
    expect(() => nearestRank([], 0.5)).toThrow(expect.objectContaining({ code: "empty", parameter: "values" }));
    expect(() => nearestRank([1], 0)).toThrow(expect.objectContaining({ code: "invalid_option", parameter: "q" }));
    expect(() => nearestRank([1], 1.5)).toThrow(BenchStatsError);
  });
});

describe("repetitionStats", () => {
  it("mean of 10, 20, 60 ms is 30 ms; p99 of 3 samples is the max, 60", () => {
    expect(repetitionStats([20, 60, 10])).toEqual({ n: 3, meanMs: 30, p99Ms: 60 });
  });

  it("refuses a zero or non-finite latency (a batch cannot take 0 ms)", () => {
    expect(() => repetitionStats([1, 0])).toThrow(
      expect.objectContaining({ code: "not_positive", parameter: "samplesMs" }),
    );
    expect(() => repetitionStats([1, Number.NaN])).toThrow(expect.objectContaining({ code: "not_finite" }));
    expect(() => repetitionStats([])).toThrow(expect.objectContaining({ code: "empty" }));
  });
});

describe("spreadOf", () => {
  it("five repetitions 5, 1, 4, 2, 3: min 1, median 3 (the 3rd of 5), max 5", () => {
    expect(spreadOf([5, 1, 4, 2, 3])).toEqual({ min: 1, median: 3, max: 5 });
  });

  it("an even count takes the mean of the middle two: 1, 2, 10, 20 → median (2 + 10)/2 = 6", () => {
    expect(spreadOf([20, 2, 10, 1])).toEqual({ min: 1, median: 6, max: 20 });
  });

  it("min ≤ median ≤ max, and the median splits the values in half (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 40 }), (xs) => {
        const s = spreadOf(xs);
        expect(s.min).toBeLessThanOrEqual(s.median);
        expect(s.median).toBeLessThanOrEqual(s.max);
        expect(xs.filter((x) => x < s.median).length).toBeLessThanOrEqual(xs.length / 2);
        expect(xs.filter((x) => x > s.median).length).toBeLessThanOrEqual(xs.length / 2);
      }),
      { numRuns: 200 },
    );
  });
});

describe("pairedSpeedups and verdictOf", () => {
  it("baseline 30, 40 ms against Packrat 20, 50 ms: 30/20 = 1.5 and 40/50 = 0.8, no clear difference", () => {
    const s = pairedSpeedups([30, 40], [20, 50]);
    expect(s).toEqual([1.5, 0.8]);
    expect(verdictOf(s)).toBe("no clear difference");
  });

  it("every repetition faster → Packrat faster; every one slower → Packrat slower", () => {
    expect(verdictOf(pairedSpeedups([12, 11, 13], [10, 10, 10]))).toBe("Packrat faster");
    expect(verdictOf(pairedSpeedups([9, 8, 9.9], [10, 10, 10]))).toBe("Packrat slower");
  });

  it("a tie in one repetition (ratio exactly 1) is not a win", () => {
    expect(verdictOf([1.2, 1, 1.3])).toBe("no clear difference");
  });

  it("refuses mismatched repetition counts, naming the parameter", () => {
    expect(() => pairedSpeedups([1, 2], [1])).toThrow(
      expect.objectContaining({ code: "length_mismatch", parameter: "packratMs" }),
    );
  });
});

describe("relativeError", () => {
  it("predicted 40 ms, measured 50 ms: (50 − 40)/40 = +0.25", () => {
    expect(relativeError(40, 50)).toBe(0.25);
  });

  it("predicted 40 ms, measured 30 ms: (30 − 40)/40 = −0.25", () => {
    expect(relativeError(40, 30)).toBe(-0.25);
  });

  it("refuses a zero prediction instead of returning Infinity", () => {
    expect(() => relativeError(0, 5)).toThrow(
      expect.objectContaining({ code: "not_positive", parameter: "predictedMs" }),
    );
  });
});

describe("requestsPerBlock", () => {
  it("2000 ms at 80 ms each is 25 requests", () => {
    expect(requestsPerBlock(80, 2000, 5, 200)).toBe(25);
  });

  it("clamps: 2000 ms at 900 ms each is 2, raised to the minimum 5; at 0.4 ms each 5000, cut to 200", () => {
    expect(requestsPerBlock(900, 2000, 5, 200)).toBe(5);
    expect(requestsPerBlock(0.4, 2000, 5, 200)).toBe(200);
  });

  it("refuses max < min", () => {
    expect(() => requestsPerBlock(1, 10, 5, 4)).toThrow(expect.objectContaining({ parameter: "max" }));
  });
});

describe("formatShape and sameShape", () => {
  it("groups are merged and sorted by (threads, batch): ⟨1,1,6⟩ + ⟨1,1,2⟩ → ⟨1,1,2⟩+⟨1,1,6⟩", () => {
    expect(
      formatShape([
        { count: 1, threads: 1, batch: 6 },
        { count: 1, threads: 1, batch: 2 },
      ]),
    ).toBe("⟨1,1,2⟩+⟨1,1,6⟩");
  });

  it("two ⟨1,1,4⟩ groups are the same instances as one ⟨2,1,4⟩", () => {
    expect(
      sameShape(
        [
          { count: 1, threads: 1, batch: 4 },
          { count: 1, threads: 1, batch: 4 },
        ],
        [{ count: 2, threads: 1, batch: 4 }],
      ),
    ).toBe(true);
    expect(sameShape([{ count: 1, threads: 2, batch: 8 }], [{ count: 2, threads: 1, batch: 4 }])).toBe(false);
  });

  it("refuses an empty shape and a zero count", () => {
    expect(() => formatShape([])).toThrow(expect.objectContaining({ code: "empty", parameter: "shape" }));
    expect(() => formatShape([{ count: 0, threads: 1, batch: 1 }])).toThrow(
      expect.objectContaining({ parameter: "shape" }),
    );
  });
});
