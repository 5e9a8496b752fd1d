import { EstimatorError } from "./errors";
import { resolveEstimatorParams, type EstimatorParams } from "./params";
import type { EstimatorState, IntervalStats } from "./types";

/**
 * Checks a state read back from JSON (an agent's persisted or reported estimator) and returns it typed. Anything
 * malformed is an EstimatorError naming the field, never a state that would later produce NaN.
 */
export function restoreEstimatorState(value: unknown): EstimatorState {
  const root = record(value, "state");
  if (root.version !== 1) throw invalid("state.version", "must be 1", root.version);
  const params = resolveEstimatorParams(record(root.params, "state.params") as Partial<EstimatorParams>);
  const pending = record(root.pending, "state.pending");
  const estimates = list(root.estimates, "state.estimates", params.ringSize).map((b, i) => {
    if (!(Number.isInteger(b) && (b as number) >= 1))
      throw invalid(`state.estimates[${i}]`, "must be a positive integer", b);
    return b as number;
  });
  const intervals = list(root.intervals, "state.intervals", params.ringSize).map((it, i) =>
    stats(record(it, `state.intervals[${i}]`), `state.intervals[${i}]`),
  );
  const stable = root.stable;
  if (stable !== null && !(Number.isInteger(stable) && (stable as number) >= 1)) {
    throw invalid("state.stable", "must be a positive integer or null", stable);
  }
  return {
    version: 1,
    params,
    startedMs: time(root.startedMs, "state.startedMs"),
    lastSampleMs: time(root.lastSampleMs, "state.lastSampleMs"),
    lastDecisionMs: time(root.lastDecisionMs, "state.lastDecisionMs"),
    lastProposalMs: time(root.lastProposalMs, "state.lastProposalMs"),
    pending: {
      ...stats(pending, "state.pending"),
      samples: count(pending.samples, "state.pending.samples"),
      depthSum: amount(pending.depthSum, "state.pending.depthSum"),
    },
    qTilde: root.qTilde === null ? null : amount(root.qTilde, "state.qTilde"),
    estimates,
    intervals,
    stable: stable as number | null,
  };
}

function invalid(parameter: string, rule: string, got: unknown): EstimatorError {
  return new EstimatorError("invalid-state", parameter, `${rule}, got ${JSON.stringify(got) ?? String(got)}`);
}

function record(v: unknown, parameter: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw invalid(parameter, "must be an object", v);
  return v as Record<string, unknown>;
}

function list(v: unknown, parameter: string, max: number): unknown[] {
  if (!Array.isArray(v) || v.length > max) throw invalid(parameter, `must be an array of at most ${max}`, v);
  return v;
}

function amount(v: unknown, parameter: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw invalid(parameter, "must be a finite number ≥ 0", v);
  return v;
}

function count(v: unknown, parameter: string): number {
  if (!Number.isInteger(v) || (v as number) < 0) throw invalid(parameter, "must be an integer ≥ 0", v);
  return v as number;
}

function time(v: unknown, parameter: string): number | null {
  return v === null ? null : amount(v, parameter);
}

function stats(r: Record<string, unknown>, parameter: string): IntervalStats {
  const batches = count(r.batches, `${parameter}.batches`);
  const timedOut = count(r.timedOut, `${parameter}.timedOut`);
  if (timedOut > batches) throw invalid(`${parameter}.timedOut`, "must not exceed batches", timedOut);
  return { batches, timedOut, queueDelaySumMs: amount(r.queueDelaySumMs, `${parameter}.queueDelaySumMs`) };
}
