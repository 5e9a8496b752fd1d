import { describe, expect, it } from "vitest";
import { EstimatorError } from "./errors";
import { DEFAULT_ESTIMATOR_PARAMS, resolveEstimatorParams } from "./params";

describe("resolveEstimatorParams", () => {
  it("defaults are the authors' code (α 0.1, ring 10, 1 s, 5 ms) plus the issue's 30 s dwell and 50 % / 1× triggers", () => {
    expect(resolveEstimatorParams()).toEqual({
      alpha: 0.1,
      ringSize: 10,
      reconfigurationTimeoutMs: 1000,
      sampleIntervalMs: 5,
      minDwellMs: 30_000,
      requireTrigger: true,
      timeoutIntervalShare: 0.5,
      queueDelayFactor: 1,
      hysteresis: 0,
      maxBatch: null,
    });
    expect(resolveEstimatorParams({ alpha: 0.3, ringSize: 5 })).toMatchObject({
      alpha: 0.3,
      ringSize: 5,
      minDwellMs: 30_000,
    });
    expect(Object.isFrozen(DEFAULT_ESTIMATOR_PARAMS)).toBe(true);
  });
  it("rejects each bad value with a typed error naming it", () => {
    const bad: Array<[string, object]> = [
      ["alpha", { alpha: 0 }],
      ["alpha", { alpha: 1.1 }],
      ["alpha", { alpha: Number.NaN }],
      ["ringSize", { ringSize: 0 }],
      ["ringSize", { ringSize: 2.5 }],
      ["reconfigurationTimeoutMs", { reconfigurationTimeoutMs: 0 }],
      ["sampleIntervalMs", { sampleIntervalMs: -5 }],
      ["minDwellMs", { minDwellMs: Infinity }],
      ["requireTrigger", { requireTrigger: "yes" }],
      ["timeoutIntervalShare", { timeoutIntervalShare: 1.5 }],
      ["queueDelayFactor", { queueDelayFactor: -1 }],
      ["hysteresis", { hysteresis: 1 }],
      ["maxBatch", { maxBatch: 0 }],
    ];
    for (const [parameter, overrides] of bad) {
      expect(() => resolveEstimatorParams(overrides)).toThrow(EstimatorError);
      expect(() => resolveEstimatorParams(overrides)).toThrow(
        expect.objectContaining({ code: "invalid-parameter", parameter }),
      );
    }
  });
});
