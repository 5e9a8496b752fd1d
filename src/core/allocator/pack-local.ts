import type { AllocationOrder } from "./types";

/** A locality domain (one NUMA node) with its free physical cores. */
export interface PackDomain {
  socket: number;
  free: number;
}

/** Search steps the exact packer may take before giving up; instances × nodes on real hosts stay far below it. */
const EXACT_SEARCH_LIMIT = 200_000;

/**
 * Places each instance (sizes[k] physical cores) wholly inside one domain, or returns null when no such placement
 * exists. Returns the domain index for each size. First the policy's greedy pass (largest instance first:
 * round-robin over sockets for "interleave", first fit for "sequential"); when that fails, an exact search, because
 * bin packing defeats greedy passes (free 6 + 4 cores, instances 3, 3, 2, 2: round-robin strands two cores).
 */
export function packLocal(
  sizes: readonly number[],
  domains: readonly PackDomain[],
  order: AllocationOrder,
): number[] | null {
  const byLargest = sizes.map((_, k) => k).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  return greedy(sizes, byLargest, domains, order) ?? exact(sizes, byLargest, domains);
}

function greedy(
  sizes: readonly number[],
  byLargest: readonly number[],
  domains: readonly PackDomain[],
  order: AllocationOrder,
): number[] | null {
  const free = domains.map((d) => d.free);
  const socketIds = [...new Set(domains.map((d) => d.socket))];
  const socketDomains = socketIds.map((s) => domains.flatMap((d, i) => (d.socket === s ? [i] : [])));
  const nodeCursor = socketIds.map(() => 0);
  let socketCursor = 0;
  const placed = new Array<number>(sizes.length);
  for (const k of byLargest) {
    const need = sizes[k]!;
    let found = -1;
    if (order === "sequential") {
      found = free.findIndex((f) => f >= need);
    } else {
      // Round-robin: start at the socket after the last one used, and inside a socket at the node after the last.
      search: for (let step = 0; step < socketIds.length; step++) {
        const s = (socketCursor + step) % socketIds.length;
        const list = socketDomains[s]!;
        for (let m = 0; m < list.length; m++) {
          const j = (nodeCursor[s]! + m) % list.length;
          if (free[list[j]!]! >= need) {
            found = list[j]!;
            nodeCursor[s] = (j + 1) % list.length;
            socketCursor = (s + 1) % socketIds.length;
            break search;
          }
        }
      }
    }
    if (found < 0) return null;
    free[found]! -= need;
    placed[k] = found;
  }
  return placed;
}

function exact(
  sizes: readonly number[],
  byLargest: readonly number[],
  domains: readonly PackDomain[],
): number[] | null {
  const free = domains.map((d) => d.free);
  const placed = new Array<number>(sizes.length);
  // Feasibility depends only on the multiset of free counts, so failures are memoized on it.
  const failed = new Set<string>();
  let steps = 0;
  const go = (depth: number): boolean | "abort" => {
    if (depth === byLargest.length) return true;
    if (++steps > EXACT_SEARCH_LIMIT) return "abort";
    const key = `${depth}:${[...free].sort((a, b) => a - b).join(",")}`;
    if (failed.has(key)) return false;
    const k = byLargest[depth]!;
    const need = sizes[k]!;
    const tried = new Set<number>();
    for (let d = 0; d < free.length; d++) {
      const f = free[d]!;
      if (f < need || tried.has(f)) continue; // two domains with equal free cores are interchangeable
      tried.add(f);
      free[d] = f - need;
      placed[k] = d;
      const result = go(depth + 1);
      free[d] = f;
      if (result !== false) return result;
    }
    failed.add(key);
    return false;
  };
  return go(0) === true ? placed : null;
}
