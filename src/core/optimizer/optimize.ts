import { validateProfile, type Profile, type ProfileCell } from "../profile/profile";
import { computeBaselines } from "./baselines";
import { OptimizerInputError } from "./errors";
import { buildExactFillTable, optimumRank, type ExactFillTable } from "./exact-fill-table";
import { buildItems, type ItemSet } from "./profile-items";
import { selectPlan } from "./select-plan";
import type { InfeasiblePlan, OptimizeRequest, OptimizeResult, OptimizedPlan, PlanGroup } from "./types";

/** Bounds that keep the tables in memory: (T+1)·(B+1) cells of 4 + 2 bytes. */
export const MAX_CORES = 4096;
export const MAX_BATCH = 1 << 20;
export const MAX_TABLE_CELLS = 1 << 24;

export interface NormalizedRequest {
  readonly cores: number;
  readonly batch: number;
  readonly exactCores: boolean;
  readonly tieTolerance: number;
}

/** A validated profile with its items and exact-fill table for every t ≤ cores, b ≤ maxBatch: reusable by any
 *  request with T ≤ cores and B ≤ maxBatch (opt₌[t][b] does not depend on the knapsack's size). */
export interface PreparedProfile {
  readonly profile: Profile;
  readonly items: ItemSet;
  readonly table: ExactFillTable;
}

/**
 * The Packrat optimizer (§3.3): the multiset of profiled ⟨t, b⟩ instances with Σb = B and Σt ≤ T (Σt = T with
 * exactCores) whose slowest instance is fastest; ties (within L*·(1+ε)) go to the fewest instances, then the fewest
 * threads, then the lexicographically smallest sorted item list. Infeasible requests return {kind: "infeasible"}.
 */
export function optimize(profile: readonly ProfileCell[], request: OptimizeRequest): OptimizeResult {
  const normalized = normalizeRequest(request);
  return optimizePrepared(prepareProfile(validateProfile(profile), normalized.cores, normalized.batch), normalized);
}

export function prepareProfile(profile: Profile, cores: number, maxBatch: number): PreparedProfile {
  checkSize(cores, maxBatch);
  const items = buildItems(profile, cores, maxBatch);
  return { profile, items, table: buildExactFillTable(items) };
}

export function optimizePrepared(prepared: PreparedProfile, request: NormalizedRequest): OptimizeResult {
  const { items, table } = prepared;
  const { cores, batch, exactCores, tieTolerance } = request;
  if (cores > table.cores || batch > table.maxBatch) {
    throw new OptimizerInputError(
      "invalid_option",
      "prepared",
      `table covers T ≤ ${table.cores}, B ≤ ${table.maxBatch}`,
    );
  }
  const bestRank = optimumRank(table, cores, batch, exactCores);
  if (bestRank < 0) return infeasible(items, request);

  const optimum = table.values[bestRank] ?? 0;
  const bound = optimum * (1 + tieTolerance);
  let maxRank = bestRank;
  while (maxRank + 1 < table.values.length && (table.values[maxRank + 1] ?? Infinity) <= bound) maxRank++;

  const selected = selectPlan(items, cores, batch, exactCores, maxRank);
  if (selected === undefined) return infeasible(items, request); // cannot happen: the optimum itself is within bound

  const instances = groupItems(items, selected.items);
  const latencyMs = Math.max(...instances.map((group) => group.latencyMs));
  const plan: OptimizedPlan = {
    kind: "plan",
    cores,
    batch,
    exactCores,
    latencyMs,
    throughputPerS: (1000 * batch) / latencyMs,
    idleCores: cores - selected.threadsUsed,
    instances,
    baselines: computeBaselines(prepared.profile, cores, batch, latencyMs),
  };
  return plan;
}

/** Validates a request (typed errors naming the field) and fills in the defaults. */
export function normalizeRequest(request: OptimizeRequest): NormalizedRequest {
  if (request === null || typeof request !== "object") {
    throw new OptimizerInputError("invalid_option", "request", "must be an object");
  }
  const { cores, batch } = request;
  if (!Number.isSafeInteger(cores) || cores < 1 || cores > MAX_CORES) {
    throw new OptimizerInputError(
      "invalid_cores",
      "cores",
      `must be an integer in 1…${MAX_CORES}, got ${String(cores)}`,
    );
  }
  if (!Number.isSafeInteger(batch) || batch < 1 || batch > MAX_BATCH) {
    throw new OptimizerInputError(
      "invalid_batch",
      "batch",
      `must be an integer in 1…${MAX_BATCH}, got ${String(batch)}`,
    );
  }
  checkSize(cores, batch);
  const exactCores = request.exactCores ?? false;
  if (typeof exactCores !== "boolean") {
    throw new OptimizerInputError("invalid_option", "exactCores", `must be a boolean, got ${String(exactCores)}`);
  }
  const tieTolerance = request.tieTolerance ?? 0;
  if (typeof tieTolerance !== "number" || !Number.isFinite(tieTolerance) || tieTolerance < 0) {
    throw new OptimizerInputError(
      "invalid_tolerance",
      "tieTolerance",
      `must be a finite number ≥ 0, got ${String(tieTolerance)}`,
    );
  }
  return { cores, batch, exactCores, tieTolerance };
}

function checkSize(cores: number, batch: number): void {
  if ((cores + 1) * (batch + 1) > MAX_TABLE_CELLS) {
    throw new OptimizerInputError(
      "too_large",
      "batch",
      `(cores + 1) · (batch + 1) = ${(cores + 1) * (batch + 1)} table cells exceeds ${MAX_TABLE_CELLS}`,
    );
  }
}

/** Consecutive equal items (the plan is in canonical order) become one ⟨i, t, b⟩ group. */
function groupItems(items: ItemSet, chosen: readonly number[]): PlanGroup[] {
  const groups: PlanGroup[] = [];
  let previous = -1;
  for (const item of chosen) {
    const last = groups[groups.length - 1];
    if (item === previous && last !== undefined) {
      groups[groups.length - 1] = { ...last, count: last.count + 1 };
    } else {
      groups.push({
        count: 1,
        threads: items.threads[item] ?? 0,
        batch: items.batch[item] ?? 0,
        latencyMs: items.values[items.rank[item] ?? 0] ?? 0,
      });
    }
    previous = item;
  }
  return groups;
}

function infeasible(items: ItemSet, request: NormalizedRequest): InfeasiblePlan {
  const { cores, batch, exactCores } = request;
  const sizes = new Set<number>();
  for (let i = 0; i < items.batch.length; i++) {
    if ((items.threads[i] ?? 0) <= cores && (items.batch[i] ?? 0) <= batch) sizes.add(items.batch[i] ?? 0);
  }
  const threads = exactCores ? `exactly ${cores} threads` : `at most ${cores} threads`;
  const what =
    sizes.size === 0
      ? `the profile has no cell with threads ≤ ${cores} and batch ≤ ${batch}`
      : `profiled batch sizes ≤ ${batch}: ${[...sizes].sort((a, b) => a - b).join(", ")}`;
  return {
    kind: "infeasible",
    reason: `no combination of profiled ⟨t, b⟩ instances fills batch ${batch} exactly with ${threads} (one or more per instance); ${what}`,
  };
}
