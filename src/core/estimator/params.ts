import { EstimatorError } from "./errors";

/** Every knob of the batch-size estimator (Packrat §3.8). All plain data: it travels inside the reported state. */
export interface EstimatorParams {
  /** EWMA weight of the newest interval's mean depth, 0 < α ≤ 1 (the authors' code: 0.1). */
  alpha: number;
  /** How many per-interval estimates the mode looks at (the authors' code holds 10; the paper's n + 1). */
  ringSize: number;
  /** The agent calls decide() this often (the authors' code: every 1 s). */
  reconfigurationTimeoutMs: number;
  /** The agent samples queue depth this often (the authors' code: 5 ms). Informational for the estimator. */
  sampleIntervalMs: number;
  /** At least this long between proposals, and from the start to the first (flip-flop guard). */
  minDwellMs: number;
  /** Propose only while a trigger holds (the paper: timeouts frequent or queueing delays large). */
  requireTrigger: boolean;
  /** Batch-timeout trigger: share of the ring's intervals with at least one timed-out batch, 0…1. */
  timeoutIntervalShare: number;
  /** Queueing-delay trigger: mean queueing delay ≥ this × the batch timeout. */
  queueDelayFactor: number;
  /**
   * Dead band around the current B, as a fraction (0 = the paper's rule): the estimate stays at the current B while
   * current·(1 − h) ≤ Q̃ < 2·current·(1 + h), so a queue hovering at a power of two cannot flip the estimate.
   */
  hysteresis: number;
  /** Largest batch size to propose (e.g. the profile's largest b), or null for no cap. */
  maxBatch: number | null;
}

export const DEFAULT_ESTIMATOR_PARAMS: Readonly<EstimatorParams> = Object.freeze({
  alpha: 0.1,
  ringSize: 10,
  reconfigurationTimeoutMs: 1000,
  sampleIntervalMs: 5,
  minDwellMs: 30_000,
  requireTrigger: true,
  timeoutIntervalShare: 0.5,
  queueDelayFactor: 1,
  hysteresis: 0,
  maxBatch: null,
});

function fail(parameter: string, rule: string, value: unknown): never {
  throw new EstimatorError("invalid-parameter", parameter, `must be ${rule}, got ${String(value)}`);
}

/** Defaults filled in and every value checked. */
export function resolveEstimatorParams(overrides: Partial<EstimatorParams> = {}): EstimatorParams {
  const p: EstimatorParams = { ...DEFAULT_ESTIMATOR_PARAMS, ...overrides };
  const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
  if (!(finite(p.alpha) && p.alpha > 0 && p.alpha <= 1)) fail("alpha", "in (0, 1]", p.alpha);
  if (!(Number.isInteger(p.ringSize) && p.ringSize >= 1 && p.ringSize <= 10_000))
    fail("ringSize", "an integer in 1..10000", p.ringSize);
  if (!(finite(p.reconfigurationTimeoutMs) && p.reconfigurationTimeoutMs > 0))
    fail("reconfigurationTimeoutMs", "> 0", p.reconfigurationTimeoutMs);
  if (!(finite(p.sampleIntervalMs) && p.sampleIntervalMs > 0)) fail("sampleIntervalMs", "> 0", p.sampleIntervalMs);
  if (!(finite(p.minDwellMs) && p.minDwellMs >= 0)) fail("minDwellMs", "≥ 0", p.minDwellMs);
  if (typeof p.requireTrigger !== "boolean") fail("requireTrigger", "a boolean", p.requireTrigger);
  if (!(finite(p.timeoutIntervalShare) && p.timeoutIntervalShare >= 0 && p.timeoutIntervalShare <= 1)) {
    fail("timeoutIntervalShare", "in [0, 1]", p.timeoutIntervalShare);
  }
  if (!(finite(p.queueDelayFactor) && p.queueDelayFactor >= 0)) fail("queueDelayFactor", "≥ 0", p.queueDelayFactor);
  if (!(finite(p.hysteresis) && p.hysteresis >= 0 && p.hysteresis < 1)) fail("hysteresis", "in [0, 1)", p.hysteresis);
  if (p.maxBatch !== null && !(Number.isInteger(p.maxBatch) && p.maxBatch >= 1))
    fail("maxBatch", "a positive integer or null", p.maxBatch);
  return p;
}
