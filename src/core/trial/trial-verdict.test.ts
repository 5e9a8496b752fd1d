import { describe, expect, it } from "vitest";
import { trialVerdict } from "./trial-verdict";

describe("trialVerdict", () => {
  it("contradiction beyond noise: the measured best is proposed, with the paired interval", () => {
    // Choice − best per round: 2, 2.5, 2.3 → mean 2.2667, s = √(0.12667 / 2) = 0.25166, se = 0.14530,
    // t(0.975, 2) = 4.3027 → half-width 0.6252: [1.641, 2.892] lies above 0.
    const v = trialVerdict([
      { key: "A", rank: 1, predictedMs: 7, roundMeansMs: [10, 11, 10.5] },
      { key: "B", rank: 2, predictedMs: 8, roundMeansMs: [8, 8.5, 8.2] },
    ]);
    expect(v).toMatchObject({ proposedKey: "B", predictedKey: "A", measuredBestKey: "B", contradicted: true });
    expect(v.differenceMs!.mean).toBeCloseTo(2.2667, 3);
    expect(v.differenceMs!.lower).toBeCloseTo(1.641, 2);
    expect(v.differenceMs!.upper).toBeCloseTo(2.892, 2);
    expect(v.why).toMatch(/contradicts the prediction: B measured 8\.23 ms, the optimizer's choice A 10\.50 ms/);
  });
  it("within noise: the optimizer's choice stands", () => {
    // Diffs 1, −1, 1: mean 0.333, s = 1.1547, se = 0.6667, half-width 2.868: [−2.54, 3.20] includes 0.
    const v = trialVerdict([
      { key: "A", rank: 1, predictedMs: 7, roundMeansMs: [10, 8, 10] },
      { key: "B", rank: 2, predictedMs: 8, roundMeansMs: [9, 9, 9] },
    ]);
    expect(v).toMatchObject({ proposedKey: "A", measuredBestKey: "B", contradicted: false });
    expect(v.differenceMs!.lower).toBeCloseTo(-2.535, 2);
    expect(v.why).toMatch(/^within noise/);
  });
  it("confirmed when the choice is the fastest; one round cannot contradict; an unmeasured choice yields the best", () => {
    expect(
      trialVerdict([
        { key: "A", rank: 1, predictedMs: 1, roundMeansMs: [5, 5] },
        { key: "B", rank: null, predictedMs: 2, roundMeansMs: [6, 6] },
      ]),
    ).toMatchObject({ proposedKey: "A", contradicted: false, differenceMs: null });
    expect(
      trialVerdict([
        { key: "A", rank: 1, predictedMs: 1, roundMeansMs: [9] },
        { key: "B", rank: 2, predictedMs: 2, roundMeansMs: [5] },
      ]),
    ).toMatchObject({ proposedKey: "A", contradicted: false });
    expect(
      trialVerdict([
        { key: "A", rank: 1, predictedMs: 1, roundMeansMs: [] },
        { key: "B", rank: 2, predictedMs: 2, roundMeansMs: [5, 6] },
      ]).proposedKey,
    ).toBe("B");
    expect(() => trialVerdict([{ key: "A", rank: 1, predictedMs: 1, roundMeansMs: [] }])).toThrow(/no plan/);
  });
});
