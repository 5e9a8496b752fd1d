import type { Profile } from "../profile/profile";

/**
 * The test oracle: the recurrence exactly as the issue writes it, with b' over every size (O(T²·B²)):
 *   opt₌[t][b] = min( L[t][b], min over profiled ⟨t',b'⟩, t' < t, b' < b, of max(L[t'][b'], opt₌[t−t'][b−b']) ).
 * Plain floats with +∞ for "nothing fits", kept inside: callers get undefined.
 */
export interface NaiveTable {
  readonly cores: number;
  readonly maxBatch: number;
  /** Inner loop iterations performed: Σ_t (t−1) · Σ_b (b−1). */
  readonly steps: number;
  latency(threads: number, batch: number): number | undefined;
}

export function naiveSteps(cores: number, maxBatch: number): number {
  return ((cores * (cores - 1)) / 2) * ((maxBatch * (maxBatch - 1)) / 2);
}

export function naiveExactFillTable(profile: Profile, cores: number, maxBatch: number): NaiveTable {
  const stride = maxBatch + 1;
  const profiled = new Float64Array((cores + 1) * stride).fill(Infinity);
  for (const cell of profile) {
    if (cell.threads <= cores && cell.batch <= maxBatch) profiled[cell.threads * stride + cell.batch] = cell.latencyMs;
  }
  const opt = new Float64Array((cores + 1) * stride).fill(Infinity);
  let steps = 0;
  for (let t = 1; t <= cores; t++) {
    for (let b = 1; b <= maxBatch; b++) {
      let best = profiled[t * stride + b] ?? Infinity;
      for (let tp = 1; tp < t; tp++) {
        for (let bp = 1; bp < b; bp++) {
          steps++;
          const item = profiled[tp * stride + bp] ?? Infinity;
          if (item === Infinity) continue;
          const candidate = Math.max(item, opt[(t - tp) * stride + (b - bp)] ?? Infinity);
          if (candidate < best) best = candidate;
        }
      }
      opt[t * stride + b] = best;
    }
  }
  return {
    cores,
    maxBatch,
    steps,
    latency(threads, batch) {
      if (threads < 1 || threads > cores || batch < 1 || batch > maxBatch) return undefined;
      const value = opt[threads * stride + batch] ?? Infinity;
      return value === Infinity ? undefined : value;
    },
  };
}

/** The optimum of ⟨cores, batch⟩ read from the naive table: opt₌[T][B], or min over t ≤ T. */
export function naiveOptimum(table: NaiveTable, cores: number, batch: number, exactCores: boolean): number | undefined {
  if (exactCores) return table.latency(cores, batch);
  let best: number | undefined;
  for (let t = 1; t <= cores; t++) {
    const value = table.latency(t, batch);
    if (value !== undefined && (best === undefined || value < best)) best = value;
  }
  return best;
}
