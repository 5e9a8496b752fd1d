// The one place a domain error becomes a transport status.
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";
import type { DomainErrorCode } from "./domain-errors";

export const trpcCodeFor: Record<DomainErrorCode, TRPC_ERROR_CODE_KEY> = {
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  INVALID_INPUT: "BAD_REQUEST",
  FORBIDDEN: "FORBIDDEN",
  UNAUTHORIZED: "UNAUTHORIZED",
  PRECONDITION_FAILED: "PRECONDITION_FAILED",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
};

export const httpStatusFor: Record<DomainErrorCode, number> = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_INPUT: 400,
  FORBIDDEN: 403,
  UNAUTHORIZED: 401,
  PRECONDITION_FAILED: 412,
  UNAVAILABLE: 503,
  RATE_LIMITED: 429,
};
