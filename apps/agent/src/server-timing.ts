// A success's Server-Timing value (ms), the same over HTTP (a header) and gRPC (a trailer): the dispatcher's phases,
// and the instance's session.run alone, so compute − run is what the hand-off to the instance thread cost.
import type { RequestTiming } from "./dispatcher";

export function serverTiming(t: RequestTiming): string {
  const run = t.runMs === undefined ? "" : `, run;dur=${t.runMs.toFixed(3)}`;
  return `formation;dur=${t.formationMs.toFixed(3)}, busy;dur=${t.busyWaitMs.toFixed(3)}, compute;dur=${t.computeMs.toFixed(3)}${run}`;
}
