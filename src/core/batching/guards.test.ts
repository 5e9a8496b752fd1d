import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { finiteResult, openUnit, positive, unitInterval } from "./guards";

describe("batching input guards", () => {
  it("return the value when it is acceptable", () => {
    expect(unitInterval("acceptance", 0)).toBe(0);
    expect(unitInterval("acceptance", 1)).toBe(1);
    expect(finiteResult("x", 1e308)).toBe(1e308);
    expect(positive("batch", 3)).toBe(3);
  });

  it("throw a PlanningInputError with a code and the parameter name, never pass NaN or Infinity on", () => {
    const cases: Array<[() => unknown, string, string]> = [
      [() => unitInterval("acceptance", 1.01), "acceptance", "out_of_range"],
      [() => unitInterval("acceptance", Number.NaN), "acceptance", "not_finite"],
      [() => finiteResult("batch", Number.POSITIVE_INFINITY), "batch", "out_of_range"],
      [() => finiteResult("batch", Number.NaN), "batch", "out_of_range"],
      [() => openUnit("level", 1), "level", "out_of_range"],
      [() => positive("batch", 0), "batch", "not_positive"],
    ];
    for (const [f, parameter, code] of cases) {
      let caught: unknown;
      try {
        f();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(PlanningInputError);
      expect((caught as PlanningInputError).parameter).toBe(parameter);
      expect((caught as PlanningInputError).code).toBe(code);
    }
  });
});
