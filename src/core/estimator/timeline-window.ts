import { EstimatorError } from "./errors";

/*
 * The estimator's recent decisions, as the control plane keeps them: each heartbeat brings the decisions made since
 * the previous one, and the window keeps the newest `max`. A decision is identified by its time, so a heartbeat
 * that repeats decisions (a retried request) adds nothing twice.
 */
export function mergeTimeline<T extends { tMs: number }>(
  previous: readonly T[],
  incoming: readonly T[],
  max: number,
): T[] {
  if (!(Number.isInteger(max) && max >= 1))
    throw new EstimatorError("invalid-parameter", "max", `must be a positive integer, got ${max}`);
  for (const d of incoming) {
    if (!Number.isFinite(d.tMs)) throw new EstimatorError("invalid-sample", "tMs", `must be finite, got ${d.tMs}`);
  }
  const last = previous.at(-1)?.tMs ?? Number.NEGATIVE_INFINITY;
  const fresh = [...incoming]
    .sort((a, b) => a.tMs - b.tMs)
    .filter((d, i, all) => d.tMs > last && (i === 0 || all[i - 1]!.tMs !== d.tMs));
  return [...previous, ...fresh].slice(-max);
}
