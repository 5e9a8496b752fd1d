// What every answered inference request leaves behind, whichever protocol carried it: Prometheus series, the
// heartbeat's interval statistics, the cumulative statistics behind /stats, and (when export is on) its span. One
// function, so HTTP and gRPC count alike.
import type { InferProtocol, AgentMetrics } from "./metrics";
import { unixNanoOf, type SpanExporter } from "./span-export";
import { newSpanId, type RequestSpan } from "./trace-context";
import type { SuccessPhases } from "./model-statistics";
import type { ServedModel } from "./served-model";

export interface AnsweredRequest {
  protocol: InferProtocol;
  /** HTTP status (a gRPC call: the HTTP status its code stands for). */
  status: number;
  rows: number;
  /** The version that computed it (the configured one when it never reached the instances). */
  version: string;
  /** When the request was first handled (performance.now()). */
  startedAt: number;
  /** A success's phases; absent for a refusal or failure. */
  phases?: SuccessPhases;
  /** The request's span (ids, parent, sampling); exported when `spans` is given. */
  span?: RequestSpan;
}

export function accountRequest(
  metrics: AgentMetrics,
  model: ServedModel,
  answered: AnsweredRequest,
  spans?: SpanExporter,
): void {
  const { protocol, status, rows, version, phases } = answered;
  const endedAt = performance.now();
  const totalMs = endedAt - answered.startedAt;
  const model_ = model.metadata.name;
  if (spans && answered.span?.sampled) {
    const { traceId, spanId, parentSpanId } = answered.span;
    const t = status === 200 ? phases?.timing : undefined;
    // The phases as child spans, back to back, ending when the dispatcher answered: the queue (formation, then busy
    // wait, its children), then compute.
    if (t && phases?.resultAt !== undefined) {
      const computeStart = phases.resultAt - t.computeMs;
      const busyStart = computeStart - t.busyWaitMs;
      const formationStart = busyStart - t.formationMs;
      const attributes = { "packrat.model": model_, "packrat.model.version": version };
      const queueId = newSpanId();
      const phaseSpans: Array<[string, string, string, number, number]> = [
        ["queue", queueId, spanId, formationStart, computeStart],
        ["formation", newSpanId(), queueId, formationStart, busyStart],
        ["busy wait", newSpanId(), queueId, busyStart, computeStart],
        ["compute", newSpanId(), spanId, computeStart, phases.resultAt],
      ];
      for (const [name, id, parent, from, to] of phaseSpans) {
        spans.record({
          traceId,
          spanId: id,
          parentSpanId: parent,
          name,
          startUnixNano: unixNanoOf(from),
          endUnixNano: unixNanoOf(to),
          error: false,
          attributes,
          kind: "internal",
        });
      }
    }
    spans.record({
      traceId,
      spanId,
      ...(parentSpanId ? { parentSpanId } : {}),
      name: `infer ${model_}`,
      startUnixNano: unixNanoOf(answered.startedAt),
      endUnixNano: unixNanoOf(endedAt),
      error: status >= 500,
      attributes: {
        "packrat.model": model_,
        "packrat.model.version": version,
        "packrat.rows": rows,
        "packrat.protocol": protocol,
        "http.response.status_code": status,
        ...(t
          ? {
              "packrat.formation_ms": t.formationMs,
              "packrat.busy_wait_ms": t.busyWaitMs,
              "packrat.compute_ms": t.computeMs,
            }
          : {}),
      },
    });
  }
  const labels = metrics.requestLabels(model_, version, protocol, status);
  metrics.requests.inc(labels);
  if (rows) metrics.rows.inc(labels, rows);
  metrics.totalSeconds.observe(metrics.protocolLabels(model_, version, protocol), totalMs / 1000);
  model.statistics.of(version).request(totalMs, status === 200 ? phases : undefined);
  if (status >= 500 || status === 429) model.intervalStats.rejected(rows);
  if (status !== 200 || !phases) return;
  const t = phases.timing;
  const perModel = metrics.modelLabels(model_, version);
  metrics.formationSeconds.observe(perModel, t.formationMs / 1000);
  metrics.busyWaitSeconds.observe(perModel, t.busyWaitMs / 1000);
  metrics.queueSeconds.observe(perModel, (t.formationMs + t.busyWaitMs) / 1000);
  model.intervalStats.completed(rows, {
    deserialize: phases.deserializeMs,
    formation: t.formationMs,
    busy: t.busyWaitMs,
    queue: t.formationMs + t.busyWaitMs,
    compute: t.computeMs,
    system: t.formationMs + t.busyWaitMs + t.computeMs,
    serialize: phases.serializeMs,
    total: totalMs,
  });
}
