// Typed domain errors. Services throw these; the edges (tRPC, REST route handlers) map them to codes once.
export type DomainErrorCode =
  | "NOT_FOUND"
  | "CONFLICT"
  | "INVALID_INPUT"
  | "FORBIDDEN"
  | "UNAUTHORIZED"
  | "PRECONDITION_FAILED"
  | "UNAVAILABLE"
  | "RATE_LIMITED";

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const notFound = (what: string, id: string) => new DomainError("NOT_FOUND", `${what} ${id} not found`);
export const conflict = (message: string) => new DomainError("CONFLICT", message);
export const invalidInput = (message: string, details?: Record<string, unknown>) =>
  new DomainError("INVALID_INPUT", message, details);
