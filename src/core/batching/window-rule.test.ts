import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { maxWindowMs } from "./window-rule";

describe("F-32 window rule T_w ≤ fraction × SLO", () => {
  it("Table 10: a 30% allocation of a 50 ms SLO gives a 15 ms batching budget and maximum window", () => {
    expect(maxWindowMs(50)).toBeCloseTo(15, 12);
  });

  it("another workload may allocate another share: 20% of 50 ms = 10 ms", () => {
    expect(maxWindowMs(50, 0.2)).toBeCloseTo(10, 12);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => maxWindowMs(0)).toThrow(PlanningInputError);
    expect(() => maxWindowMs(50, 1)).toThrow(/^fraction/);
  });
});
