import { describe, expect, it } from "vitest";
import { ewmaStep } from "./ewma";

describe("ewmaStep", () => {
  it("seeds with the first sample", () => {
    expect(ewmaStep(undefined, 12, 0.1)).toBe(12);
  });
  it("blends: 0.1·40 + 0.9·12 = 4 + 10.8 = 14.8", () => {
    expect(ewmaStep(12, 40, 0.1)).toBeCloseTo(14.8, 12);
  });
  it("rejects an alpha outside (0, 1]", () => {
    expect(() => ewmaStep(1, 2, 0)).toThrow(/alpha/);
    expect(() => ewmaStep(1, 2, 1.5)).toThrow(/alpha/);
  });
});
