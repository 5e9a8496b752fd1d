/** Bad input to a model builder: names the parameter at fault. */
export class ModelZooError extends Error {
  readonly code: string;
  readonly parameter: string;

  constructor(code: string, parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.name = "ModelZooError";
    this.code = code;
    this.parameter = parameter;
  }
}
