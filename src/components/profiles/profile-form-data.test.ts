import { describe, expect, it } from "vitest";
import { estimateGridDurationMs, PRECISION_STOPPING_RULE, PAPER_STOPPING_RULE } from "@/core/profiling/stopping-rule";
import { formatDuration } from "./profile-grid-data";
import {
  allThreads,
  batchesUpTo,
  chosenThreads,
  describeEstimate,
  describeGrid,
  parseDimensions,
  ProfileFormError,
} from "./profile-form-data";

describe("profile form grid", () => {
  it("Packrat §3.2: b ∈ {2⁰ … 2¹⁰} with T = 16 is 11 × 16 = 176 cells (not 2¹⁰ × 16 = 16,384)", () => {
    const batches = batchesUpTo(1024);
    expect(batches).toHaveLength(11);
    expect(describeGrid(allThreads(16), batches)).toBe("t ∈ {1, 2, 3, …, 16} × b ∈ {1, 2, 4, …, 1024} = 176 cells");
  });

  it("the default max batch 64 gives 1, 2, 4, …, 64 (7 sizes)", () => {
    expect(batchesUpTo(64)).toEqual([1, 2, 4, 8, 16, 32, 64]);
  });

  it("the e2e grid: t ∈ {1, 2} × b ∈ {1, 2} = 4 cells", () => {
    expect(describeGrid([1, 2], batchesUpTo(2))).toBe("t ∈ {1, 2} × b ∈ {1, 2} = 4 cells");
  });

  it("refuses a max batch that is not a power of two in 1 … 4096, naming the parameter", () => {
    for (const bad of [0, 3, 8192, 2.5, Number.NaN]) {
      try {
        batchesUpTo(bad);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ProfileFormError);
        expect((error as ProfileFormError).parameter).toBe("maxBatch");
      }
    }
  });

  it("thread counts: sorted, deduplicated, inside 1 … T", () => {
    expect(chosenThreads([2, 1, 2], 4)).toEqual([1, 2]);
    expect(() => chosenThreads([], 4)).toThrow("choose at least one thread count");
    expect(() => chosenThreads([1, 5], 4)).toThrow("thread counts must be between 1 and the budget's 4 cores (not 5)");
  });

  it("dimensions: whole numbers ≥ 1 by name", () => {
    expect(parseDimensions({ sequence: "128" })).toEqual({ sequence: 128 });
    expect(() => parseDimensions({ sequence: "0" })).toThrow("sequence must be a whole number from 1 to 1,000,000");
    expect(() => parseDimensions({ sequence: "12.5" })).toThrow(ProfileFormError);
  });
});

describe("duration estimate text", () => {
  it("says there is none when no probe is known", () => {
    expect(describeEstimate(null, formatDuration, "earlier-profile")).toBe(
      "No earlier-profile estimate: no profile of this version has measured t=1, b=1.",
    );
  });

  it("paper rule, probe 2 ms, t ∈ {1,2} × b ∈ {1,2}: Σ (2·b/t)·110 = (2 + 4 + 1 + 2) · 110 = 990 ms → about 1 s", () => {
    const est = { probeMs: 2, ...estimateGridDurationMs(2, [1, 2], [1, 2], PAPER_STOPPING_RULE) };
    expect(est.lowMs).toBeCloseTo(990, 9);
    expect(describeEstimate(est, formatDuration)).toBe(
      "Estimated duration: about 1 s of measuring (from a 3-iteration probe at t=1, b=1: 2 ms, scaled by b / t per cell), plus loading the model.",
    );
    // The same numbers from an earlier profile's cell are the fallback, and say so.
    expect(describeEstimate(est, formatDuration, "earlier-profile")).toBe(
      "Earlier-profile estimate: about 1 s of measuring (from an earlier profile's t=1, b=1 cell: 2 ms, scaled by b / t per cell), plus loading the model.",
    );
  });

  it("adaptive rule gives a range: low Σ (2·b/t)·15 = 9 · 15 = 135 ms, high Σ (2·b/t)·205 = 9 · 205 = 1,845 ms", () => {
    const est = { probeMs: 2, ...estimateGridDurationMs(2, [1, 2], [1, 2], PRECISION_STOPPING_RULE) };
    expect(est.lowMs).toBeCloseTo(135, 9);
    expect(est.highMs).toBeCloseTo(1845, 9);
    expect(describeEstimate(est, formatDuration)).toMatch(/^Estimated duration: under 1 s to 2 s of measuring/);
  });

  it("a grid under a second reads 'under 1 s', not 'about < 1 s': paper, probe 0.1 ms, 1 cell → 0.1 · 110 = 11 ms", () => {
    const est = { probeMs: 0.1, ...estimateGridDurationMs(0.1, [1], [1], PAPER_STOPPING_RULE) };
    expect(describeEstimate(est, formatDuration)).toMatch(
      /^Estimated duration: under 1 s of measuring \(from a 3-iteration probe at t=1, b=1: 0\.1 ms/,
    );
  });
});
