import type { EstimatorParams } from "./params";

/** Batches dispatched during one reconfiguration interval. */
export interface IntervalStats {
  batches: number;
  /** Batches sent because the batch timeout expired before B requests arrived. */
  timedOut: number;
  queueDelaySumMs: number;
}

/** Everything the estimator knows: plain JSON (numbers, booleans, arrays, null), so an agent can report it. */
export interface EstimatorState {
  version: 1;
  params: EstimatorParams;
  /** Time of the first call; the dwell time before a first proposal counts from here. */
  startedMs: number | null;
  lastSampleMs: number | null;
  lastDecisionMs: number | null;
  lastProposalMs: number | null;
  /** Since the last decision: the depth samples (sum and count, for Q̂) and the batches. */
  pending: IntervalStats & { samples: number; depthSum: number };
  /** Q̃, the EWMA of the per-interval mean depth; null before the first interval with samples. */
  qTilde: number | null;
  /** B̂ of the last `ringSize` intervals with samples, oldest first. */
  estimates: number[];
  /** Batch statistics of the same intervals, oldest first. */
  intervals: IntervalStats[];
  /** B̃ at the last decision. */
  stable: number | null;
}

export const DECISION_OUTCOMES = ["no-samples", "stable-equals-current", "no-trigger", "dwell", "proposed"] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

/** One row of the estimator's timeline, one per decision, for charts and the audit trail. */
export interface EstimatorDecision {
  tMs: number;
  /** Depth samples in the interval and their mean Q̂ (null without samples). */
  samples: number;
  qHat: number | null;
  qTilde: number | null;
  /** B̂ = the power of two at or below Q̃ (the current B inside the hysteresis band; capped at maxBatch). */
  estimate: number | null;
  /** B̃ = the ring's mode. */
  stable: number | null;
  current: number;
  triggers: {
    /** Share of the ring's intervals with a batch timeout, and whether it reached the threshold. */
    timeoutShare: number;
    batchTimeouts: boolean;
    meanQueueDelayMs: number | null;
    queueDelay: boolean;
    holds: boolean;
  };
  /** How long the dwell time still holds proposals back (0 = free to propose). */
  dwellRemainingMs: number;
  /** The batch size proposed at this decision, or null. */
  proposed: number | null;
  outcome: DecisionOutcome;
}
