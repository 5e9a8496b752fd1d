import { CoreInputError } from "../errors/core-input-error";

/** Bad input to a statistics helper: names the parameter, so callers never get a NaN back instead. */
export type StatsInputErrorCode = "not_finite" | "out_of_range" | "not_integer" | "too_few_samples" | "bad_encoding";

export class StatsInputError extends CoreInputError<StatsInputErrorCode> {
  override readonly name = "StatsInputError";
  declare readonly parameter: string;
  constructor(code: StatsInputErrorCode, parameter: string, message: string) {
    super(code, parameter, `${parameter}: ${message}`);
  }
}

export function requireFiniteNumber(parameter: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new StatsInputError("not_finite", parameter, `must be a finite number, got ${String(value)}`);
  }
  return value;
}
