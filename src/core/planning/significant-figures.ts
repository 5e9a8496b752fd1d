import { requireFinite, requirePositiveInteger } from "./errors";

/**
 * Rounds to a number of significant figures, the way the reference displays its numbers ("7.1 ms", "0.52").
 * Tests compare a computed value against a displayed one with this (digest §0.3), and the UI shows estimates
 * with it, so a planner never prints more precision than its inputs carry.
 */
export function roundToSignificant(value: number, digits: number): number {
  requireFinite("value", value);
  requirePositiveInteger("digits", digits);
  if (digits > 17) throw new RangeError("digits must be ≤ 17");
  if (value === 0) return 0;
  // Ties round half away from zero, as printed tables do. Arithmetic like 8.6 − 3.5 + 0.35 lands on
  // 5.449999999999999 instead of the decimal tie 5.45; a nudge of 1e-12 relative puts it back on the tie's far side.
  return Number((value * (1 + 1e-12)).toPrecision(digits));
}

/** How many significant figures a displayed number carries: "7.1" → 2, "7,402.9" → 5, "0.52" → 2, "36" → 2. */
export function significantFiguresOf(display: string): number {
  const digits = display.replace(/[,\s]/g, "").replace(/^[-+]/, "").replace(/e.*$/i, "");
  if (!/^\d*\.?\d*$/.test(digits) || !/\d/.test(digits)) throw new RangeError(`not a number: ${display}`);
  const stripped = digits.replace(".", "").replace(/^0+/, "");
  return Math.max(1, stripped.length);
}

/**
 * Rounds a computed value to as many significant figures as a displayed number shows, so
 * `roundLikeDisplay(7.0564, "7.1") === 7.1`. Trailing zeros of a whole number count as significant ("280" → 3);
 * where the reference means fewer, call roundToSignificant with the count instead.
 */
export function roundLikeDisplay(value: number, display: string): number {
  return roundToSignificant(value, significantFiguresOf(display));
}
