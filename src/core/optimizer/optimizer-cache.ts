import { profileHash } from "../profile/profile-hash";
import { validateProfile, type ProfileCell } from "../profile/profile";
import { OptimizerInputError } from "./errors";
import { normalizeRequest, optimizePrepared, prepareProfile, type PreparedProfile } from "./optimize";
import {
  normalizeTableRequest,
  optimumTablePrepared,
  type OptimumTable,
  type OptimumTableRequest,
} from "./optimum-table";
import type { OptimizeRequest, OptimizeResult } from "./types";

export interface OptimizerCache {
  /** optimize(), memoized by (profile hash, T, B, exactCores, ε). Results are frozen: callers share them. */
  optimize(profile: readonly ProfileCell[], request: OptimizeRequest): OptimizeResult;
  /** optimumTable(), memoized by (profile hash, T, maxBatch, exactCores). */
  table(profile: readonly ProfileCell[], request: OptimumTableRequest): OptimumTable;
  stats(): { hits: number; misses: number; size: number };
  clear(): void;
}

/**
 * Packrat caches optimal configurations per ⟨T, B⟩ "to avoid repeated work" (§3.3). Keys use the profile's content
 * hash, so an equal profile loaded twice hits. Least-recently-used eviction. Exact-fill tables are kept per profile
 * too, and reused by any request they cover (T ≤ their cores, B ≤ their maxBatch).
 */
export function createOptimizerCache(options: { maxEntries?: number; maxTables?: number } = {}): OptimizerCache {
  const maxEntries = options.maxEntries ?? 256;
  const maxTables = options.maxTables ?? 8;
  for (const [name, value] of [
    ["maxEntries", maxEntries],
    ["maxTables", maxTables],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new OptimizerInputError("invalid_option", name, `must be a positive integer, got ${String(value)}`);
    }
  }
  const results = new Map<string, OptimizeResult | OptimumTable>();
  const tables = new Map<string, PreparedProfile>();
  const hashes = new WeakMap<object, string>();
  let hits = 0;
  let misses = 0;

  const hashOf = (profile: readonly ProfileCell[]): string => {
    const known = hashes.get(profile);
    if (known !== undefined) return known;
    const hash = profileHash(profile);
    if (Object.isFrozen(profile) && profile.every((cell) => Object.isFrozen(cell))) hashes.set(profile, hash);
    return hash;
  };

  const prepared = (
    hash: string,
    profile: readonly ProfileCell[],
    cores: number,
    maxBatch: number,
  ): PreparedProfile => {
    const held = tables.get(hash);
    if (held !== undefined && held.table.cores >= cores && held.table.maxBatch >= maxBatch) {
      touch(tables, hash, held);
      return held;
    }
    // Grow to cover both the old and the new request, so alternating requests do not rebuild each time.
    const fresh = prepareProfile(
      validateProfile(profile),
      Math.max(cores, held?.table.cores ?? 0),
      Math.max(maxBatch, held?.table.maxBatch ?? 0),
    );
    touch(tables, hash, fresh);
    evict(tables, maxTables);
    return fresh;
  };

  const memo = <R extends OptimizeResult | OptimumTable>(key: string, compute: () => R): R => {
    const held = results.get(key);
    if (held !== undefined) {
      hits++;
      touch(results, key, held);
      return held as R;
    }
    misses++;
    const value = deepFreeze(compute());
    touch(results, key, value);
    evict(results, maxEntries);
    return value;
  };

  return {
    optimize(profile, request) {
      const normalized = normalizeRequest(request);
      const hash = hashOf(profile);
      const key = `plan|${hash}|${normalized.cores}|${normalized.batch}|${normalized.exactCores}|${normalized.tieTolerance}`;
      return memo(key, () => optimizePrepared(prepared(hash, profile, normalized.cores, normalized.batch), normalized));
    },
    table(profile, request) {
      const normalized = normalizeTableRequest(request);
      const hash = hashOf(profile);
      const key = `table|${hash}|${normalized.cores}|${normalized.batch}|${normalized.exactCores}`;
      return memo(key, () =>
        optimumTablePrepared(
          prepared(hash, profile, normalized.cores, normalized.batch),
          normalized.cores,
          normalized.batch,
          normalized.exactCores,
        ),
      );
    },
    stats: () => ({ hits, misses, size: results.size }),
    clear() {
      results.clear();
      tables.clear();
      hits = 0;
      misses = 0;
    },
  };
}

/** Map keeps insertion order: re-inserting marks an entry most recently used. */
function touch<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
}

function evict<V>(map: Map<string, V>, max: number): void {
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done === true) return;
    map.delete(oldest.value);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
