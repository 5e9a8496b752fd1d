/**
 * Exponentially weighted moving average: the one implementation the estimator, the agent and the
 * load generator share. `previous` undefined means "no history yet": the first sample seeds it.
 */
export function ewmaStep(previous: number | undefined, sample: number, alpha: number): number {
  if (!(alpha > 0 && alpha <= 1)) throw new RangeError(`alpha must be in (0, 1], got ${alpha}`);
  if (!Number.isFinite(sample)) throw new RangeError(`sample must be finite, got ${sample}`);
  return previous === undefined ? sample : alpha * sample + (1 - alpha) * previous;
}
