// The plans a plan trial measures: the optimizer's k best ⟨i, t, b⟩ multisets by predicted makespan, plus ⟨1, T, B⟩
// and the running configuration, deduplicated. The k best come from a depth-first walk over profiled cells in
// canonical order (non-decreasing cell index, so each multiset is visited once), pruned by Σt ≤ T, Σb ≤ B and by the
// k-th best makespan found so far (a makespan only grows as cells are added). A node budget keeps a wide profile
// (T = 64, b up to 1024) bounded; the walk visits cells in ascending latency, so what it has found is the best it saw.
import type { Profile } from "../profile/profile";

export interface TrialShapeGroup {
  readonly count: number;
  readonly threads: number;
  readonly batch: number;
}

export interface CandidatePlan {
  /** Stable, human-readable key: "⟨2,1,4⟩" or "⟨1,1,2⟩+⟨1,1,6⟩", groups in (threads, batch) order. */
  readonly key: string;
  readonly groups: readonly TrialShapeGroup[];
  /** The isolated prediction: the slowest instance's L[t][b]; null when the profile lacks a cell of it. */
  readonly predictedMs: number | null;
  /** Why it is measured: the optimizer's rank (1 = its choice), the default ⟨1,T,B⟩, or what runs now. */
  readonly roles: ReadonlyArray<"rank" | "all-threads" | "running">;
  readonly rank: number | null;
}

export function shapeKey(groups: readonly TrialShapeGroup[]): string {
  return canonicalGroups(groups)
    .map((g) => `⟨${g.count},${g.threads},${g.batch}⟩`)
    .join("+");
}

/** Groups merged by ⟨t, b⟩ and sorted by (threads, batch). */
export function canonicalGroups(groups: readonly TrialShapeGroup[]): TrialShapeGroup[] {
  const merged = new Map<string, TrialShapeGroup>();
  for (const g of groups) {
    if (
      !Number.isInteger(g.count) ||
      g.count < 1 ||
      !Number.isInteger(g.threads) ||
      g.threads < 1 ||
      !Number.isInteger(g.batch) ||
      g.batch < 1
    ) {
      throw new RangeError(`groups: ${JSON.stringify(g)} needs positive integer count, threads and batch`);
    }
    const key = `${g.threads},${g.batch}`;
    merged.set(key, { count: (merged.get(key)?.count ?? 0) + g.count, threads: g.threads, batch: g.batch });
  }
  return [...merged.values()].sort((a, b) => a.threads - b.threads || a.batch - b.batch);
}

/** The isolated prediction of a shape: max over its groups of L[t][b], or null when a cell is missing. */
export function isolatedPrediction(profile: Profile, groups: readonly TrialShapeGroup[]): number | null {
  let worst = 0;
  for (const g of groups) {
    const cell = profile.find((c) => c.threads === g.threads && c.batch === g.batch);
    if (!cell) return null;
    worst = Math.max(worst, cell.latencyMs);
  }
  return worst;
}

export interface TopPlansOptions {
  cores: number;
  batch: number;
  k: number;
  /** Nodes the walk may visit before it returns what it has (default 200 000). */
  nodeBudget?: number;
}

/**
 * The k plans of least makespan (Σb = B, Σt ≤ T), ties broken by fewer instances, then fewer threads, then key.
 * Cells are walked in ascending latency, so a partial plan's makespan is the latency of the cell added last.
 */
export function topPlans(
  profile: Profile,
  options: TopPlansOptions,
): Array<{ groups: TrialShapeGroup[]; predictedMs: number; key: string }> {
  const { cores, batch, k } = options;
  if (!Number.isInteger(cores) || cores < 1) throw new RangeError(`cores: must be a positive integer, got ${cores}`);
  if (!Number.isInteger(batch) || batch < 1) throw new RangeError(`batch: must be a positive integer, got ${batch}`);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k: must be a positive integer, got ${k}`);
  let budget = options.nodeBudget ?? 200_000;
  const cells = profile
    .filter((c) => c.threads <= cores && c.batch <= batch)
    .sort((a, b) => a.latencyMs - b.latencyMs || a.threads - b.threads || a.batch - b.batch);
  type Found = {
    cells: Array<{ threads: number; batch: number }>;
    predictedMs: number;
    instances: number;
    threads: number;
    key: string;
  };
  const found: Found[] = [];
  const better = (a: Found, b: Found) =>
    a.predictedMs - b.predictedMs ||
    a.instances - b.instances ||
    a.threads - b.threads ||
    (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const kthMs = () => (found.length < k ? Number.POSITIVE_INFINITY : found[k - 1]!.predictedMs);
  const current: Array<{ threads: number; batch: number }> = [];
  const walk = (from: number, threadsLeft: number, batchLeft: number, makespan: number): void => {
    if (budget-- <= 0) return;
    if (batchLeft === 0) {
      const groups = canonicalGroups(current.map((c) => ({ count: 1, ...c })));
      const plan: Found = {
        cells: [...current],
        predictedMs: makespan,
        instances: current.length,
        threads: cores - threadsLeft,
        key: shapeKey(groups),
      };
      found.push(plan);
      found.sort(better);
      if (found.length > k) found.length = k;
      return;
    }
    for (let i = from; i < cells.length; i++) {
      const cell = cells[i]!;
      // Ascending latency: once a cell is no better than the k-th plan, no later one is either.
      if (cell.latencyMs > kthMs()) break;
      if (cell.threads > threadsLeft || cell.batch > batchLeft) continue;
      current.push({ threads: cell.threads, batch: cell.batch });
      walk(i, threadsLeft - cell.threads, batchLeft - cell.batch, Math.max(makespan, cell.latencyMs));
      current.pop();
    }
  };
  walk(0, cores, batch, 0);
  return found.map((f) => ({
    groups: canonicalGroups(f.cells.map((c) => ({ count: 1, ...c }))),
    predictedMs: f.predictedMs,
    key: f.key,
  }));
}

/** The trial's plans: the top k, then ⟨1,T,B⟩ and the running configuration (same shape: one entry, both roles). */
export function trialCandidates(
  profile: Profile,
  options: TopPlansOptions & { running?: readonly TrialShapeGroup[] },
): CandidatePlan[] {
  const out: Array<{
    key: string;
    groups: TrialShapeGroup[];
    predictedMs: number | null;
    roles: Array<"rank" | "all-threads" | "running">;
    rank: number | null;
  }> = [];
  const add = (groups: readonly TrialShapeGroup[], role: "rank" | "all-threads" | "running", rank: number | null) => {
    const canonical = canonicalGroups(groups);
    const key = shapeKey(canonical);
    const seen = out.find((p) => p.key === key);
    if (seen) {
      if (!seen.roles.includes(role)) seen.roles.push(role);
      return;
    }
    out.push({ key, groups: canonical, predictedMs: isolatedPrediction(profile, canonical), roles: [role], rank });
  };
  topPlans(profile, options).forEach((p, i) => add(p.groups, "rank", i + 1));
  add([{ count: 1, threads: options.cores, batch: options.batch }], "all-threads", null);
  if (options.running?.length) add(options.running, "running", null);
  return out;
}
