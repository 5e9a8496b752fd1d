// The one place a classified error becomes a transport status: a service's DomainError, or src/core's refusal of
// its input (CoreInputError: always the caller's fault, so a bad request naming the input, never a 500).
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { CoreInputError } from "@/core/errors/core-input-error";
import { DomainError, type DomainErrorCode } from "./domain-errors";

const trpcCodeFor: Record<DomainErrorCode, TRPC_ERROR_CODE_KEY> = {
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  INVALID_INPUT: "BAD_REQUEST",
  FORBIDDEN: "FORBIDDEN",
  UNAUTHORIZED: "UNAUTHORIZED",
  PRECONDITION_FAILED: "PRECONDITION_FAILED",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
};

const httpStatusFor: Record<DomainErrorCode, number> = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_INPUT: 400,
  FORBIDDEN: 403,
  UNAUTHORIZED: 401,
  PRECONDITION_FAILED: 412,
  UNAVAILABLE: 503,
  RATE_LIMITED: 429,
};

/** A classified error as every edge reports it: the domain's code, the input at fault, what to change. */
export interface ClassifiedError {
  trpcCode: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  /** A DomainError's code ("NOT_FOUND", …) or src/core's own ("too_large", "cannot-fit", …). */
  domainCode: string;
  message: string;
  parameter?: string;
  /** For a value outside a closed set: the values accepted. */
  allowed?: string[];
}

const stringList = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;

/** The classified view of `error`, or undefined for anything unclassified (a driver's error, a bug: a 500). */
export function classifyError(error: unknown): ClassifiedError | undefined {
  if (error instanceof DomainError) {
    const field = error.details?.field;
    const allowed = stringList(error.details?.allowed);
    return {
      trpcCode: trpcCodeFor[error.code],
      httpStatus: httpStatusFor[error.code],
      domainCode: error.code,
      message: error.message,
      ...(typeof field === "string" ? { parameter: field } : {}),
      ...(allowed ? { allowed } : {}),
    };
  }
  if (error instanceof CoreInputError) {
    return {
      trpcCode: "BAD_REQUEST",
      httpStatus: 400,
      domainCode: error.code,
      message: error.message,
      ...(error.parameter !== undefined ? { parameter: error.parameter } : {}),
    };
  }
  return undefined;
}
