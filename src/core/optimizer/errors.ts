import { CoreInputError } from "../errors/core-input-error";

export type OptimizerInputErrorCode =
  "invalid_cores" | "invalid_batch" | "invalid_tolerance" | "too_large" | "invalid_option";

/** A request the optimizer refuses; `parameter` names the offending field. */
export class OptimizerInputError extends CoreInputError<OptimizerInputErrorCode> {
  declare readonly parameter: string;

  constructor(code: OptimizerInputErrorCode, parameter: string, message: string) {
    super(code, parameter, `${parameter}: ${message}`);
    this.name = "OptimizerInputError";
  }
}
