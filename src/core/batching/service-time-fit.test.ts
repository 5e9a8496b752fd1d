import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { RESNET50_REPRODUCING as R } from "./resnet50-reference";
import { serviceTimeMs } from "./service-time";
import { fitServiceTime, type ProfilePoint } from "./service-time-fit";

describe("service-time fit T(B) = F + s·B", () => {
  it("F-23: fitting Table 8's five modeled points recovers F = 3.49528 ms and s = 0.0328947 ms, R² = 1", () => {
    const points = [1, 4, 8, 16, 32].map((b) => ({ batch: b, latencyMs: serviceTimeMs(R, b) }));
    const fit = fitServiceTime(points);
    expect(fit.chosen).toBe("affine");
    expect(fit.affine.model.fixedMs).toBeCloseTo(2.61 + 0.87 + (51.2e6 / 3.35e12) * 1e3, 12); // 3.4952836
    expect(fit.affine.model.perSampleMs).toBeCloseTo(1000 / 30_400, 12);
    expect(fit.affine.r2).toBeCloseTo(1, 12);
    expect(fit.twoSegment).toBeNull();
    expect(fit.reason).toMatch(/R² 1\.0000/);
  });

  it("property: noiseless points give back F and s exactly (to rounding), whatever the batch sizes", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 1e-4, max: 10, noNaN: true }),
        fc.uniqueArray(fc.integer({ min: 1, max: 1024 }), { minLength: 2, maxLength: 12 }),
        (fixedMs, perSampleMs, batches) => {
          const pts = batches.map((b) => ({ batch: b, latencyMs: fixedMs + perSampleMs * b }));
          const fit = fitServiceTime(pts);
          const scale = fixedMs + perSampleMs * Math.max(...batches);
          expect(Math.abs(fit.affine.model.fixedMs - fixedMs)).toBeLessThanOrEqual(1e-9 * scale);
          expect(Math.abs(fit.affine.model.perSampleMs - perSampleMs)).toBeLessThanOrEqual(1e-9 * scale);
          expect(fit.chosen).toBe("affine");
          expect(fit.affine.maxRelativeResidual).toBeLessThan(1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("R² and residuals by hand: points (1, 2), (2, 5), (3, 5) fit 1 + 1.5·B, R² = 0.75", () => {
    // x̄ = 2, ȳ = 4; Sxy = (−1)(−2) + 0 + (1)(1) = 3; Sxx = 2 → s = 1.5, F = 4 − 3 = 1.
    // Predictions 2.5, 4, 5.5; residuals −0.5, 1, −0.5; SSE = 1.5; SST = 4 + 1 + 1 = 6; R² = 0.75.
    const fit = fitServiceTime([
      { batch: 1, latencyMs: 2 },
      { batch: 2, latencyMs: 5 },
      { batch: 3, latencyMs: 5 },
    ]);
    expect(fit.affine.model.fixedMs).toBeCloseTo(1, 12);
    expect(fit.affine.model.perSampleMs).toBeCloseTo(1.5, 12);
    expect(fit.affine.sse).toBeCloseTo(1.5, 12);
    expect(fit.affine.r2).toBeCloseTo(0.75, 12);
    expect(fit.affine.residuals.map((r) => r.residualMs)).toEqual([-0.5, 1, -0.5].map((x) => expect.closeTo(x, 12)));
    expect(fit.affine.maxRelativeResidual).toBeCloseTo(0.25, 12); // |−0.5| / 2
    // Only 3 distinct batch sizes: too few for two segments, so the poor line stays and says why.
    expect(fit.chosen).toBe("affine");
    expect(fit.reason).toMatch(/at least 4 distinct/);
  });

  it("a kinked profile falls back to two segments broken at the profiled batch with the least squared error", () => {
    // Flat 6 ms up to b = 8 (launch-bound; the upper line would give 5 there), then 1 + 0.5·b: 9, 17, 33 ms at 16, 32, 64.
    const pts: ProfilePoint[] = [1, 2, 4, 8, 16, 32, 64].map((b) => ({
      batch: b,
      latencyMs: b <= 8 ? 6 : 1 + 0.5 * b,
    }));
    const fit = fitServiceTime(pts);
    expect(fit.affine.maxRelativeResidual).toBeGreaterThan(0.05);
    expect(fit.chosen).toBe("two-segment");
    expect(fit.twoSegment).not.toBeNull();
    const m = fit.twoSegment!.model;
    expect(m.breakBatch).toBe(8);
    expect(m.lower.fixedMs).toBeCloseTo(6, 9);
    expect(m.lower.perSampleMs).toBeCloseTo(0, 9);
    expect(m.upper.fixedMs).toBeCloseTo(1, 9);
    expect(m.upper.perSampleMs).toBeCloseTo(0.5, 9);
    expect(fit.twoSegment!.sse).toBeCloseTo(0, 9);
    expect(fit.reason).toMatch(/broken at b = 8/);
    expect(serviceTimeMs(fit.model, 48)).toBeCloseTo(25, 9);
  });

  it("brute force: the chosen break has the least SSE of every admissible break", () => {
    const pts: ProfilePoint[] = [
      { batch: 1, latencyMs: 3.1 },
      { batch: 2, latencyMs: 3.0 },
      { batch: 4, latencyMs: 3.4 },
      { batch: 8, latencyMs: 3.3 },
      { batch: 16, latencyMs: 6.2 },
      { batch: 32, latencyMs: 11.9 },
      { batch: 64, latencyMs: 24.5 },
    ];
    const fit = fitServiceTime(pts);
    expect(fit.chosen).toBe("two-segment");
    const sseAt = (breakBatch: number) => {
      const line = (xs: ProfilePoint[]) => {
        const n = xs.length;
        const mx = xs.reduce((a, p) => a + p.batch, 0) / n;
        const my = xs.reduce((a, p) => a + p.latencyMs, 0) / n;
        const s =
          xs.reduce((a, p) => a + (p.batch - mx) * (p.latencyMs - my), 0) /
          xs.reduce((a, p) => a + (p.batch - mx) ** 2, 0);
        return xs.reduce((a, p) => a + (p.latencyMs - (my - s * mx) - s * p.batch) ** 2, 0);
      };
      return line(pts.filter((p) => p.batch <= breakBatch)) + line(pts.filter((p) => p.batch > breakBatch));
    };
    const admissible = [2, 4, 8, 16]; // ≥ 2 distinct sizes on each side
    const best = Math.min(...admissible.map(sseAt));
    expect(fit.twoSegment!.sse).toBeCloseTo(best, 12);
    expect(sseAt(fit.twoSegment!.model.breakBatch)).toBeCloseTo(best, 12);
  });

  it("repeated measurements at a batch size are fitted together", () => {
    const fit = fitServiceTime([
      { batch: 1, latencyMs: 1.9 },
      { batch: 1, latencyMs: 2.1 },
      { batch: 3, latencyMs: 3.9 },
      { batch: 3, latencyMs: 4.1 },
    ]);
    expect(fit.affine.model.fixedMs).toBeCloseTo(1, 12);
    expect(fit.affine.model.perSampleMs).toBeCloseTo(1, 12);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() =>
      fitServiceTime([
        { batch: 4, latencyMs: 2 },
        { batch: 4, latencyMs: 3 },
      ]),
    ).toThrow(/points: need at least two distinct/);
    expect(() =>
      fitServiceTime([
        { batch: 1, latencyMs: 2 },
        { batch: 0, latencyMs: 3 },
      ]),
    ).toThrow(/points\[1\]\.batch/);
    expect(() =>
      fitServiceTime([
        { batch: 1, latencyMs: Number.NaN },
        { batch: 2, latencyMs: 3 },
      ]),
    ).toThrow(PlanningInputError);
    expect(() =>
      fitServiceTime(
        [
          { batch: 1, latencyMs: 1 },
          { batch: 2, latencyMs: 3 },
        ],
        { minR2: 1 },
      ),
    ).toThrow(/minR2/);
  });
});
