/**
 * The decision-aware stopping test: a cell needs more measuring only while its confidence interval could still
 * change the optimizer's choice. For every B in 1…maxBatch the plan P*(B) is the optimizer's plan on the current
 * estimates. Moving one cell c to either end v of its interval (the others at their estimates) gives a profile L';
 * the regret of keeping P*(B) is L'(P*(B)) − opt_{L'}(B), where L'(P) is the plan's makespan under L'. The cell is
 * settled when that regret is ≤ tolerance · L(P*(B)) for every B and both ends. A cell nowhere near any decision
 * settles as soon as its interval is finite; one whose plan is nearly tied with another needs only as much precision
 * as the tie's gap plus the tolerance.
 */
import { optimizePrepared, prepareProfile } from "../optimizer/optimize";
import { validateProfile, type ProfileCell } from "../profile/profile";

export interface CellInterval {
  readonly threads: number;
  readonly batch: number;
  readonly estimateMs: number;
  readonly lowerMs: number;
  readonly upperMs: number;
}

export interface DecisionContext {
  /** T: the core budget the plans may use (Σt ≤ T). */
  readonly cores: number;
  /** Plans are checked for B = 1…maxBatch. */
  readonly maxBatch: number;
  /** Allowed regret as a fraction of the plan's predicted latency (0.02 = 2%). */
  readonly tolerance: number;
}

/** One plan per B on `profile` (undefined where no combination fills B): its cells, one per instance, and latency. */
export function plansByBatch(
  profile: readonly ProfileCell[],
  cores: number,
  maxBatch: number,
): Array<{ cells: Array<[number, number]>; latencyMs: number } | undefined> {
  const prepared = prepareProfile(validateProfile(profile), cores, maxBatch);
  const plans: Array<{ cells: Array<[number, number]>; latencyMs: number } | undefined> = [undefined];
  for (let B = 1; B <= maxBatch; B++) {
    const r = optimizePrepared(prepared, { cores, batch: B, exactCores: false, tieTolerance: 0 });
    if (r.kind !== "plan") {
      plans.push(undefined);
      continue;
    }
    const cells: Array<[number, number]> = [];
    for (const g of r.instances) for (let i = 0; i < g.count; i++) cells.push([g.threads, g.batch]);
    plans.push({ cells, latencyMs: r.latencyMs });
  }
  return plans;
}

/** The makespan of a plan (its cells) under a profile. */
export function planLatencyUnder(
  cells: ReadonlyArray<readonly [number, number]>,
  latencyOf: (t: number, b: number) => number,
): number {
  let worst = 0;
  for (const [t, b] of cells) worst = Math.max(worst, latencyOf(t, b));
  return worst;
}

/**
 * For each cell (same order as `cells`): the largest regret, as a fraction of the plan's predicted latency, that
 * moving that cell alone within its interval can cause over every B. Infinity for an unbounded interval.
 */
export function worstRegrets(cells: readonly CellInterval[], context: DecisionContext): number[] {
  const { cores, maxBatch } = context;
  const base: ProfileCell[] = cells.map((c) => ({ threads: c.threads, batch: c.batch, latencyMs: c.estimateMs }));
  const chosen = plansByBatch(base, cores, maxBatch);
  const key = (t: number, b: number) => `${t}x${b}`;
  const estimate = new Map(base.map((c) => [key(c.threads, c.batch), c.latencyMs]));
  return cells.map((cell, index) => {
    if (!Number.isFinite(cell.upperMs) || !Number.isFinite(cell.lowerMs)) return Infinity;
    let worst = 0;
    // Raising a cell no chosen plan uses slows no chosen plan: no regret, nothing to compute.
    const used = chosen.some((p) => p?.cells.some(([t, b]) => t === cell.threads && b === cell.batch));
    // A latency must stay > 0; a lower end at or below 0 is as low as a latency can go.
    for (const v of [Math.max(cell.lowerMs, cell.estimateMs * 1e-6), ...(used ? [cell.upperMs] : [])]) {
      if (v === cell.estimateMs) continue;
      const moved = base.map((c, i) => (i === index ? { ...c, latencyMs: v } : c));
      const best = plansByBatch(moved, cores, maxBatch);
      const latencyOf = (t: number, b: number) =>
        t === cell.threads && b === cell.batch ? v : estimate.get(key(t, b))!;
      for (let B = 1; B <= maxBatch; B++) {
        const plan = chosen[B];
        const alternative = best[B];
        if (!plan || !alternative) continue;
        const regret = planLatencyUnder(plan.cells, latencyOf) - alternative.latencyMs;
        worst = Math.max(worst, regret / plan.latencyMs);
      }
    }
    return worst;
  });
}

/** Which cells are settled: their worst regret is within the tolerance. */
export function settledCells(cells: readonly CellInterval[], context: DecisionContext): boolean[] {
  return worstRegrets(cells, context).map((r) => r <= context.tolerance);
}
