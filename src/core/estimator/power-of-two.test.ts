import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EstimatorError } from "./errors";
import { floorPowerOfTwo } from "./power-of-two";

describe("floorPowerOfTwo", () => {
  it("digest §5.9: 23.2 → 16, 34.2376 → 32, exact powers stay (16 → 16), below 1 → 1", () => {
    expect(floorPowerOfTwo(23.2)).toBe(16);
    expect(floorPowerOfTwo(34.2376)).toBe(32);
    expect(floorPowerOfTwo(16)).toBe(16);
    expect(floorPowerOfTwo(0.4)).toBe(1);
    expect(floorPowerOfTwo(0)).toBe(1);
  });
  it("is exact at every power of two up to 2^60, where Math.log2 might round", () => {
    for (let k = 0; k <= 60; k++) expect(floorPowerOfTwo(2 ** k)).toBe(2 ** k);
  });
  it("p ≤ q < 2p for any q ≥ 1 (property)", () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e12, noNaN: true }), (q) => {
        const p = floorPowerOfTwo(q);
        expect(p).toBeLessThanOrEqual(q);
        expect(2 * p).toBeGreaterThan(q);
        expect(Number.isInteger(Math.log2(p))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
  it("rejects NaN and Infinity with a typed error", () => {
    expect(() => floorPowerOfTwo(Number.NaN)).toThrow(EstimatorError);
    expect(() => floorPowerOfTwo(Infinity)).toThrow(/q/);
  });
});
