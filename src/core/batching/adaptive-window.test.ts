import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { adaptiveWindowHeuristic } from "./adaptive-window";

describe("Listing 2 adaptive window (a heuristic) / TV-042, target batch 16", () => {
  // [queue_depth, arrival_rate, slo, service, fixed] → window; max_wait = max(0, slo − service − fixed).
  const rows: Array<[number, number, number, number, number, number, string]> = [
    [20, 500, 50, 4, 6, 0, "batch-ready"], // 20 ≥ 16
    [16, 0, 50, 4, 6, 0, "batch-ready"],
    [4, 500, 50, 4, 6, 24, "arrival-estimate"], // 12 needed / 500 × 1000 = 24 ≤ 40
    [4, 100, 50, 4, 6, 40, "budget-cap"], // 120 ms capped by 50 − 4 − 6 = 40
    [0, 0, 50, 4, 6, 40, "low-traffic"],
    [10, 2000, 50, 4, 6, 3, "arrival-estimate"], // 6 / 2000 × 1000 = 3
    [4, 500, 8, 4, 6, 0, "budget-cap"], // max(0, −2) = 0
    [15, 1000, 20, 4.55, 3, 1, "arrival-estimate"], // 1 / 1000 × 1000 = 1 ≤ 12.45
  ];
  for (const [queueDepth, arrivalRatePerS, sloMs, serviceMs, fixedOverheadMs, expected, branch] of rows) {
    it(`TV-042: depth ${queueDepth}, ${arrivalRatePerS}/s, SLO ${sloMs}, service ${serviceMs}, fixed ${fixedOverheadMs} → ${expected} ms`, () => {
      const w = adaptiveWindowHeuristic({ queueDepth, arrivalRatePerS, sloMs, serviceMs, fixedOverheadMs });
      expect(w.kind).toBe("heuristic");
      expect(w.windowMs).toBeCloseTo(expected, 12);
      expect(w.branch).toBe(branch);
    });
  }

  it("the target batch size is a deployment knob: target 8 at depth 4 and 500/s → 8 ms", () => {
    const w = adaptiveWindowHeuristic({
      queueDepth: 4,
      arrivalRatePerS: 500,
      sloMs: 50,
      serviceMs: 4,
      fixedOverheadMs: 6,
      targetBatchSize: 8,
    });
    expect(w.windowMs).toBeCloseTo(8, 12);
  });

  it("bad input: typed errors naming the parameter", () => {
    const ok = { queueDepth: 4, arrivalRatePerS: 500, sloMs: 50, serviceMs: 4, fixedOverheadMs: 6 };
    expect(() => adaptiveWindowHeuristic({ ...ok, queueDepth: -1 })).toThrow(PlanningInputError);
    expect(() => adaptiveWindowHeuristic({ ...ok, arrivalRatePerS: Number.NaN })).toThrow(/^arrivalRatePerS/);
    expect(() => adaptiveWindowHeuristic({ ...ok, targetBatchSize: 0 })).toThrow(/^targetBatchSize/);
  });
});
