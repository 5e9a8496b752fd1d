import type { Profile } from "../profile/profile";
import type { BaselineResult, Baselines } from "./types";

type Shape = ReadonlyArray<{ count: number; threads: number; batch: number }>;

/** ⟨1, T, B⟩: one instance with every thread on the whole batch. */
export function allThreadsShape(cores: number, batch: number): Shape {
  return [{ count: 1, threads: cores, batch }];
}

/**
 * k = min(B, T) one-thread instances; B = q·k + r, so r instances take q + 1 samples and k − r take q (q ≥ 1 since
 * k ≤ B). Listed in (threads, batch) order.
 */
export function oneThreadShape(cores: number, batch: number): Shape {
  const k = Math.min(batch, cores);
  const q = Math.floor(batch / k);
  const r = batch - q * k;
  const shape: Array<{ count: number; threads: number; batch: number }> = [];
  if (k - r > 0) shape.push({ count: k - r, threads: 1, batch: q });
  if (r > 0) shape.push({ count: r, threads: 1, batch: q + 1 });
  return shape;
}

/** A baseline's predicted latency (the max of its instances' L) or the cells the profile lacks. */
export function evaluateBaseline(
  latency: (threads: number, batch: number) => number | undefined,
  shape: Shape,
  totalBatch: number,
  optimumMs: number,
): BaselineResult {
  const missing: Array<readonly [number, number]> = [];
  const instances = [];
  let latencyMs = 0;
  for (const group of shape) {
    const cell = latency(group.threads, group.batch);
    if (cell === undefined) {
      missing.push([group.threads, group.batch] as const);
      continue;
    }
    instances.push({ ...group, latencyMs: cell });
    latencyMs = Math.max(latencyMs, cell);
  }
  if (missing.length > 0) return { available: false, missing };
  const throughputPerS = (1000 * totalBatch) / latencyMs;
  return { available: true, instances, latencyMs, throughputPerS, speedup: latencyMs / optimumMs };
}

/** Both baselines for ⟨cores, batch⟩ from the same profile, with the optimum's speedup over each. */
export function computeBaselines(profile: Profile, cores: number, batch: number, optimumMs: number): Baselines {
  const latency = profileLatencyLookup(profile);
  return {
    allThreads: evaluateBaseline(latency, allThreadsShape(cores, batch), batch, optimumMs),
    oneThread: evaluateBaseline(latency, oneThreadShape(cores, batch), batch, optimumMs),
  };
}

/** L[t][b] from a validated profile, undefined where the cell was not profiled. */
export function profileLatencyLookup(profile: Profile): (threads: number, batch: number) => number | undefined {
  const cells = new Map<string, number>();
  for (const cell of profile) cells.set(`${cell.threads},${cell.batch}`, cell.latencyMs);
  return (threads, batch) => cells.get(`${threads},${batch}`);
}
