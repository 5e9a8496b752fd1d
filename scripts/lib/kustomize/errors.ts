/** Why a kustomization could not be rendered; `parameter` names the file or field at fault. */
export class KustomizeError extends Error {
  override readonly name = "KustomizeError";
  constructor(
    readonly code: "unsupported" | "not-found" | "invalid" | "no-patch-target",
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}
