import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { probabilityAtLeast, requestSeenBatch, windowArrivalStats } from "./window-arrivals";

describe("Eq. 9 / TV-036: Poisson window statistics, T_w = 10 ms", () => {
  it("TV-036 λ = 50: mean 0.5, std 0.7071 (0.7), P(0) = 0.6065 ('61 percent'), P(k ≥ 1) = 0.3935 ('39 percent')", () => {
    const s = windowArrivalStats(50, 10); // 50/s × 0.010 s = 0.5
    expect(s.mean).toBeCloseTo(0.5, 15);
    expect(s.std.toFixed(4)).toBe("0.7071");
    expect(Math.round(s.probabilityEmpty * 100)).toBe(61);
    expect(Math.round(probabilityAtLeast(50, 10, 1) * 100)).toBe(39); // 2 × mean = 1
  });

  it("TV-036 λ = 200: mean 2, std 1.4142, P(0) = 0.1353, P(k ≥ 4) = 0.1429", () => {
    const s = windowArrivalStats(200, 10);
    expect(s.mean).toBeCloseTo(2, 15);
    expect(s.std.toFixed(4)).toBe("1.4142");
    expect(s.probabilityEmpty.toFixed(4)).toBe("0.1353");
    expect(probabilityAtLeast(200, 10, 4).toFixed(4)).toBe("0.1429");
  });

  it("TV-036 λ = 1000: mean 10, std 3.1623, P(0) = 4.54e-5, P(k ≥ 20) = 0.003454 ('0.3 percent')", () => {
    const s = windowArrivalStats(1000, 10);
    expect(s.std.toFixed(4)).toBe("3.1623");
    expect(s.probabilityEmpty.toPrecision(3)).toBe("0.0000454");
    const tail = probabilityAtLeast(1000, 10, 20);
    expect(tail.toPrecision(4)).toBe("0.003454");
    expect((tail * 100).toFixed(1)).toBe("0.3");
  });
});

describe("Eq. 12 input: the request-seen batch 1 + Poisson(λ·T_w)", () => {
  it("TV-038: λ = 500, T_w = 10 ms → λT_w = 5, mean request-seen batch 6, p99 1 + 11 = 12", () => {
    const s = requestSeenBatch(500, 10);
    expect(s.poissonMean).toBeCloseTo(5, 15);
    expect(s.mean).toBeCloseTo(6, 15);
    expect(s.quantileBatch).toBe(12);
  });

  it("Table 10: request-seen p99 batch 13 (λ = 500, T_w = 12 ms → λT_w = 6, mean 7)", () => {
    const s = requestSeenBatch(500, 12);
    expect(s.poissonMean).toBeCloseTo(6, 15);
    expect(s.mean).toBeCloseTo(7, 15);
    expect(s.quantileBatch).toBe(13);
  });

  it("no traffic or no window: the request sees only itself", () => {
    expect(requestSeenBatch(0, 10).quantileBatch).toBe(1);
    expect(requestSeenBatch(500, 0).quantileBatch).toBe(1);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => windowArrivalStats(-1, 10)).toThrow(PlanningInputError);
    expect(() => windowArrivalStats(1, Number.NaN)).toThrow(/^windowMs/);
    expect(() => requestSeenBatch(500, 10, 1.2)).toThrow(/^level/);
    expect(() => probabilityAtLeast(500, 10, 1.5)).toThrow(/^n:/);
    expect(() => windowArrivalStats(1e308, 1e10)).toThrow(/^arrivalRatePerS/);
  });
});
