// Runs the core batch-size estimator (Packrat §3.8) beside one model's dispatcher: samples the queue depth, counts
// batches, decides every reconfiguration timeout. It proposes; it never reconfigures anything itself.
import { createEstimator, decide, observe, recordBatch } from "@packrat/core/estimator/estimator";
import type { EstimatorParams } from "@packrat/core/estimator/params";
import type { EstimatorDecision, EstimatorState } from "@packrat/core/estimator/types";
import type { BatchRecord } from "./dispatcher";

const TIMELINE_LENGTH = 600;
/** Decisions a heartbeat carries at most (the protocol's ESTIMATOR_TIMELINE_MAX), and a proposal as evidence. */
export const REPORTED_DECISIONS = 120;

export class BatchEstimator {
  state: EstimatorState;
  readonly timeline: EstimatorDecision[] = [];
  /** The latest proposal not yet reported (the heartbeat takes it), with the decisions that led to it. */
  proposal?: { batchSize: number; decision: EstimatorDecision; timeline: EstimatorDecision[] };
  private timers: NodeJS.Timeout[] = [];
  /** Time of the newest decision a report has taken. */
  private reportedUpToMs = Number.NEGATIVE_INFINITY;

  constructor(
    params: Partial<EstimatorParams>,
    private readonly probe: { queueDepth: () => number; currentB: () => number; batchTimeoutMs: () => number },
  ) {
    this.state = createEstimator(params);
  }

  start(): void {
    const now = () => performance.timeOrigin + performance.now();
    this.timers.push(
      setInterval(() => {
        this.state = observe(this.state, this.probe.queueDepth(), now());
      }, this.state.params.sampleIntervalMs),
    );
    this.timers.push(
      setInterval(() => {
        const { state, decision } = decide(this.state, now(), {
          currentB: this.probe.currentB(),
          batchTimeoutMs: this.probe.batchTimeoutMs(),
        });
        this.state = state;
        this.timeline.push(decision);
        if (this.timeline.length > TIMELINE_LENGTH) this.timeline.shift();
        if (decision.proposed !== null)
          this.proposal = {
            batchSize: decision.proposed,
            decision,
            timeline: this.timeline.slice(-REPORTED_DECISIONS),
          };
      }, this.state.params.reconfigurationTimeoutMs),
    );
    for (const t of this.timers) t.unref();
  }

  /** The decisions made since the previous call (the newest `max`): each heartbeat reports each decision once. */
  takeNewDecisions(max = REPORTED_DECISIONS): EstimatorDecision[] {
    const fresh = this.timeline.filter((d) => d.tMs > this.reportedUpToMs).slice(-max);
    const last = this.timeline.at(-1);
    if (last) this.reportedUpToMs = last.tMs;
    return fresh;
  }

  onBatch(record: BatchRecord): void {
    this.state = recordBatch(this.state, {
      timedOut: record.timedOut,
      queueDelayMs: record.queueDelayMsMean,
      tMs: performance.timeOrigin + performance.now(),
    });
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }
}
