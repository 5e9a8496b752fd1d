// Per deployment, the metrics of one metrics interval built from the serving process's shorter reports: counters add,
// histograms merge here (the control plane stores them as they come), the newest state and estimator win.
import { ESTIMATOR_TIMELINE_MAX, type DeploymentMetrics } from "@packrat/contracts/agent-protocol";
import { LatencyHistogram } from "@packrat/core/stats/histogram";

type Histograms = DeploymentMetrics["histograms"];

function mergeHistograms(into: Map<string, LatencyHistogram>, incoming: Histograms): void {
  for (const [stage, encoded] of Object.entries(incoming)) {
    if (!encoded) continue;
    const add = LatencyHistogram.decode(encoded);
    const base = into.get(stage);
    if (base) base.add(add);
    else into.set(stage, add);
  }
}

interface Pending {
  latest: DeploymentMetrics;
  intervalMs: number;
  busyMs: number;
  requests: DeploymentMetrics["requests"];
  rows: DeploymentMetrics["rows"];
  queueDepthMax: number;
  histograms: Map<string, LatencyHistogram>;
  timeline: NonNullable<DeploymentMetrics["estimatorTimeline"]>;
}

export class MetricsAccumulator {
  private pending = new Map<string, Pending>();

  add(report: DeploymentMetrics): void {
    const p = this.pending.get(report.deploymentId);
    if (!p) {
      const histograms = new Map<string, LatencyHistogram>();
      mergeHistograms(histograms, report.histograms);
      this.pending.set(report.deploymentId, {
        latest: report,
        intervalMs: report.intervalMs,
        busyMs: report.busyMs ?? 0,
        requests: { ...report.requests },
        rows: { ...report.rows },
        queueDepthMax: report.queueDepthRows,
        histograms,
        timeline: [...(report.estimatorTimeline ?? [])].slice(-ESTIMATOR_TIMELINE_MAX),
      });
      return;
    }
    p.latest = report;
    p.intervalMs += report.intervalMs;
    p.busyMs += report.busyMs ?? 0;
    p.requests.completed += report.requests.completed;
    p.requests.rejected += report.requests.rejected;
    p.requests.withinSlo += report.requests.withinSlo;
    p.rows.completed += report.rows.completed;
    p.rows.rejected += report.rows.rejected;
    p.queueDepthMax = Math.max(p.queueDepthMax, report.queueDepthRows);
    mergeHistograms(p.histograms, report.histograms);
    p.timeline = [...p.timeline, ...(report.estimatorTimeline ?? [])].slice(-ESTIMATOR_TIMELINE_MAX);
  }

  get size(): number {
    return this.pending.size;
  }

  /** The interval's metrics per deployment; the accumulator starts over only once they were delivered (`clear`). */
  snapshot(): DeploymentMetrics[] {
    return [...this.pending.values()].map((p) => ({
      deploymentId: p.latest.deploymentId,
      intervalMs: p.intervalMs,
      requests: { ...p.requests },
      rows: { ...p.rows },
      histograms: Object.fromEntries([...p.histograms].map(([stage, h]) => [stage, h.encode()])) as Histograms,
      busyMs: p.busyMs,
      queueDepthRows: p.queueDepthMax,
      instances: p.latest.instances,
      affinityOk: p.latest.affinityOk,
      ...(p.latest.estimator ? { estimator: p.latest.estimator } : {}),
      ...(p.timeline.length ? { estimatorTimeline: p.timeline } : {}),
    }));
  }

  clear(): void {
    this.pending.clear();
  }
}
