import { CoreInputError } from "../errors/core-input-error";

/** Why the allocator refused; `parameter` names the input to change. */
export type AllocatorErrorCode =
  "invalid-plan" | "invalid-option" | "invalid-budget" | "cannot-fit" | "cannot-fit-locally";

export class AllocatorError extends CoreInputError<AllocatorErrorCode> {
  override readonly name = "AllocatorError";
  declare readonly parameter: string;
  constructor(code: AllocatorErrorCode, parameter: string, message: string) {
    super(code, parameter, message);
  }
}
