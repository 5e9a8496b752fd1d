/** Bad input to the model analysis: names the parameter at fault. */
export class ModelAnalysisInputError extends Error {
  readonly code: string;
  readonly parameter: string;

  constructor(code: string, parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.name = "ModelAnalysisInputError";
    this.code = code;
    this.parameter = parameter;
  }
}
