import { describe, expect, it } from "vitest";
import { PlanningInputError } from "./errors";
import { roundLikeDisplay, roundToSignificant, significantFiguresOf } from "./significant-figures";

describe("significant figures (digest §0.3 comparison rule)", () => {
  it("rounds to n significant figures: 7.0564 → 7.1 (2), 7,402.93 → 7,402.9 (5), 0.52195 → 0.52 (2)", () => {
    expect(roundToSignificant(7.0564, 2)).toBe(7.1);
    expect(roundToSignificant(7402.93, 5)).toBe(7402.9);
    expect(roundToSignificant(0.52195, 2)).toBe(0.52);
    expect(roundToSignificant(-3.9262, 3)).toBe(-3.93);
    expect(roundToSignificant(0, 3)).toBe(0);
  });
  it("counts the figures a display shows", () => {
    expect(significantFiguresOf("7.1")).toBe(2);
    expect(significantFiguresOf("7,402.9")).toBe(5);
    expect(significantFiguresOf("0.0098")).toBe(2);
    expect(significantFiguresOf("50.40")).toBe(4);
    expect(significantFiguresOf("36")).toBe(2);
  });
  it("rounds decimal ties half away from zero even when binary arithmetic lands just below them: 8.6 − 3.5 + 0.35 → 5.5", () => {
    expect(8.6 - 3.5 + 0.35).toBeLessThan(5.45);
    expect(roundToSignificant(8.6 - 3.5 + 0.35, 2)).toBe(5.5);
    expect(roundToSignificant(-2.5, 1)).toBe(-3);
    expect(roundToSignificant(5.4499, 2)).toBe(5.4);
  });
  it("rounds like a display: Table 7's 2 × 3.5282 = 7.0564 shows as 7.1, not 7.0", () => {
    expect(roundLikeDisplay(7.0564, "7.1")).toBe(7.1);
    expect(roundLikeDisplay(7.0, "7.1")).not.toBe(7.1);
  });
  it("rejects NaN and a non-integer digit count, naming the parameter", () => {
    expect(() => roundToSignificant(Number.NaN, 2)).toThrow(PlanningInputError);
    expect(() => roundToSignificant(1, 2.5)).toThrow(/digits/);
    expect(() => significantFiguresOf("abc")).toThrow(RangeError);
  });
});
