import { describe, expect, it } from "vitest";
import { RESNET50_FIXED_MS, RESNET50_PER_IMAGE_MS, RESNET50_REPRODUCING, RESNET50_STATED } from "./resnet50-reference";

describe("ResNet-50 reference fixtures (digest §0.3)", () => {
  it("§0.3: F = 174 × 15 μs + 174 × 5 μs + 51.2 MB / 3.35 TB/s = 3.49528 ms", () => {
    // 2.610 ms kernel issue + 0.870 ms device floor + 0.0152836 ms weight read = 3.4952836 ms
    expect(RESNET50_FIXED_MS).toBeCloseTo(2.61 + 0.87 + (51.2e6 / 3.35e12) * 1e3, 12);
    expect(Number(RESNET50_FIXED_MS.toFixed(5))).toBe(3.49528);
  });

  it("§0.3: s = 1/30,400 s = 0.0328947 ms per image", () => {
    expect(Number(RESNET50_PER_IMAGE_MS.toFixed(7))).toBe(0.0328947);
    expect(RESNET50_REPRODUCING).toEqual({
      kind: "affine",
      fixedMs: RESNET50_FIXED_MS,
      perSampleMs: RESNET50_PER_IMAGE_MS,
    });
  });

  it("§0.3 fixture A is the stated T(B) = 3.50 + 0.033·B", () => {
    expect(RESNET50_STATED).toEqual({ kind: "affine", fixedMs: 3.5, perSampleMs: 0.033 });
  });
});
