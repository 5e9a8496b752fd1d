import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { RESNET50_REPRODUCING as R, RESNET50_STATED as A } from "./resnet50-reference";
import { deratedCapacityPerS, stabilityScreen } from "./stability";

describe("Eq. 10 stability screen", () => {
  it("TV-034: batch 1 at 500 QPS fails: μ = 283.4/s, ρ = 1.76, throughput capped at 283.4", () => {
    const s = stabilityScreen(R, 500, 1);
    expect(s.stable).toBe(false);
    expect(s.capacityPerS.toFixed(1)).toBe("283.4");
    expect(s.utilization.toFixed(2)).toBe("1.76"); // 500 / 283.43
    expect(s.throughputPerS).toBe(s.capacityPerS);
  });

  it("TV-034: batch 32 at 500 QPS is stable: μ_eff = 7,036/s, ρ = 0.071, throughput = λ", () => {
    const s = stabilityScreen(R, 500, 32);
    expect(s.stable).toBe(true);
    expect(s.utilization.toFixed(3)).toBe("0.071");
    expect(s.throughputPerS).toBe(500);
  });

  it("λ exactly at capacity is not stable (the backlog does not settle)", () => {
    const cap = stabilityScreen(R, 0, 8).capacityPerS;
    expect(stabilityScreen(R, cap, 8).stable).toBe(false);
  });

  it("Table 10: illustrative saturated capacity 0.89 × 7,036.2 = 6,262 img/s (display 6,300; fixture A 6,251)", () => {
    const c = deratedCapacityPerS(R, 32);
    expect(Math.round(c)).toBe(6262);
    expect(Number(c.toPrecision(2))).toBe(6300);
    expect(Math.round(deratedCapacityPerS(A, 32))).toBe(6251);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => stabilityScreen(R, -1, 8)).toThrow(PlanningInputError);
    expect(() => stabilityScreen(R, 10, 8, 1.5)).toThrow(/^efficiency/);
    expect(() => deratedCapacityPerS(R, 32, Number.NaN)).toThrow(/^efficiency/);
  });
});
