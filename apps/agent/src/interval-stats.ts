// Per-model counters and per-stage latency histograms since the last heartbeat; the heartbeat takes and resets them.
import { INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS, LatencyHistogram } from "@packrat/core/stats/histogram";

// queue = formation + busy (a request's whole wait); system = queue + compute (its time in the model server, the
// sojourn the planning pages' queueing curves model).
export type Stage = "deserialize" | "queue" | "formation" | "busy" | "compute" | "system" | "serialize" | "total";
const STAGES: Stage[] = ["deserialize", "queue", "formation", "busy", "compute", "system", "serialize", "total"];

export interface IntervalSnapshot {
  intervalMs: number;
  requests: { completed: number; rejected: number; withinSlo: number };
  rows: { completed: number; rejected: number };
  histograms: Partial<Record<Stage, string>>;
  /** Time the instance set spent executing batches (one batch runs at a time, so busyMs / intervalMs is ρ). */
  busyMs: number;
}

export class IntervalStats {
  private since = performance.now();
  private requests = { completed: 0, rejected: 0, withinSlo: 0 };
  private rows = { completed: 0, rejected: 0 };
  private busyMs = 0;
  // At the interval precision (p99 within 0.8 %): every interval's histograms are stored by the control plane.
  private histograms = new Map<Stage, LatencyHistogram>(
    STAGES.map((s) => [s, LatencyHistogram.create(INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS)]),
  );
  /** The SLO deadline (ms) a completed request is counted against, when the deployment has one. */
  sloDeadlineMs?: number;

  completed(rows: number, stagesMs: Partial<Record<Stage, number>>): void {
    this.requests.completed++;
    this.rows.completed += rows;
    if (this.sloDeadlineMs !== undefined && (stagesMs.total ?? Infinity) <= this.sloDeadlineMs)
      this.requests.withinSlo++;
    // A for-in, not Object.entries: no array of pairs per request.
    for (const stage in stagesMs) {
      const ms = stagesMs[stage as Stage];
      if (ms !== undefined) this.histograms.get(stage as Stage)!.recordMs(Math.max(0, ms));
    }
  }

  /** A batch finished on the instances (whether its requests succeeded or not): the server was busy that long. */
  batchExecuted(computeMs: number): void {
    if (Number.isFinite(computeMs) && computeMs > 0) this.busyMs += computeMs;
  }

  rejected(rows: number): void {
    this.requests.rejected++;
    this.rows.rejected += rows;
  }

  take(): IntervalSnapshot {
    const now = performance.now();
    const snapshot: IntervalSnapshot = {
      intervalMs: now - this.since,
      requests: { ...this.requests },
      rows: { ...this.rows },
      busyMs: this.busyMs,
      histograms: Object.fromEntries(
        [...this.histograms].filter(([, h]) => h.count > 0).map(([s, h]) => [s, h.encode()]),
      ),
    };
    this.since = now;
    this.requests = { completed: 0, rejected: 0, withinSlo: 0 };
    this.rows = { completed: 0, rejected: 0 };
    this.busyMs = 0;
    for (const h of this.histograms.values()) h.reset();
    return snapshot;
  }
}
