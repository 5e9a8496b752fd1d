import { CoreInputError } from "../errors/core-input-error";

/** Bad input to the model analysis: names the parameter at fault. */
export class ModelAnalysisInputError extends CoreInputError {
  declare readonly parameter: string;

  constructor(code: string, parameter: string, message: string) {
    super(code, parameter, `${parameter}: ${message}`);
    this.name = "ModelAnalysisInputError";
  }
}
