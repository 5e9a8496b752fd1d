// What every answered inference request leaves behind, whichever protocol carried it: Prometheus series, the
// heartbeat's interval statistics and the cumulative statistics behind /stats. One function, so HTTP and gRPC
// count alike.
import type { InferProtocol, AgentMetrics } from "./metrics";
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
}

export function accountRequest(metrics: AgentMetrics, model: ServedModel, answered: AnsweredRequest): void {
  const { protocol, status, rows, version, phases } = answered;
  const totalMs = performance.now() - answered.startedAt;
  const model_ = model.metadata.name;
  const labels = { model: model_, version, protocol, status: String(status) };
  metrics.requests.inc(labels);
  if (rows) metrics.rows.inc(labels, rows);
  metrics.totalSeconds.observe({ model: model_, version, protocol }, totalMs / 1000);
  model.statistics.of(version).request(totalMs, status === 200 ? phases : undefined);
  if (status >= 500 || status === 429) model.intervalStats.rejected(rows);
  if (status !== 200 || !phases) return;
  const t = phases.timing;
  const perModel = { model: model_, version };
  metrics.formationSeconds.observe(perModel, t.formationMs / 1000);
  metrics.busyWaitSeconds.observe(perModel, t.busyWaitMs / 1000);
  metrics.queueSeconds.observe(perModel, (t.formationMs + t.busyWaitMs) / 1000);
  model.intervalStats.completed(rows, {
    deserialize: phases.deserializeMs, formation: t.formationMs, busy: t.busyWaitMs, queue: t.formationMs + t.busyWaitMs, compute: t.computeMs,
    system: t.formationMs + t.busyWaitMs + t.computeMs, serialize: phases.serializeMs, total: totalMs,
  });
}
