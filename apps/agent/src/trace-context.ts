// W3C Trace Context (https://www.w3.org/TR/trace-context/): a request's `traceparent` names the caller's trace and
// span; the agent answers with `traceresponse` (Trace Context Level 2): the same trace id, the span id of its own
// handling of the request, the caller's flags. So a client's trace links to the agent's answer, and the
// Server-Timing entries (formation, busy, compute) are that span's phases. No spans are exported (there is no
// tracing SDK in the agent).
import { randomBytes } from "node:crypto";

export interface TraceContext { traceId: string; parentId: string; flags: string }

const HEX = /^[0-9a-f]+$/;

/** The caller's context, or undefined for an absent or malformed header (then the request is simply untraced). */
export function parseTraceparent(header: string | string[] | undefined): TraceContext | undefined {
  if (typeof header !== "string") return undefined; // none, or sent twice (invalid)
  const value = header.trim();
  const [version, traceId, parentId, flags, ...rest] = value.split("-");
  if (!version || version.length !== 2 || !HEX.test(version) || version === "ff") return undefined;
  // Version 00 has exactly four fields; a later version may add fields after them (parsed as 00).
  if (version === "00" ? rest.length !== 0 : value.length < 55 || value[55] !== undefined && value[55] !== "-") return undefined;
  if (!traceId || traceId.length !== 32 || !HEX.test(traceId) || /^0+$/.test(traceId)) return undefined;
  if (!parentId || parentId.length !== 16 || !HEX.test(parentId) || /^0+$/.test(parentId)) return undefined;
  if (!flags || flags.length !== 2 || !HEX.test(flags)) return undefined;
  return { traceId, parentId, flags };
}

/** The agent's span in the caller's trace, as a `traceresponse` value. */
export function traceResponse(context: TraceContext): string {
  let spanId = randomBytes(8).toString("hex");
  while (/^0+$/.test(spanId)) spanId = randomBytes(8).toString("hex");
  // Flags: only "sampled" is defined, and the agent does not record; it passes the caller's decision on.
  return `00-${context.traceId}-${spanId}-${context.flags}`;
}
