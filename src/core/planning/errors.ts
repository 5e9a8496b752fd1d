/**
 * Typed input errors for the planning models. Every guard names the parameter it rejects, so a planner form can
 * put the message next to the right field, and no model ever answers NaN or Infinity instead of refusing.
 */
import { CoreInputError } from "../errors/core-input-error";

export type PlanningInputErrorCode =
  | "not_finite" // NaN, ±Infinity or not a number at all
  | "not_positive" // must be > 0
  | "negative" // must be ≥ 0
  | "not_integer" // must be a whole number
  | "out_of_range" // outside a stated interval, e.g. a quantile outside (0, 1)
  | "unstable" // offered load at or above capacity (ρ ≥ 1): no steady state exists
  | "infeasible" // the target cannot be met by any load, e.g. an idle server already misses the budget
  | "inconsistent"; // inputs contradict each other, e.g. a subset count larger than its set

export class PlanningInputError extends CoreInputError<PlanningInputErrorCode> {
  override readonly name = "PlanningInputError";
  /** The offending input, as the caller spelled it (e.g. "arrivalRatePerS"). */
  declare readonly parameter: string;
  constructor(code: PlanningInputErrorCode, parameter: string, message: string) {
    super(code, parameter, `${parameter}: ${message}`);
  }
}

function describe(value: unknown): string {
  return typeof value === "number" ? String(value) : `${typeof value} ${String(value)}`;
}

/** A finite number; returns it so guards compose inline. */
export function requireFinite(parameter: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new PlanningInputError("not_finite", parameter, `must be a finite number, got ${describe(value)}`);
  }
  return value;
}

export function requirePositive(parameter: string, value: number): number {
  requireFinite(parameter, value);
  if (!(value > 0)) throw new PlanningInputError("not_positive", parameter, `must be > 0, got ${value}`);
  return value;
}

export function requireNonNegative(parameter: string, value: number): number {
  requireFinite(parameter, value);
  if (value < 0) throw new PlanningInputError("negative", parameter, `must be ≥ 0, got ${value}`);
  return value;
}

export function requireNonNegativeInteger(parameter: string, value: number): number {
  requireNonNegative(parameter, value);
  if (!Number.isInteger(value))
    throw new PlanningInputError("not_integer", parameter, `must be a whole number, got ${value}`);
  return value;
}

export function requirePositiveInteger(parameter: string, value: number): number {
  requirePositive(parameter, value);
  if (!Number.isInteger(value))
    throw new PlanningInputError("not_integer", parameter, `must be a whole number, got ${value}`);
  return value;
}

/** A quantile or probability strictly inside (0, 1): q = 0 or 1 has no finite percentile. */
export function requireOpenUnit(parameter: string, value: number): number {
  requireFinite(parameter, value);
  if (!(value > 0 && value < 1))
    throw new PlanningInputError("out_of_range", parameter, `must be in (0, 1), got ${value}`);
  return value;
}

/** Every element of a list is a non-negative finite number; the parameter is reported with its index. */
export function requireNonNegativeList(parameter: string, values: readonly number[]): readonly number[] {
  if (!Array.isArray(values)) throw new PlanningInputError("not_finite", parameter, "must be an array of numbers");
  values.forEach((value, index) => requireNonNegative(`${parameter}[${index}]`, value));
  return values;
}
