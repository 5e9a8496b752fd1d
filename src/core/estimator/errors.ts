/** Bad input to the batch-size estimator; `parameter` names it, so an agent never carries NaN into its state. */
export type EstimatorErrorCode = "invalid-parameter" | "invalid-sample" | "time-went-backwards" | "invalid-state";

export class EstimatorError extends Error {
  override readonly name = "EstimatorError";
  constructor(
    readonly code: EstimatorErrorCode,
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}
