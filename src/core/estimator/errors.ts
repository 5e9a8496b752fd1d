import { CoreInputError } from "../errors/core-input-error";

/** Bad input to the batch-size estimator; `parameter` names it, so an agent never carries NaN into its state. */
export type EstimatorErrorCode = "invalid-parameter" | "invalid-sample" | "time-went-backwards" | "invalid-state";

export class EstimatorError extends CoreInputError<EstimatorErrorCode> {
  override readonly name = "EstimatorError";
  declare readonly parameter: string;
  constructor(code: EstimatorErrorCode, parameter: string, message: string) {
    super(code, parameter, `${parameter}: ${message}`);
  }
}
