// What became of one request, as the runners count it. Transport errors (refused, reset, timed out) are counted
// apart from HTTP errors: the first say the server was not there to answer, the second that it answered "no".
export type TransportErrorKind = "refused" | "reset" | "timed_out" | "other";

export interface SendOutcome {
  kind: "ok" | "http_error" | "bad_response" | "transport_error";
  /** The HTTP status when the server answered. */
  status?: number;
  transport?: TransportErrorKind;
  /** What went wrong, for the report's error samples. */
  detail?: string;
  /** The server's own account of the request (Server-Timing, ms). */
  serverTiming?: Record<string, number>;
  /** performance.now() when the response headers arrived (time to first byte). */
  headersAtMs?: number;
  responseBytes?: number;
}

/** Sends request number `index`; never rejects (a failure is an outcome). */
export type Sender = (index: number) => Promise<SendOutcome>;

/** Node socket error codes → the transport error kinds the report counts. */
export function classifyTransportError(error: unknown, timedOut = false): TransportErrorKind {
  if (timedOut) return "timed_out";
  const code = (error as { code?: unknown } | undefined)?.code;
  switch (code) {
    case "ECONNREFUSED":
      return "refused";
    case "ECONNRESET":
    case "EPIPE":
    case "ECONNABORTED":
    case "UND_ERR_SOCKET":
      return "reset";
    case "ETIMEDOUT":
    case "ESOCKETTIMEDOUT":
      return "timed_out";
    default:
      return "other";
  }
}
