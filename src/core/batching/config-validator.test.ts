import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { validateBatchingCandidate, type BatchingCandidateInput, type CheckId } from "./config-validator";
import { RESNET50_REPRODUCING as R } from "./resnet50-reference";

const table10: BatchingCandidateInput = {
  model: R,
  arrivalRatePerS: 500,
  windowMs: 12,
  maxBatch: 32,
  sloMs: 50,
  memoryCapBatch: 32,
};

const check = (input: BatchingCandidateInput, id: CheckId) => {
  const c = validateBatchingCandidate(input).checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
};

describe("batching candidate validator (digest §6.3 item 24)", () => {
  it("Table 10: T_w = 12 ms, B_max = 32 at 500 QPS under a 50 ms SLO passes every screen, with the numbers", () => {
    const v = validateBatchingCandidate(table10);
    expect(v.pass).toBe(true);
    expect(v.checks.map((c) => [c.id, c.status])).toEqual([
      ["stability", "pass"],
      ["mean-screen", "pass"],
      ["tail-envelope", "pass"],
      ["window-fraction", "pass"],
      ["memory-cap", "pass"],
      ["zero-window", "pass"],
    ]);
    // Stability: 500 < 32 / 4.548 ms = 7,036/s.
    expect(Math.round(check(table10, "stability").numbers.capacityPerS!)).toBe(7036);
    // Tail: 12 + T(13) = 15.923 ms ≤ 50; the request-seen p99 batch 13 sits under the cap of 32.
    const tail = check(table10, "tail-envelope").numbers;
    expect(tail.requestSeenBatch).toBe(13);
    expect(tail.envelopeMs!.toFixed(3)).toBe("15.923");
    // Window: 12 ≤ 0.3 × 50 = 15.
    expect(check(table10, "window-fraction").numbers.maxWindowMs).toBeCloseTo(15, 12);
    // Mean: B_L = floor((50 − 6 − 3.49528)/0.0328947) = floor(1,231.34) = 1,231 ≥ 32; mean at λ = 6 + 3.49528 + 7 × 0.0328947 = 9.7255 ms.
    const mean = check(table10, "mean-screen").numbers;
    expect(mean.latencyBoundedBatch).toBe(1231);
    expect(mean.meanLatencyMs!.toFixed(3)).toBe("9.726");
  });

  it("TV-034: batch cap 1 at 500 QPS fails stability (μ = 283.4/s)", () => {
    const c = check({ ...table10, maxBatch: 1 }, "stability");
    expect(c.status).toBe("fail");
    expect(c.message).toMatch(/backlog diverges/);
  });

  it("a window over 30% of the SLO fails the window-fraction check: 20 ms > 15 ms", () => {
    expect(check({ ...table10, windowMs: 20 }, "window-fraction").status).toBe("fail");
  });

  it("a cap above the memory-limited batch fails the memory check; without a cap the check is skipped", () => {
    expect(check({ ...table10, maxBatch: 64 }, "memory-cap").status).toBe("fail");
    const { memoryCapBatch: _omit, ...noCap } = table10;
    expect(check(noCap, "memory-cap").status).toBe("skipped");
    expect(validateBatchingCandidate(noCap).pass).toBe(true);
  });

  it("a tight tail budget fails the envelope: 15.923 ms > 15 ms", () => {
    const v = validateBatchingCandidate({ ...table10, tailBudgetMs: 15 });
    expect(v.pass).toBe(false);
    expect(v.checks.find((c) => c.id === "tail-envelope")!.status).toBe("fail");
  });

  it("Eq. 11 mean screen fails when B_max exceeds B_L: budget 10 ms, T_w 12 → B_L = floor((10 − 6 − 3.495)/0.0329) = 15 < 32", () => {
    const c = check({ ...table10, meanBudgetMs: 10 }, "mean-screen");
    expect(c.numbers.latencyBoundedBatch).toBe(15);
    expect(c.status).toBe("fail");
  });

  it("zero-window conditions fail a nonzero window and pass a zero one", () => {
    const ragged = { ...table10, variableLengthInputs: true, raggedTensorSupport: false };
    expect(check(ragged, "zero-window").status).toBe("fail");
    expect(check({ ...ragged, windowMs: 0 }, "zero-window").status).toBe("pass");
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => validateBatchingCandidate({ ...table10, maxBatch: 0 })).toThrow(PlanningInputError);
    expect(() => validateBatchingCandidate({ ...table10, windowMs: Number.NaN })).toThrow(/^windowMs/);
    expect(() => validateBatchingCandidate({ ...table10, sloMs: -1 })).toThrow(/^sloMs/);
    expect(() => validateBatchingCandidate({ ...table10, efficiency: 2 })).toThrow(/^efficiency/);
  });
});
