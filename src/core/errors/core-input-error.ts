/**
 * The one base of every refusal in src/core: input the algorithm will not compute on. `code` is the domain's own
 * word for what is wrong ("too_large", "cannot-fit", …), `parameter` names the input to change (absent when no one
 * input is at fault). Each edge (tRPC, the agent API) maps this class once, so a refusal reaches the caller as a
 * bad request saying which input and why, never as a 500; the subclasses keep their names for `instanceof`.
 */
export class CoreInputError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    readonly parameter: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "CoreInputError";
  }
}

export function isCoreInputError(error: unknown): error is CoreInputError {
  return error instanceof CoreInputError;
}
