import { describe, expect, it } from "vitest";
import { StatsInputError, requireFiniteNumber } from "./errors";

describe("StatsInputError", () => {
  it("carries a code and the parameter, which leads the message", () => {
    const e = new StatsInputError("too_few_samples", "samples", "needs 2");
    expect(e).toBeInstanceOf(Error);
    expect([e.name, e.code, e.parameter, e.message]).toEqual([
      "StatsInputError",
      "too_few_samples",
      "samples",
      "samples: needs 2",
    ]);
  });
  it("requireFiniteNumber passes finite numbers and names the parameter otherwise", () => {
    expect(requireFiniteNumber("x", -2.5)).toBe(-2.5);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, "1" as unknown as number]) {
      expect(() => requireFiniteNumber("latencyMs", bad)).toThrow(/^latencyMs: must be a finite number/);
    }
  });
});
