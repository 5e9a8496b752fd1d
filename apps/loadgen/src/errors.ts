// Bad input to the load generator (a flag, a schedule, a CSV row): a typed error that names the parameter.
export type LoadgenInputErrorCode =
  | "invalid_number"
  | "out_of_range"
  | "invalid_duration"
  | "invalid_pattern"
  | "invalid_csv"
  | "invalid_url"
  | "remote_target"
  | "invalid_shape"
  | "invalid_input_file"
  | "unsupported"
  | "invalid_option";

export class LoadgenInputError extends Error {
  override readonly name = "LoadgenInputError";
  constructor(
    readonly code: LoadgenInputErrorCode,
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

/** A finite number within [min, max], or a LoadgenInputError naming the parameter. */
export function requireNumber(parameter: string, value: number, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new LoadgenInputError("invalid_number", parameter, `must be a finite number, got ${String(value)}`);
  }
  if (value < min || value > max)
    throw new LoadgenInputError("out_of_range", parameter, `must be in [${min}, ${max}], got ${value}`);
  return value;
}

/** An integer within [min, max]. */
export function requireInteger(parameter: string, value: number, min: number, max: number): number {
  requireNumber(parameter, value, min, max);
  if (!Number.isInteger(value))
    throw new LoadgenInputError("invalid_number", parameter, `must be an integer, got ${value}`);
  return value;
}
