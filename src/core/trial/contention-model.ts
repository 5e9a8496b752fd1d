// A per-host correction of the optimizer's isolated prediction, fitted from plan trials. The profile times one
// instance alone (session.run); served, a plan's slowest instance runs beside the plan's other instances (caches,
// memory bandwidth, SMT siblings) and the agent adds per-batch work around it (dispatch, hand-off to the instance
// threads, the split of the batch and the merge of the outputs). Two lines, each fitted by least squares:
//   contention  r = instanceMs ÷ isolatedMs = a + γ·x,  x = (Σt − t_slowest) ÷ T, the share of the host's cores the
//               plan's other instances keep busy while its slowest one runs (0 for a single instance);
//   overhead    o = dispatchMs − instanceMs = o₀ + o₁·(i − 1), i = the plan's instance count.
// Corrected prediction = isolatedMs·(a + γ·x) + o₀ + o₁·(i − 1). With one distinct x (or i) the slope is 0 and the
// intercept is the mean; with no observation the model is the identity (a = 1, γ = 0, o = 0).

export interface PlanGroupLatency {
  count: number;
  threads: number;
  batch: number;
  latencyMs?: number;
}

export interface TrialObservation {
  /** The plan's instances: count of each ⟨t, b⟩, with its profiled L[t][b] (which one is the slowest). */
  groups: ReadonlyArray<PlanGroupLatency>;
  cores: number;
  /** The profile's prediction: the slowest instance's L[t][b], measured alone. */
  isolatedMs: number;
  /** Measured in the trial: the slowest instance's session.run per batch (mean). */
  instanceMs: number;
  /** Measured in the trial: the dispatcher's batch time (dispatch → merged result, mean). */
  dispatchMs: number;
}

export interface Line {
  intercept: number;
  slope: number;
  points: number;
  distinctX: number;
}

export interface ContentionModel {
  contention: Line;
  overhead: Line;
  observations: number;
  /** Root-mean-square relative error of the corrected prediction on the fitted observations (null when none). */
  rmsRelativeError: number | null;
}

export const IDENTITY_MODEL: ContentionModel = {
  contention: { intercept: 1, slope: 0, points: 0, distinctX: 0 },
  overhead: { intercept: 0, slope: 0, points: 0, distinctX: 0 },
  observations: 0,
  rmsRelativeError: null,
};

/** Ordinary least squares y = intercept + slope·x; slope 0 (intercept = mean y) when x does not vary. */
export function fitLine(xs: readonly number[], ys: readonly number[], fallbackIntercept: number): Line {
  if (xs.length !== ys.length) throw new RangeError(`ys: ${ys.length} values for ${xs.length} x`);
  [...xs, ...ys].forEach((v) => {
    if (!Number.isFinite(v)) throw new RangeError(`values must be finite, got ${v}`);
  });
  const n = xs.length;
  if (n === 0) return { intercept: fallbackIntercept, slope: 0, points: 0, distinctX: 0 };
  const distinctX = new Set(xs.map((x) => x.toFixed(9))).size;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  if (distinctX < 2) return { intercept: my, slope: 0, points: n, distinctX };
  let sxy = 0,
    sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  const slope = sxy / sxx;
  return { intercept: my - slope * mx, slope, points: n, distinctX };
}

/** The features of a plan: x = other instances' share of the cores while the slowest runs, i = instance count. */
export function planFeatures(groups: readonly PlanGroupLatency[], cores: number): { x: number; instances: number } {
  if (!Number.isInteger(cores) || cores < 1) throw new RangeError(`cores: must be a positive integer, got ${cores}`);
  const instances = groups.reduce((s, g) => s + g.count, 0);
  const totalThreads = groups.reduce((s, g) => s + g.count * g.threads, 0);
  // The slowest group by its profiled latency (ties: more threads), whose one instance is the makespan.
  const slowest = [...groups].sort((a, b) => (b.latencyMs ?? 0) - (a.latencyMs ?? 0) || b.threads - a.threads)[0];
  if (!slowest) throw new RangeError("groups: a plan needs at least one group");
  return { x: (totalThreads - slowest.threads) / cores, instances };
}

export function fitContentionModel(observations: readonly TrialObservation[]): ContentionModel {
  if (observations.length === 0) return IDENTITY_MODEL;
  const xs: number[] = [],
    rs: number[] = [],
    is: number[] = [],
    os: number[] = [];
  for (const o of observations) {
    if (!(o.isolatedMs > 0) || !(o.instanceMs > 0) || !(o.dispatchMs >= 0))
      throw new RangeError(`observation ${JSON.stringify(o)}: latencies must be positive`);
    const f = planFeatures(o.groups, o.cores);
    xs.push(f.x);
    rs.push(o.instanceMs / o.isolatedMs);
    is.push(f.instances - 1);
    os.push(Math.max(0, o.dispatchMs - o.instanceMs));
  }
  const model: ContentionModel = {
    contention: fitLine(xs, rs, 1),
    overhead: fitLine(is, os, 0),
    observations: observations.length,
    rmsRelativeError: null,
  };
  const errors = observations.map((o, i) => {
    const corrected =
      o.isolatedMs * (model.contention.intercept + model.contention.slope * xs[i]!) +
      model.overhead.intercept +
      model.overhead.slope * is[i]!;
    return (corrected - o.dispatchMs) / o.dispatchMs;
  });
  return { ...model, rmsRelativeError: Math.sqrt(errors.reduce((s, e) => s + e * e, 0) / errors.length) };
}

/** The corrected prediction of a plan's batch latency (what the dispatcher will measure). */
export function correctedPrediction(
  model: ContentionModel,
  isolatedMs: number,
  features: { x: number; instances: number },
): number {
  const ratio = Math.max(0, model.contention.intercept + model.contention.slope * features.x);
  const overhead = Math.max(0, model.overhead.intercept + model.overhead.slope * (features.instances - 1));
  return isolatedMs * ratio + overhead;
}
