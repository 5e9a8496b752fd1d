import type { Profile } from "../profile/profile";

/**
 * The knapsack's items: the profiled cells ⟨t, b⟩ usable under ⟨cores, maxBatch⟩, in canonical order (threads, then
 * batch). Latencies are replaced by their rank among the distinct values, so the tables compare integers and a plan's
 * latency is always one of the profile's own numbers (no arithmetic on floats, no float equality).
 */
export interface ItemSet {
  readonly cores: number;
  readonly maxBatch: number;
  readonly threads: Int32Array;
  readonly batch: Int32Array;
  readonly rank: Int32Array;
  /** Distinct latencies, ascending: values[rank] is a latency in ms. */
  readonly values: Float64Array;
}

/** `profile` must already be validated (positive integers, positive finite latencies, no duplicate cells). */
export function buildItems(profile: Profile, cores: number, maxBatch: number): ItemSet {
  const usable = profile
    .filter((cell) => cell.threads <= cores && cell.batch <= maxBatch)
    .sort((a, b) => a.threads - b.threads || a.batch - b.batch);
  const values = Float64Array.from(new Set(usable.map((cell) => cell.latencyMs))).sort();
  const rankOf = new Map<number, number>();
  values.forEach((value, index) => rankOf.set(value, index));
  return {
    cores,
    maxBatch,
    threads: Int32Array.from(usable, (cell) => cell.threads),
    batch: Int32Array.from(usable, (cell) => cell.batch),
    rank: Int32Array.from(usable, (cell) => rankOf.get(cell.latencyMs) ?? -1),
    values,
  };
}
