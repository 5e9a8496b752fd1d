import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "./errors";
import { arithmeticIntensityAtResolution, resolutionThroughputRatio } from "./resolution";
import { roundLikeDisplay } from "./significant-figures";

describe("resolution scaling (F-06, Eq. 1, TV-014)", () => {
  it('Eq. 1: 224 → 448 px → (224/448)² = 0.25, a 4× compute-scaling estimate (the chapter\'s "3.6×" includes fixed overhead)', () => {
    expect(resolutionThroughputRatio({ fromResolutionPx: 224, toResolutionPx: 448 })).toBe(0.25);
  });
  it("Eq. 1: 224 → 384 px → 0.3403 (a 2.94× slowdown)", () => {
    const ratio = resolutionThroughputRatio({ fromResolutionPx: 224, toResolutionPx: 384 });
    expect(roundLikeDisplay(ratio, "0.3403")).toBe(0.3403);
    expect(roundLikeDisplay(1 / ratio, "2.94")).toBe(2.94);
  });
});

describe("arithmetic intensity vs resolution (F-07, Table 6, TV-015)", () => {
  // I(r) = 8.2e9·s / (102.4e6 + 2·12.5e6·s), s = (r/224)²; activation 12.5 MB·s.
  const rows: Array<[r: number, activationMb: string, intensity: string, displayMb: string, displayI: string]> = [
    [224, "12.50", "64.36", "12.5", "64.4"],
    [384, "36.73", "137.02", "36.7", "137"],
    [512, "65.31", "183.86", "65.3", "183.9"],
    [640, "102.04", "218.41", "102.0", "218.4"],
  ];
  for (const [r, activationMb, intensity, displayMb, displayI] of rows) {
    it(`Table 6, ${r} px: activation ${activationMb} MB ("${displayMb}"), I = ${intensity} FLOP/B ("${displayI}")`, () => {
      const x = arithmeticIntensityAtResolution({ resolutionPx: r });
      expect(roundLikeDisplay(x.activationBytes / 1e6, activationMb)).toBe(Number(activationMb));
      expect(roundLikeDisplay(x.activationBytes / 1e6, displayMb)).toBe(Number(displayMb));
      expect(roundLikeDisplay(x.intensityFlopPerByte, intensity)).toBe(Number(intensity));
      expect(roundLikeDisplay(x.intensityFlopPerByte, displayI)).toBe(Number(displayI));
    });
  }
  it("intensity rises with resolution and stays below the activation-only limit O / 2A = 8.2e9 / 25e6 = 328 FLOP/B", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 16, max: 4096, noNaN: true }),
        fc.double({ min: 1.01, max: 4, noNaN: true }),
        (r, k) => {
          const lo = arithmeticIntensityAtResolution({ resolutionPx: r }).intensityFlopPerByte;
          const hi = arithmeticIntensityAtResolution({ resolutionPx: r * k }).intensityFlopPerByte;
          expect(hi).toBeGreaterThan(lo);
          expect(hi).toBeLessThan(328);
        },
      ),
      { numRuns: 100 },
    );
  });
  it("bad input names the parameter", () => {
    expect(() => resolutionThroughputRatio({ fromResolutionPx: 0, toResolutionPx: 224 })).toThrow(PlanningInputError);
    expect(() => arithmeticIntensityAtResolution({ resolutionPx: Number.NaN })).toThrow(/^resolutionPx:/);
    expect(() =>
      arithmeticIntensityAtResolution({
        resolutionPx: 224,
        model: { baseResolutionPx: 224, flopsAtBase: 1, weightBytes: -1, activationBytesAtBase: 1 },
      }),
    ).toThrow(/^model\.weightBytes:/);
  });
});
