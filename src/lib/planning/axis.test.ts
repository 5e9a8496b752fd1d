import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { axisCeil, niceCeil, niceTicks } from "./axis";

describe("round axis ends", () => {
  it("coarse: 1, 2, 2.5, 5 × 10ⁿ", () => {
    expect([niceCeil(100), niceCeil(101), niceCeil(0.3), niceCeil(2.6), niceCeil(7), niceCeil(139.6)]).toEqual([
      100, 200, 0.5, 5, 10, 200,
    ]);
  });

  it("fine: 60.6 → 70, 54 → 60, 35.3 → 40, 8.6 → 10", () => {
    expect([axisCeil(60.6), axisCeil(54), axisCeil(35.3), axisCeil(8.6), axisCeil(1.1)]).toEqual([70, 60, 40, 10, 1.2]);
  });

  it("nothing sensible to round: 1", () => {
    expect([niceCeil(0), niceCeil(-3), niceCeil(Number.NaN), axisCeil(Infinity)]).toEqual([1, 1, 1, 1]);
  });

  it("property: the end is at or above x and under 2.5 × x (coarse; worst 1 → 2) or 4/3 × x (fine; worst 3 → 4)", () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e12, noNaN: true }), (x) => {
        expect(niceCeil(x)).toBeGreaterThanOrEqual(x * (1 - 1e-12));
        expect(niceCeil(x)).toBeLessThan(2.5 * x);
        expect(axisCeil(x)).toBeGreaterThanOrEqual(x * (1 - 1e-12));
        expect(axisCeil(x)).toBeLessThan((4 / 3) * x * (1 + 1e-9));
      }),
      { numRuns: 200 },
    );
  });
});

describe("nice ticks from zero", () => {
  it("215 → 0, 100, 200, 300; 18,272 → steps of 5,000 to 20,000; 100 → steps of 25", () => {
    expect(niceTicks(215).ticks).toEqual([0, 100, 200, 300]);
    expect(niceTicks(18_272)).toEqual({ top: 20_000, step: 5000, ticks: [0, 5000, 10_000, 15_000, 20_000] });
    expect(niceTicks(100).ticks).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(0.3).ticks).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it("nothing to scale: a unit axis", () => {
    expect(niceTicks(0).top).toBe(1);
    expect(niceTicks(Number.NaN).top).toBe(1);
  });

  it("property: the top covers max, ticks are evenly spaced, at most 2 × intervals + 1 of them", () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e12, noNaN: true }), (max) => {
        const t = niceTicks(max);
        expect(t.top).toBeGreaterThanOrEqual(max * (1 - 1e-9));
        expect(t.ticks[0]).toBe(0);
        expect(t.ticks.length).toBeLessThanOrEqual(9);
        for (let i = 1; i < t.ticks.length; i++) expect(t.ticks[i]! - t.ticks[i - 1]!).toBeCloseTo(t.step, 6);
      }),
      { numRuns: 200 },
    );
  });
});
