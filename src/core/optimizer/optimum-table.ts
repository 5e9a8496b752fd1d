import { validateProfile, type ProfileCell } from "../profile/profile";
import { allThreadsShape, oneThreadShape, profileLatencyLookup } from "./baselines";
import { optimumRank } from "./exact-fill-table";
import { OptimizerInputError } from "./errors";
import { normalizeRequest, prepareProfile, type NormalizedRequest, type PreparedProfile } from "./optimize";

/** One batch size of the chart table; null where no plan (or no baseline cell) exists. */
export interface OptimumTableRow {
  readonly batch: number;
  readonly latencyMs: number | null;
  readonly throughputPerS: number | null;
  /** ⟨1, T, B⟩ */
  readonly allThreadsMs: number | null;
  /** min(B, T) one-thread instances */
  readonly oneThreadMs: number | null;
}

export interface OptimumTable {
  readonly cores: number;
  readonly maxBatch: number;
  readonly exactCores: boolean;
  /** rows[B − 1] is batch B. */
  readonly rows: readonly OptimumTableRow[];
}

export interface OptimumTableRequest {
  readonly cores: number;
  readonly maxBatch: number;
  readonly exactCores?: boolean;
}

/**
 * The optimum latency for every B in 1…maxBatch from ONE exact-fill table (opt₌[t][b] does not depend on the
 * knapsack's B), beside both baselines: the data of a latency-vs-batch chart. Plans themselves come from optimize().
 */
export function optimumTable(profile: readonly ProfileCell[], request: OptimumTableRequest): OptimumTable {
  const normalized = normalizeTableRequest(request);
  const prepared = prepareProfile(validateProfile(profile), normalized.cores, normalized.batch);
  return optimumTablePrepared(prepared, normalized.cores, normalized.batch, normalized.exactCores);
}

/** normalizeRequest() with B = maxBatch; its errors name `maxBatch` rather than `batch`. */
export function normalizeTableRequest(request: OptimumTableRequest): NormalizedRequest {
  try {
    return normalizeRequest({ cores: request.cores, batch: request.maxBatch, exactCores: request.exactCores });
  } catch (error) {
    if (error instanceof OptimizerInputError && error.parameter === "batch") {
      throw new OptimizerInputError(error.code, "maxBatch", error.message.replace(/^batch: /, ""));
    }
    throw error;
  }
}

export function optimumTablePrepared(
  prepared: PreparedProfile,
  cores: number,
  maxBatch: number,
  exactCores: boolean,
): OptimumTable {
  const { table } = prepared;
  const latency = profileLatencyLookup(prepared.profile);
  const baseline = (shape: ReadonlyArray<{ threads: number; batch: number }>): number | null => {
    let worst = 0;
    for (const group of shape) {
      const cell = latency(group.threads, group.batch);
      if (cell === undefined) return null;
      worst = Math.max(worst, cell);
    }
    return worst;
  };
  const rows: OptimumTableRow[] = [];
  for (let batch = 1; batch <= maxBatch; batch++) {
    const rank = optimumRank(table, cores, batch, exactCores);
    const latencyMs = rank < 0 ? null : (table.values[rank] ?? null);
    rows.push({
      batch,
      latencyMs,
      throughputPerS: latencyMs === null ? null : (1000 * batch) / latencyMs,
      allThreadsMs: baseline(allThreadsShape(cores, batch)),
      oneThreadMs: baseline(oneThreadShape(cores, batch)),
    });
  }
  return { cores, maxBatch, exactCores, rows };
}
