import type { ItemSet } from "./profile-items";

/** One instance of a plan: an index into the ItemSet. Plans are listed in canonical (threads, batch) order. */
export interface SelectedPlan {
  readonly items: readonly number[];
  readonly threadsUsed: number;
}

const UNREACHED = 0xffff;

/**
 * Phase 2 of the optimizer. Every item no slower than `maxRank` keeps the makespan within the bound, so among the
 * multisets of those items that fill ⟨cores, batch⟩ (Σt = cores with exactCores, else Σt ≤ cores) pick the fewest
 * instances, then the fewest threads, then the lexicographically smallest sorted item list.
 *
 * cnt[t][b] = fewest allowed items with Σt = t, Σb = b exactly (integers: exact comparisons). The back-pointer of a
 * cell is its smallest item i (canonical order) with cnt[cell − i] = cnt[cell] − 1; following back-pointers from the
 * chosen cell yields the smallest first item, then recursively the smallest rest: the lexicographic minimum.
 * Returns undefined when nothing fills the knapsack within the bound.
 */
export function selectPlan(
  items: ItemSet,
  cores: number,
  batch: number,
  exactCores: boolean,
  maxRank: number,
): SelectedPlan | undefined {
  const allowed = allowedItems(items, cores, batch, exactCores, maxRank);
  const stride = batch + 1;
  const cnt = new Uint16Array((cores + 1) * stride).fill(UNREACHED);
  cnt[0] = 0;
  // Item-outer, ascending t: unbounded reuse (row t − t' already holds this item's copies), and one contiguous
  // inner loop per row pair: cell ⟨t, b'+i⟩ from cell ⟨t − t', i⟩.
  for (const item of allowed) {
    const tp = items.threads[item] ?? 0;
    const bp = items.batch[item] ?? 0;
    const span = stride - bp;
    for (let t = tp; t <= cores; t++) {
      const from = cnt.subarray((t - tp) * stride, (t - tp) * stride + span);
      const to = cnt.subarray(t * stride + bp, (t + 1) * stride);
      for (let i = 0; i < span; i++) {
        const candidate = (from[i] ?? UNREACHED) + 1;
        if (candidate < (to[i] ?? UNREACHED)) to[i] = candidate;
      }
    }
  }

  // The chosen cell: ⟨cores, batch⟩, or without exactCores the fewest instances, then the fewest threads.
  let threadsUsed = exactCores ? cores : -1;
  if (!exactCores) {
    let fewest = UNREACHED;
    for (let t = 1; t <= cores; t++) {
      const count = cnt[t * stride + batch] ?? UNREACHED;
      if (count < fewest) {
        fewest = count;
        threadsUsed = t;
      }
    }
  }
  if (threadsUsed < 1 || (cnt[threadsUsed * stride + batch] ?? UNREACHED) === UNREACHED) return undefined;

  const chosen: number[] = [];
  let t = threadsUsed;
  let b = batch;
  while (t > 0 || b > 0) {
    const next = backPointer(items, allowed, cnt, stride, t, b);
    if (next === undefined) return undefined; // unreachable: the table says ⟨t, b⟩ is filled
    chosen.push(next);
    t -= items.threads[next] ?? 0;
    b -= items.batch[next] ?? 0;
  }
  return { items: chosen, threadsUsed };
}

/** The smallest allowed item whose removal leaves a cell filled by exactly one item fewer. */
function backPointer(
  items: ItemSet,
  allowed: readonly number[],
  cnt: Uint16Array,
  stride: number,
  t: number,
  b: number,
): number | undefined {
  const count = cnt[t * stride + b] ?? UNREACHED;
  for (const item of allowed) {
    const tp = items.threads[item] ?? 0;
    const bp = items.batch[item] ?? 0;
    if (tp > t) break; // canonical order: threads ascending
    if (bp > b) continue;
    if ((cnt[(t - tp) * stride + (b - bp)] ?? UNREACHED) === count - 1) return item;
  }
  return undefined;
}

/**
 * Items no slower than `maxRank` that fit, in canonical order. Without exactCores only the fewest-thread item of each
 * batch size is kept: swapping any other for it keeps the count, stays within the bound and saves threads, so the
 * phase-2 winner never uses the others (and the DP runs on |b| items instead of T·|b|).
 */
function allowedItems(items: ItemSet, cores: number, batch: number, exactCores: boolean, maxRank: number): number[] {
  const allowed: number[] = [];
  const seenBatch = new Set<number>();
  for (let i = 0; i < items.threads.length; i++) {
    const t = items.threads[i] ?? 0;
    const b = items.batch[i] ?? 0;
    if (t > cores || b > batch || (items.rank[i] ?? 0) > maxRank) continue;
    if (!exactCores) {
      if (seenBatch.has(b)) continue; // items are in (threads, batch) order: the first per batch has fewest threads
      seenBatch.add(b);
    }
    allowed.push(i);
  }
  return allowed;
}
