import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { countTriggeredFormationDelayMs, countTriggeredLatencyMs, windowWaitMs } from "./formation-delay";
import { RESNET50_REPRODUCING as R } from "./resnet50-reference";
import { batchThroughputPerS, serviceTimeMs } from "./service-time";

describe("Eq. 6 / TV-034: count-triggered formation delay at 500 QPS", () => {
  it("TV-034: B = 32 → 31 / (2 × 500) s = 31 ms; total 31 + 4.548 = 35.5 ms (display 36, '10×' of 3.5 ms)", () => {
    expect(countTriggeredFormationDelayMs(32, 500)).toBeCloseTo(31, 12);
    const total = countTriggeredLatencyMs(R, 32, 500);
    expect(total.toFixed(1)).toBe("35.5");
    expect(Math.round(total)).toBe(36);
    expect(Math.round(total / serviceTimeMs(R, 1))).toBe(10);
  });

  it("TV-034: B = 1 → no formation delay, but 500 > μ = 283.4 so batch 1 cannot carry the load", () => {
    expect(countTriggeredFormationDelayMs(1, 500)).toBe(0);
    expect(batchThroughputPerS(R, 1)).toBeLessThan(500);
  });

  it("TV-034 / TV-044: B = 16 → 15 ms; 16 → 32 raises mean formation wait from 15 ms to 31 ms", () => {
    expect(countTriggeredFormationDelayMs(16, 500)).toBeCloseTo(15, 12);
    expect(countTriggeredFormationDelayMs(32, 500)).toBeCloseTo(31, 12);
  });

  it("light traffic: formation delay diverges, reported as a typed error naming arrivalRatePerS", () => {
    expect(() => countTriggeredFormationDelayMs(8, 0)).toThrow(PlanningInputError);
    expect(() => countTriggeredFormationDelayMs(8, 0)).toThrow(/^arrivalRatePerS/);
    expect(countTriggeredFormationDelayMs(1, 0)).toBe(0);
    expect(() => countTriggeredFormationDelayMs(0, 10)).toThrow(/^batch/);
  });
});

describe("Eq. 8 / TV-035: wait in a fixed window", () => {
  it("TV-035: T_w = 20 ms → mean wait 10 ms, max 20 ms", () => {
    expect(windowWaitMs(20)).toEqual({ meanMs: 10, maxMs: 20 });
  });

  it("TV-035: a 10 ms mean wait is 20% of a 50 ms SLO and 10 / 3.5 = 2.86× the forward pass ('about 3×')", () => {
    const { meanMs } = windowWaitMs(20);
    expect(meanMs / 50).toBe(0.2);
    expect((meanMs / 3.5).toFixed(2)).toBe("2.86");
  });

  it("TV-031: batch 8 with a 10 ms window: 5 + 3.758 = 8.76 ms mean ('≈ 8.8 ms'), 20 − 8.8 = 11.2 ms headroom", () => {
    const mean = windowWaitMs(10).meanMs + serviceTimeMs(R, 8);
    expect(mean.toFixed(2)).toBe("8.76");
    expect((20 - Number(mean.toFixed(1))).toFixed(1)).toBe("11.2");
  });

  it("a negative window is a typed error", () => {
    expect(() => windowWaitMs(-1)).toThrow(/^windowMs/);
  });
});
