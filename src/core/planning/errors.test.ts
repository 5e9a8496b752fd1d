import { describe, expect, it } from "vitest";
import {
  PlanningInputError,
  requireFinite,
  requireNonNegative,
  requireNonNegativeInteger,
  requireNonNegativeList,
  requireOpenUnit,
  requirePositive,
  requirePositiveInteger,
} from "./errors";

function caught(fn: () => unknown): PlanningInputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlanningInputError) return error;
    throw error;
  }
  throw new Error("expected a PlanningInputError");
}

describe("PlanningInputError and its guards", () => {
  it("is an Error with a code and the parameter's name, which leads the message", () => {
    const e = caught(() => requirePositive("arrivalRatePerS", -3));
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("PlanningInputError");
    expect(e.code).toBe("not_positive");
    expect(e.parameter).toBe("arrivalRatePerS");
    expect(e.message).toMatch(/^arrivalRatePerS: must be > 0, got -3$/);
  });
  it("rejects NaN, ±Infinity and non-numbers as not_finite", () => {
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      "3" as unknown as number,
      undefined as unknown as number,
    ]) {
      expect(caught(() => requireFinite("x", bad)).code).toBe("not_finite");
      expect(caught(() => requireNonNegative("x", bad)).code).toBe("not_finite");
    }
  });
  it("each guard passes its value through and refuses its edge", () => {
    expect(requireNonNegative("x", 0)).toBe(0);
    expect(caught(() => requireNonNegative("x", -1e-12)).code).toBe("negative");
    expect(caught(() => requirePositive("x", 0)).code).toBe("not_positive");
    expect(requirePositiveInteger("servers", 3)).toBe(3);
    expect(caught(() => requirePositiveInteger("servers", 2.5)).code).toBe("not_integer");
    expect(requireNonNegativeInteger("k", 0)).toBe(0);
    expect(caught(() => requireNonNegativeInteger("k", 0.5)).code).toBe("not_integer");
    expect(requireOpenUnit("quantile", 0.99)).toBe(0.99);
    for (const q of [0, 1, -0.5, 2]) expect(caught(() => requireOpenUnit("quantile", q)).code).toBe("out_of_range");
  });
  it("names the offending element of a list", () => {
    expect(requireNonNegativeList("bounds", [1, 0, 2])).toEqual([1, 0, 2]);
    expect(caught(() => requireNonNegativeList("bounds", [1, Number.NaN])).parameter).toBe("bounds[1]");
  });
});
