import { describe, expect, it } from "vitest";
import { EstimatorError } from "./errors";
import { createEstimator, decide, observe, recordBatch } from "./estimator";
import { restoreEstimatorState } from "./restore-state";

/** A state with history: three 1 s intervals at depth 12, 12, 40 (ring [8, 8, 8]) and one batch pending. */
function sample() {
  let s = createEstimator({ ringSize: 4 });
  for (const [x, q] of [12, 12, 40].entries()) {
    s = observe(s, q, x * 1000 + 5);
    s = recordBatch(s, { timedOut: x === 2, queueDelayMs: 3, tMs: x * 1000 + 6 });
    s = decide(s, (x + 1) * 1000, { currentB: 8, batchTimeoutMs: 10 }).state;
  }
  return recordBatch(observe(s, 40, 3005), { timedOut: false, queueDelayMs: 1, tMs: 3006 });
}

describe("restoreEstimatorState", () => {
  it("round-trips through JSON, and the restored estimator decides exactly as the original", () => {
    const original = sample();
    const restored = restoreEstimatorState(JSON.parse(JSON.stringify(original)));
    expect(restored).toEqual(original);
    // Q̃: 12, 12, 0.1·40 + 0.9·12 = 14.8, then 0.1·40 + 0.9·14.8 = 17.32 → B̂ 16; ring [8, 8, 8, 16] → B̃ 8.
    const ctx = { currentB: 8, batchTimeoutMs: 10 };
    const a = decide(original, 4000, ctx).decision;
    expect(decide(restored, 4000, ctx).decision).toEqual(a);
    expect(a.qTilde).toBeCloseTo(17.32, 12);
    expect(a).toMatchObject({ estimate: 16, stable: 8 });
  });

  it("fills parameters added later with their defaults", () => {
    const json = JSON.parse(JSON.stringify(sample())) as { params: Record<string, unknown> };
    delete json.params.hysteresis;
    expect(restoreEstimatorState(json).params.hysteresis).toBe(0);
  });

  it("rejects malformed states with a typed error naming the field", () => {
    type Json = ReturnType<typeof sample> & Record<string, unknown>;
    const cases: Array<[(j: Json) => void, string]> = [
      [(j) => (j.version = 2 as never), "state.version"],
      [(j) => (j.params = null as never), "state.params"],
      [(j) => (j.qTilde = "12" as never), "state.qTilde"],
      [(j) => (j.estimates = [8, 0]), "state.estimates[1]"],
      [(j) => (j.estimates = [1, 1, 1, 1, 1]), "state.estimates"], // more than ringSize 4
      [(j) => (j.intervals[0]!.timedOut = 5), "state.intervals[0].timedOut"],
      [(j) => (j.pending.samples = -1), "state.pending.samples"],
      [(j) => (j.lastDecisionMs = Number.NaN), "state.lastDecisionMs"],
      [(j) => (j.stable = 2.5), "state.stable"],
    ];
    for (const [spoil, parameter] of cases) {
      const json = JSON.parse(JSON.stringify(sample()));
      spoil(json);
      expect(() => restoreEstimatorState(json)).toThrow(EstimatorError);
      expect(() => restoreEstimatorState(json)).toThrow(expect.objectContaining({ code: "invalid-state", parameter }));
    }
    expect(() => restoreEstimatorState(null)).toThrow(expect.objectContaining({ parameter: "state" }));
  });
});
