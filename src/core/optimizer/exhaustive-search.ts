import type { Profile } from "../profile/profile";

/** A plan as a sorted list of ⟨threads, batch⟩ cells, one per instance. */
export type CellList = ReadonlyArray<readonly [number, number]>;

export interface ExhaustiveAnswer {
  readonly latencyMs: number;
  readonly cells: CellList;
}

/**
 * Every multiset of profiled cells with Σb = batch and Σt = cores (exactCores) or Σt ≤ cores, each as a sorted
 * cell list with its makespan. Exponential: a test oracle for tiny knapsacks only.
 */
export function enumeratePlans(
  profile: Profile,
  cores: number,
  batch: number,
  exactCores: boolean,
): Array<{ cells: CellList; latencyMs: number }> {
  const items = profile
    .filter((cell) => cell.threads <= cores && cell.batch <= batch)
    .sort((a, b) => a.threads - b.threads || a.batch - b.batch);
  const plans: Array<{ cells: CellList; latencyMs: number }> = [];
  const current: Array<readonly [number, number]> = [];
  const walk = (from: number, threadsLeft: number, batchLeft: number, makespan: number): void => {
    if (batchLeft === 0) {
      if (!exactCores || threadsLeft === 0) plans.push({ cells: [...current], latencyMs: makespan });
      return;
    }
    for (let i = from; i < items.length; i++) {
      const item = items[i];
      if (item === undefined || item.threads > threadsLeft || item.batch > batchLeft) continue;
      current.push([item.threads, item.batch]);
      walk(i, threadsLeft - item.threads, batchLeft - item.batch, Math.max(makespan, item.latencyMs));
      current.pop();
    }
  };
  walk(0, cores, batch, 0);
  return plans;
}

/**
 * The optimizer's contract applied literally to the enumeration: L* = the smallest makespan; among plans within
 * L*·(1+ε), the fewest instances, then the fewest threads, then the lexicographically smallest sorted cell list.
 */
export function exhaustiveOptimize(
  profile: Profile,
  request: { cores: number; batch: number; exactCores?: boolean; tieTolerance?: number },
): ExhaustiveAnswer | undefined {
  const plans = enumeratePlans(profile, request.cores, request.batch, request.exactCores ?? false);
  if (plans.length === 0) return undefined;
  const optimum = Math.min(...plans.map((plan) => plan.latencyMs));
  const bound = optimum * (1 + (request.tieTolerance ?? 0));
  const tied = plans.filter((plan) => plan.latencyMs <= bound);
  tied.sort(
    (a, b) => a.cells.length - b.cells.length || threads(a.cells) - threads(b.cells) || compareLists(a.cells, b.cells),
  );
  const best = tied[0];
  return best === undefined ? undefined : { latencyMs: best.latencyMs, cells: best.cells };
}

function threads(cells: CellList): number {
  return cells.reduce((sum, [t]) => sum + t, 0);
}

function compareLists(a: CellList, b: CellList): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [ta, ba] = a[i] ?? [0, 0];
    const [tb, bb] = b[i] ?? [0, 0];
    if (ta !== tb) return ta - tb;
    if (ba !== bb) return ba - bb;
  }
  return a.length - b.length;
}
