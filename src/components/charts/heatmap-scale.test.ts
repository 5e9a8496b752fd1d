import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  divergingRatioScale,
  HeatmapScaleError,
  legendTicks,
  relativeLuminance,
  sequentialScale,
} from "./heatmap-scale";

describe("sequential scale", () => {
  it("linear: 2 ms → 0, 10 ms → 1, 6 ms halfway ((6 − 2) / (10 − 2) = 0.5)", () => {
    const s = sequentialScale([4, 2, 10]);
    expect(s.domain).toEqual([2, 10]);
    expect(s.position(2)).toBe(0);
    expect(s.position(10)).toBe(1);
    expect(s.position(6)).toBeCloseTo(0.5, 12);
    // The ends are the palette's ends: YlGnBu's lightest and darkest.
    expect(s.color(2)).toBe("#ffffd9");
    expect(s.color(10)).toBe("#081d58");
  });

  it("log: 1, 10, 100 ms sit at 0, ½, 1 (ln 10 / ln 100 = 0.5); the legend's middle tick is the geometric mean 10", () => {
    const s = sequentialScale([1, 100], { log: true });
    expect(s.position(10)).toBeCloseTo(0.5, 12);
    const ticks = legendTicks(s, 3);
    expect(ticks.map((t) => t.position)).toEqual([0, 0.5, 1]);
    expect(ticks[1]!.value).toBeCloseTo(10, 9);
  });

  it("clamps values outside the domain to the bar's ends", () => {
    const s = sequentialScale([2, 10]);
    expect(s.position(-5)).toBe(0);
    expect(s.position(50)).toBe(1);
  });

  it("one distinct value sits in the middle and the legend has one tick", () => {
    const s = sequentialScale([3, 3]);
    expect(s.position(3)).toBe(0.5);
    expect(legendTicks(s)).toEqual([{ position: 0.5, value: 3 }]);
  });

  it("text is dark on the light end and white on the dark end", () => {
    const s = sequentialScale([1, 2]);
    expect(s.textColor(1)).toBe("#1c2330");
    expect(s.textColor(2)).toBe("#ffffff");
    // Luminance of white is 1, of black 0.
    expect(relativeLuminance([255, 255, 255])).toBeCloseTo(1, 12);
    expect(relativeLuminance([0, 0, 0])).toBe(0);
  });

  it("refuses NaN, Infinity, no values, and non-positive values on a log scale, naming the parameter", () => {
    expect(() => sequentialScale([])).toThrow(HeatmapScaleError);
    expect(() => sequentialScale([1, Number.NaN], { parameter: "latency" })).toThrow(
      /latency: NaN is not a finite number/,
    );
    expect(() => sequentialScale([1, Infinity])).toThrow(HeatmapScaleError);
    try {
      sequentialScale([0, 1], { log: true, parameter: "latency" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(HeatmapScaleError);
      expect((error as HeatmapScaleError).code).toBe("not_positive");
      expect((error as HeatmapScaleError).parameter).toBe("latency");
    }
  });

  it("property: position is monotone in the value, and valueAt inverts it inside the domain", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 1e4, noNaN: true }), { minLength: 2, maxLength: 20 }),
        fc.boolean(),
        (values, log) => {
          const s = sequentialScale(values, { log });
          const sorted = [...values].sort((a, b) => a - b);
          for (let i = 1; i < sorted.length; i++)
            expect(s.position(sorted[i]!)).toBeGreaterThanOrEqual(s.position(sorted[i - 1]!));
          if (s.domain[0] < s.domain[1]) for (const v of values) expect(s.valueAt(s.position(v))).toBeCloseTo(v, 6);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("diverging ratio scale", () => {
  it("1 is white; ×2 and ÷2 are equally far from the middle (log₂ 2 = 1 = −log₂ ½)", () => {
    const s = divergingRatioScale([0.5, 1, 2]);
    expect(s.domain[0]).toBeCloseTo(0.5, 12);
    expect(s.domain[1]).toBeCloseTo(2, 12);
    expect(s.position(1)).toBeCloseTo(0.5, 12);
    expect(s.color(1)).toBe("#f7f7f7");
    expect(s.position(2) - 0.5).toBeCloseTo(0.5 - s.position(0.5), 12);
  });

  it("the domain is symmetric around the ratio farthest from 1: ratios 0.8 and 1.6 → [1/1.6, 1.6]", () => {
    const s = divergingRatioScale([0.8, 1.6]);
    expect(s.domain[0]).toBeCloseTo(1 / 1.6, 12);
    expect(s.domain[1]).toBeCloseTo(1.6, 12);
  });

  it("ratios within noise keep a minimum reach of ×1.1, so 1.01 stays pale", () => {
    const s = divergingRatioScale([1.01]);
    expect(s.domain[1]).toBeCloseTo(1.1, 12);
    // log₂ 1.01 / log₂ 1.1 = 0.01436 / 0.1375 = 0.104 of the half-bar → position 0.5 + 0.052.
    expect(s.position(1.01)).toBeCloseTo(0.5 + Math.log2(1.01) / Math.log2(1.1) / 2, 12);
  });

  it("refuses a zero or negative ratio", () => {
    expect(() => divergingRatioScale([0])).toThrow(/ratios: 0 is not > 0/);
  });
});
