import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { judgeStep, searchMaxRate, type StepMeasurement } from "./max-rate-search";

/** A target that keeps p99 at 10 ms up to `capacity` requests/s and falls over above it. */
const target =
  (capacity: number) =>
  async (rate: number): Promise<StepMeasurement> => ({ p99Ms: rate <= capacity ? 10 : 500, intended: 1000, ok: 1000 });

const base = { maxRate: 100_000, factor: 2, p99LimitMs: 50, maxFailureFraction: 0.001 };

describe("searchMaxRate", () => {
  it("capacity 300/s from 50/s, ×2 ramp and 3 bisections: 50, 100, 200 pass, 400 fails; 300 passes, 350 and 325 fail → 300", async () => {
    const result = await searchMaxRate({ ...base, startRate: 50, refineSteps: 3, runStep: target(300) });
    expect(result.steps.map((s) => [s.rate, s.passed])).toEqual([
      [50, true],
      [100, true],
      [200, true],
      [400, false],
      [300, true],
      [350, false],
      [325, false],
    ]);
    expect(result.maxRate).toBe(300);
    expect(result.firstFailingRate).toBe(325);
  });

  it("property: after the ramp brackets the capacity within ×2, k bisections leave the answer within capacity/2^k below it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 10, max: 5000, noNaN: true }),
        fc.integer({ min: 0, max: 8 }),
        async (capacity, refineSteps) => {
          const { maxRate } = await searchMaxRate({ ...base, startRate: 5, refineSteps, runStep: target(capacity) });
          // The bracket [pass, 2·pass] has width pass ≤ capacity; each bisection halves it.
          return maxRate !== undefined && maxRate <= capacity && maxRate >= capacity * (1 - 2 ** -refineSteps) - 1e-9;
        },
      ),
      { numRuns: 200 },
    );
  });

  it("stops at maxRate when nothing fails, and reports no answer when the start rate already fails", async () => {
    const capped = await searchMaxRate({ ...base, maxRate: 150, startRate: 50, refineSteps: 3, runStep: target(1e9) });
    expect(capped.steps.map((s) => s.rate)).toEqual([50, 100, 150]);
    expect(capped).toMatchObject({ maxRate: 150, firstFailingRate: undefined });
    const hopeless = await searchMaxRate({ ...base, startRate: 50, refineSteps: 2, runStep: target(10) });
    // 50 fails; bisect in (0, 50): 25 fails, 12.5 fails.
    expect(hopeless.steps.map((s) => s.rate)).toEqual([50, 25, 12.5]);
    expect(hopeless.maxRate).toBeUndefined();
  });

  it("rejects a ramp factor that cannot climb", async () => {
    await expect(
      searchMaxRate({ ...base, factor: 1, startRate: 1, refineSteps: 0, runStep: target(1) }),
    ).rejects.toMatchObject({ parameter: "factor" });
  });
});

describe("judgeStep", () => {
  it("fails on the p99 limit, and on failures and drops above the allowed fraction", () => {
    expect(judgeStep({ p99Ms: 49, intended: 1000, ok: 1000 }, 50, 0.001).passed).toBe(true);
    expect(judgeStep({ p99Ms: 51, intended: 1000, ok: 1000 }, 50, 0.001)).toMatchObject({
      passed: false,
      reason: expect.stringMatching(/p99 51\.0 ms > 50 ms/),
    });
    // 998 of 1000 = 0.2% failed > 0.1%.
    expect(judgeStep({ p99Ms: 1, intended: 1000, ok: 998 }, 50, 0.001)).toMatchObject({
      passed: false,
      reason: expect.stringMatching(/0\.20% of requests failed/),
    });
    expect(judgeStep({ p99Ms: 0, intended: 0, ok: 0 }, 50, 0.001).passed).toBe(false);
  });
});
