import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { RESNET50_REPRODUCING as R } from "./resnet50-reference";
import { zeroWindowAdvice } from "./zero-window";

describe("F-36: when the right window is zero", () => {
  it("Table 10's scenario (50 ms SLO) needs no zero window: 0.3 × 50 = 15 ms ≥ T(1) = 3.53 ms", () => {
    expect(zeroWindowAdvice({ model: R, sloMs: 50 })).toEqual({ zeroWindow: false, reasons: [] });
  });

  it("ultra-low target: a 10 ms SLO leaves a 3 ms window allowance, less than one 3.53 ms forward pass", () => {
    const a = zeroWindowAdvice({ model: R, sloMs: 10 });
    expect(a.zeroWindow).toBe(true);
    expect(a.reasons.map((r) => r.reason)).toEqual(["ultra-low-latency-target"]);
  });

  it("variable-length inputs on a runtime without ragged tensors: padding waste", () => {
    const without = zeroWindowAdvice({ model: R, sloMs: 50, variableLengthInputs: true });
    expect(without.reasons.map((r) => r.reason)).toEqual(["padding-without-ragged-tensors"]);
    expect(
      zeroWindowAdvice({ model: R, sloMs: 50, variableLengthInputs: true, raggedTensorSupport: true }).zeroWindow,
    ).toBe(false);
  });

  it("weights that leave memory for one request: batching risks OOM", () => {
    expect(zeroWindowAdvice({ model: R, sloMs: 50, memoryCapBatch: 1 }).reasons.map((r) => r.reason)).toEqual([
      "memory-fits-one-request",
    ]);
    expect(zeroWindowAdvice({ model: R, sloMs: 50, memoryCapBatch: 2 }).zeroWindow).toBe(false);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => zeroWindowAdvice({ model: R, sloMs: -1 })).toThrow(PlanningInputError);
    expect(() => zeroWindowAdvice({ model: R, sloMs: 50, memoryCapBatch: 1.5 })).toThrow(/^memoryCapBatch/);
  });
});
