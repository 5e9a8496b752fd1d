import {
  PlanningInputError,
  requireFinite,
  requireNonNegative,
  requireNonNegativeInteger,
  requireOpenUnit,
  requirePositive,
  requirePositiveInteger,
} from "../planning/errors";

/**
 * Input guards for the batching and LLM models, on the planning models' typed error (src/core/planning/errors.ts):
 * each returns the value or throws a PlanningInputError naming the parameter, so nothing answers NaN or Infinity.
 */

export { PlanningInputError };
export const finite = requireFinite;
export const positive = requirePositive;
export const nonNegative = requireNonNegative;
export const positiveInteger = requirePositiveInteger;
export const nonNegativeInteger = requireNonNegativeInteger;
/** A probability strictly inside (0, 1), e.g. a quantile level. */
export const openUnit = requireOpenUnit;

/** A fraction in [0, 1], e.g. an acceptance rate or an efficiency factor. */
export function unitInterval(parameter: string, value: number): number {
  requireFinite(parameter, value);
  if (value < 0 || value > 1)
    throw new PlanningInputError("out_of_range", parameter, `must be in [0, 1], got ${value}`);
  return value;
}

/** Guards a computed result: huge inputs can overflow to Infinity, which must surface as an error, not a number. */
export function finiteResult(parameter: string, value: number): number {
  if (!Number.isFinite(value)) {
    throw new PlanningInputError("out_of_range", parameter, "is too large: the result is not a finite number");
  }
  return value;
}
