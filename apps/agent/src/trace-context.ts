// W3C Trace Context (https://www.w3.org/TR/trace-context/): a request's `traceparent` names the caller's trace and
// span; the agent answers with `traceresponse` (Trace Context Level 2): the same trace id, the span id of its own
// handling of the request, the caller's flags. So a client's trace links to the agent's answer, and the
// Server-Timing entries (formation, busy, compute) are that span's phases. With OTEL_EXPORTER_OTLP_ENDPOINT set the
// span is exported (span-export.ts): in the caller's trace when one came in, else in a trace of its own.
import { randomBytes } from "node:crypto";

export interface TraceContext {
  traceId: string;
  parentId: string;
  flags: string;
}

const HEX = /^[0-9a-f]+$/;

/** The caller's context, or undefined for an absent or malformed header (then the request is simply untraced). */
export function parseTraceparent(header: string | string[] | undefined): TraceContext | undefined {
  if (typeof header !== "string") return undefined; // none, or sent twice (invalid)
  const value = header.trim();
  const [version, traceId, parentId, flags, ...rest] = value.split("-");
  if (!version || version.length !== 2 || !HEX.test(version) || version === "ff") return undefined;
  // Version 00 has exactly four fields; a later version may add fields after them (parsed as 00).
  if (version === "00" ? rest.length !== 0 : value.length < 55 || (value[55] !== undefined && value[55] !== "-"))
    return undefined;
  if (!traceId || traceId.length !== 32 || !HEX.test(traceId) || /^0+$/.test(traceId)) return undefined;
  if (!parentId || parentId.length !== 16 || !HEX.test(parentId) || /^0+$/.test(parentId)) return undefined;
  if (!flags || flags.length !== 2 || !HEX.test(flags)) return undefined;
  return { traceId, parentId, flags };
}

const nonZeroHex = (bytes: number): string => {
  let id = randomBytes(bytes).toString("hex");
  while (/^0+$/.test(id)) id = randomBytes(bytes).toString("hex");
  return id;
};
export const newSpanId = (): string => nonZeroHex(8);
export const newTraceId = (): string => nonZeroHex(16);

/** The agent's span of one request: in the caller's trace (its parent the caller's span) or a new trace's root. */
export interface RequestSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  sampled: boolean;
}

/** The caller's sampling decision is kept (flag 01); an untraced request is sampled. */
export function requestSpan(caller: TraceContext | undefined): RequestSpan {
  if (!caller) return { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
  return {
    traceId: caller.traceId,
    spanId: newSpanId(),
    parentSpanId: caller.parentId,
    sampled: (Number.parseInt(caller.flags, 16) & 1) === 1,
  };
}

/** The agent's span in the caller's trace, as a `traceresponse` value. */
export function traceResponse(context: TraceContext, spanId: string = newSpanId()): string {
  // Flags: only "sampled" is defined; the agent passes the caller's decision on.
  return `00-${context.traceId}-${spanId}-${context.flags}`;
}
