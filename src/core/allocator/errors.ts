/** Why the allocator refused; `parameter` names the input to change. */
export type AllocatorErrorCode =
  | "invalid-plan"
  | "invalid-option"
  | "invalid-budget"
  | "cannot-fit"
  | "cannot-fit-locally";

export class AllocatorError extends Error {
  override readonly name = "AllocatorError";
  constructor(
    readonly code: AllocatorErrorCode,
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}
