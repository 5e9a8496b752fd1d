import { ewmaStep } from "../stats/ewma";
import { EstimatorError } from "./errors";
import { resolveEstimatorParams, type EstimatorParams } from "./params";
import { floorPowerOfTwo } from "./power-of-two";
import { stableMode } from "./stable-mode";
import type { EstimatorDecision, EstimatorState, IntervalStats } from "./types";

/*
 * Packrat §3.8 as a pure state machine: every call takes a state and returns a new one (the input is never
 * mutated), so an agent can keep it, report it, persist it and restore it. It proposes; it never acts.
 */

const emptyPending = (): EstimatorState["pending"] => ({
  samples: 0,
  depthSum: 0,
  batches: 0,
  timedOut: 0,
  queueDelaySumMs: 0,
});

export function createEstimator(params: Partial<EstimatorParams> = {}): EstimatorState {
  return {
    version: 1,
    params: resolveEstimatorParams(params),
    startedMs: null,
    lastSampleMs: null,
    lastDecisionMs: null,
    lastProposalMs: null,
    pending: emptyPending(),
    qTilde: null,
    estimates: [],
    intervals: [],
    stable: null,
  };
}

function checkTime(tMs: number, notBefore: number | null, parameter: string): void {
  if (!(Number.isFinite(tMs) && tMs >= 0))
    throw new EstimatorError("invalid-sample", parameter, `must be a finite time ≥ 0, got ${tMs}`);
  if (notBefore !== null && tMs < notBefore) {
    throw new EstimatorError("time-went-backwards", parameter, `${tMs} is before the previous ${notBefore}`);
  }
}

/** One queue-depth sample (the agent takes one every sampleIntervalMs). */
export function observe(state: EstimatorState, queueDepth: number, tMs: number): EstimatorState {
  if (!(Number.isFinite(queueDepth) && queueDepth >= 0)) {
    throw new EstimatorError("invalid-sample", "queueDepth", `must be a finite number ≥ 0, got ${queueDepth}`);
  }
  checkTime(tMs, state.lastSampleMs, "tMs");
  return {
    ...state,
    startedMs: state.startedMs ?? tMs,
    lastSampleMs: tMs,
    pending: { ...state.pending, samples: state.pending.samples + 1, depthSum: state.pending.depthSum + queueDepth },
  };
}

export interface DispatchedBatch {
  /** Sent because the batch timeout expired before B requests arrived. */
  timedOut: boolean;
  /** Mean time its requests waited in the queue before dispatch. */
  queueDelayMs: number;
  tMs: number;
}

/** One dispatched batch, counted in the interval that the next decide() closes. */
export function recordBatch(state: EstimatorState, batch: DispatchedBatch): EstimatorState {
  if (typeof batch.timedOut !== "boolean") {
    throw new EstimatorError("invalid-sample", "timedOut", `must be a boolean, got ${String(batch.timedOut)}`);
  }
  if (!(Number.isFinite(batch.queueDelayMs) && batch.queueDelayMs >= 0)) {
    throw new EstimatorError(
      "invalid-sample",
      "queueDelayMs",
      `must be a finite number ≥ 0, got ${batch.queueDelayMs}`,
    );
  }
  checkTime(batch.tMs, null, "tMs");
  const p = state.pending;
  return {
    ...state,
    startedMs: state.startedMs ?? batch.tMs,
    pending: {
      ...p,
      batches: p.batches + 1,
      timedOut: p.timedOut + (batch.timedOut ? 1 : 0),
      queueDelaySumMs: p.queueDelaySumMs + batch.queueDelayMs,
    },
  };
}

export interface DecisionContext {
  /** The batch size the deployment serves now. */
  currentB: number;
  /** The dispatcher's batch timeout; the queueing-delay trigger compares against it. */
  batchTimeoutMs: number;
}

/** When the next decision is due: one reconfiguration timeout after the last (or after the start). */
export function nextDecisionMs(state: EstimatorState): number | null {
  const from = state.lastDecisionMs ?? state.startedMs;
  return from === null ? null : from + state.params.reconfigurationTimeoutMs;
}

/**
 * Closes the interval since the last decision: Q̂ = mean depth, Q̃ = α·Q̂ + (1−α)·Q̃ (seeded by the first Q̂),
 * B̂ = the power of two at or below Q̃ (the current B inside a hysteresis band, if one is set), B̃ = the ring's mode.
 * Proposes B̃ when it differs from the current B, a trigger holds (unless requireTrigger is off) and the dwell time
 * has passed.
 */
export function decide(
  state: EstimatorState,
  tMs: number,
  context: DecisionContext,
): { state: EstimatorState; decision: EstimatorDecision } {
  checkTime(tMs, state.lastDecisionMs, "tMs");
  const { currentB, batchTimeoutMs } = context;
  if (!(Number.isInteger(currentB) && currentB >= 1)) {
    throw new EstimatorError("invalid-parameter", "currentB", `must be a positive integer, got ${currentB}`);
  }
  if (!(Number.isFinite(batchTimeoutMs) && batchTimeoutMs >= 0)) {
    throw new EstimatorError(
      "invalid-parameter",
      "batchTimeoutMs",
      `must be a finite number ≥ 0, got ${batchTimeoutMs}`,
    );
  }
  const params = state.params;
  const startedMs = state.startedMs ?? tMs;
  const samples = state.pending.samples;

  let next: EstimatorState;
  let qHat: number | null = null;
  let estimate: number | null = null;
  if (samples === 0) {
    // Nothing observed (a stalled sampler): keep the smoothing untouched and let the batches carry over.
    next = { ...state, startedMs, lastDecisionMs: tMs };
  } else {
    qHat = state.pending.depthSum / samples;
    const qTilde = ewmaStep(state.qTilde ?? undefined, qHat, params.alpha);
    const h = params.hysteresis;
    const inBand = h > 0 && qTilde >= currentB * (1 - h) && qTilde < 2 * currentB * (1 + h);
    estimate = inBand ? currentB : floorPowerOfTwo(qTilde);
    if (params.maxBatch !== null) estimate = Math.min(estimate, floorPowerOfTwo(params.maxBatch));
    const closed: IntervalStats = {
      batches: state.pending.batches,
      timedOut: state.pending.timedOut,
      queueDelaySumMs: state.pending.queueDelaySumMs,
    };
    const estimates = [...state.estimates, estimate].slice(-params.ringSize);
    next = {
      ...state,
      startedMs,
      lastDecisionMs: tMs,
      pending: emptyPending(),
      qTilde,
      estimates,
      intervals: [...state.intervals, closed].slice(-params.ringSize),
      stable: stableMode(estimates, currentB),
    };
  }

  const ring = next.intervals;
  const timeoutShare = ring.length === 0 ? 0 : ring.filter((i) => i.timedOut > 0).length / ring.length;
  const batches = ring.reduce((n, i) => n + i.batches, 0);
  const meanQueueDelayMs = batches === 0 ? null : ring.reduce((s, i) => s + i.queueDelaySumMs, 0) / batches;
  const batchTimeouts = ring.length > 0 && timeoutShare >= params.timeoutIntervalShare;
  const queueDelay = meanQueueDelayMs !== null && meanQueueDelayMs >= params.queueDelayFactor * batchTimeoutMs;
  const holds = batchTimeouts || queueDelay;
  const dwellRemainingMs = Math.max(0, params.minDwellMs - (tMs - (state.lastProposalMs ?? startedMs)));

  const outcome: EstimatorDecision["outcome"] =
    samples === 0
      ? "no-samples"
      : next.stable === currentB
        ? "stable-equals-current"
        : params.requireTrigger && !holds
          ? "no-trigger"
          : dwellRemainingMs > 0
            ? "dwell"
            : "proposed";
  const proposed = outcome === "proposed" ? next.stable : null;
  if (proposed !== null) next = { ...next, lastProposalMs: tMs };

  return {
    state: next,
    decision: {
      tMs,
      samples,
      qHat,
      qTilde: next.qTilde,
      estimate,
      stable: next.stable,
      current: currentB,
      triggers: { timeoutShare, batchTimeouts, meanQueueDelayMs, queueDelay, holds },
      dwellRemainingMs,
      proposed,
      outcome,
    },
  };
}
