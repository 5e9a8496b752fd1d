export type OptimizerInputErrorCode = "invalid_cores" | "invalid_batch" | "invalid_tolerance" | "too_large" | "invalid_option";

/** A request the optimizer refuses; `parameter` names the offending field. */
export class OptimizerInputError extends Error {
  readonly code: OptimizerInputErrorCode;
  readonly parameter: string;

  constructor(code: OptimizerInputErrorCode, parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.name = "OptimizerInputError";
    this.code = code;
    this.parameter = parameter;
  }
}
