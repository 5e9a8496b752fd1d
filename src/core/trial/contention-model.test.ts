import { describe, expect, it } from "vitest";
import { correctedPrediction, fitContentionModel, fitLine, IDENTITY_MODEL, planFeatures } from "./contention-model";

describe("fitLine", () => {
  it("least squares: x 0, 0.5, 0 and y 1.1, 1.25, 1.1 → slope 0.3, intercept 1.1", () => {
    // mean x = 1/6, mean y = 1.15; Sxy = (−1/6)(−0.05) + (1/3)(0.1) + (−1/6)(−0.05) = 0.05; Sxx = 1/36 + 1/9 + 1/36 = 1/6.
    // slope = 0.05 ÷ (1/6) = 0.3; intercept = 1.15 − 0.3 · 1/6 = 1.1.
    const line = fitLine([0, 0.5, 0], [1.1, 1.25, 1.1], 1);
    expect(line.slope).toBeCloseTo(0.3, 12);
    expect(line.intercept).toBeCloseTo(1.1, 12);
    expect([line.points, line.distinctX]).toEqual([3, 2]);
  });
  it("one distinct x: slope 0, intercept the mean; none: the fallback", () => {
    expect(fitLine([0, 0], [1.2, 1.4], 1)).toMatchObject({ slope: 0, points: 2, distinctX: 1 });
    expect(fitLine([0, 0], [1.2, 1.4], 1).intercept).toBeCloseTo(1.3, 12);
    expect(fitLine([], [], 1)).toEqual({ intercept: 1, slope: 0, points: 0, distinctX: 0 });
    expect(() => fitLine([1], [], 0)).toThrow(/ys/);
    expect(() => fitLine([Number.NaN], [1], 0)).toThrow(/finite/);
  });
  it("matches brute force: the least-squares line minimizes the squared residuals over a grid", () => {
    const xs = [0, 0.25, 0.5, 0.75, 0.5],
      ys = [1.02, 1.1, 1.31, 1.38, 1.2];
    const line = fitLine(xs, ys, 1);
    const sse = (a: number, g: number) => xs.reduce((s, x, i) => s + (ys[i]! - a - g * x) ** 2, 0);
    const best = sse(line.intercept, line.slope);
    for (let a = 0.8; a <= 1.3; a += 0.01)
      for (let g = -0.2; g <= 1; g += 0.01) expect(sse(a, g)).toBeGreaterThanOrEqual(best - 1e-12);
  });
});

describe("planFeatures", () => {
  it("x = (Σt − t of the slowest) ÷ T, i = instances", () => {
    // ⟨2,1,2⟩ on T = 2: Σt = 2, slowest t = 1 → x = 1/2. ⟨1,2,4⟩: x = 0. ⟨1,1,2⟩(3 ms)+⟨1,3,6⟩(5 ms) on T = 4: (4 − 3)/4.
    expect(planFeatures([{ count: 2, threads: 1, batch: 2 }], 2)).toEqual({ x: 0.5, instances: 2 });
    expect(planFeatures([{ count: 1, threads: 2, batch: 4 }], 2)).toEqual({ x: 0, instances: 1 });
    expect(
      planFeatures(
        [
          { count: 1, threads: 1, batch: 2, latencyMs: 3 },
          { count: 1, threads: 3, batch: 6, latencyMs: 5 },
        ],
        4,
      ),
    ).toEqual({ x: 0.25, instances: 2 });
    expect(() => planFeatures([], 2)).toThrow(/at least one/);
  });
});

describe("fitContentionModel", () => {
  const observations = [
    // ⟨1,2,4⟩: r = 11 / 10 = 1.1, overhead 11.5 − 11 = 0.5, x = 0, i − 1 = 0.
    { groups: [{ count: 1, threads: 2, batch: 4 }], cores: 2, isolatedMs: 10, instanceMs: 11, dispatchMs: 11.5 },
    // ⟨2,1,2⟩: r = 10 / 8 = 1.25, overhead 1, x = 0.5, i − 1 = 1.
    { groups: [{ count: 2, threads: 1, batch: 2 }], cores: 2, isolatedMs: 8, instanceMs: 10, dispatchMs: 11 },
    // ⟨1,1,4⟩ (a core idle): r = 13.2 / 12 = 1.1, overhead 0.5, x = 0.
    { groups: [{ count: 1, threads: 1, batch: 4 }], cores: 2, isolatedMs: 12, instanceMs: 13.2, dispatchMs: 13.7 },
  ];
  it("fits r = 1.1 + 0.3·x and o = 0.5 + 0.5·(i − 1), exactly here (RMS error 0)", () => {
    const m = fitContentionModel(observations);
    expect(m.contention.intercept).toBeCloseTo(1.1, 9);
    expect(m.contention.slope).toBeCloseTo(0.3, 9);
    expect(m.overhead.intercept).toBeCloseTo(0.5, 9);
    expect(m.overhead.slope).toBeCloseTo(0.5, 9);
    expect(m.rmsRelativeError).toBeCloseTo(0, 9);
    // A new plan ⟨2,1,4⟩ predicted 20 ms alone: 20 · (1.1 + 0.3 · 0.5) + 0.5 + 0.5 · 1 = 25 + 1 = 26 ms.
    expect(correctedPrediction(m, 20, { x: 0.5, instances: 2 })).toBeCloseTo(26, 9);
  });
  it("no observation: the identity (the isolated prediction unchanged)", () => {
    expect(fitContentionModel([])).toBe(IDENTITY_MODEL);
    expect(correctedPrediction(IDENTITY_MODEL, 20, { x: 0.5, instances: 2 })).toBe(20);
  });
  it("rejects an observation with a non-positive latency", () => {
    expect(() => fitContentionModel([{ ...observations[0]!, instanceMs: 0 }])).toThrow(/positive/);
  });
});
