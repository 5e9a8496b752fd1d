import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { perSampleEnergy } from "./per-sample-energy";

// ResNet-50 in FP32: 102.4 MB weights, 25 MB of activation traffic per image, 8.2 GFLOP per image.
const resnet = { weightBytes: 102.4e6, activationBytesPerSample: 25e6, flopsPerSample: 8.2e9 };

describe("Table 9 / TV-033: bytes, intensity and energy per image", () => {
  const rows = [
    { b: 1, weight: 102.4e6, intensity: "64.36", energy: "39.244", share: 52 },
    { b: 8, weight: 12.8e6, intensity: "216.93", energy: "24.908", share: 24 },
    { b: 32, weight: 3.2e6, intensity: "290.78", energy: "23.372", share: 19 },
  ];
  for (const row of rows) {
    it(`Table 9 row B = ${row.b}: I = ${row.intensity} FLOP/B, ${row.energy} mJ, movement ${row.share}%`, () => {
      // e.g. B = 1: 127.4 MB × 160 pJ = 20.384 mJ; 8.2e9 × 2.3 pJ = 18.86 mJ; total 39.244 mJ; share 51.9%.
      const e = perSampleEnergy(resnet, row.b);
      expect(e.weightBytesPerSample).toBeCloseTo(row.weight, 3);
      expect(e.arithmeticIntensity.toFixed(2)).toBe(row.intensity);
      expect((e.energyJoules * 1e3).toFixed(3)).toBe(row.energy);
      expect(Math.round(e.movementShare * 100)).toBe(row.share);
    });
  }

  it("TV-033: arithmetic energy is constant, 8.2e9 × 2.3 pJ = 18.86 mJ per image", () => {
    for (const b of [1, 8, 32]) {
      const e = perSampleEnergy(resnet, b);
      expect(e.energyJoules * (1 - e.movementShare) * 1e3).toBeCloseTo(18.86, 9);
    }
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => perSampleEnergy(resnet, 0)).toThrow(PlanningInputError);
    expect(() => perSampleEnergy({ ...resnet, flopsPerSample: 0 }, 1)).toThrow(/^flopsPerSample/);
    expect(() => perSampleEnergy({ weightBytes: 0, activationBytesPerSample: 0, flopsPerSample: 1 }, 1)).toThrow(
      /^weightBytes/,
    );
  });
});
