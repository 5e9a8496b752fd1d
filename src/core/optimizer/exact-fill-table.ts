import type { ItemSet } from "./profile-items";

/**
 * opt₌[t][b] for every t ≤ cores, b ≤ maxBatch: the smallest makespan of a multiset of items with Σt = t and Σb = b
 * exactly (Packrat §3.3, the recurrence opt₌[t][b] = min(L[t][b], min over items of max(L[t'][b'], opt₌[t−t'][b−b']))).
 */
export interface ExactFillTable {
  readonly cores: number;
  readonly maxBatch: number;
  /** Row-major, t·(maxBatch+1) + b: the rank of opt₌[t][b] in `values`, or −1 where nothing fills ⟨t, b⟩. */
  readonly ranks: Int32Array;
  readonly values: Float64Array;
}

/**
 * A makespan is a max, so opt₌ is a bottleneck problem: opt₌[t][b] is the smallest latency L such that ⟨t, b⟩ can be
 * filled exactly by items no slower than L. So the items are added in ascending latency, each closed under unbounded
 * reuse on reachability bitsets (row t, bit b), and a cell takes the latency of the item that first makes it
 * reachable. That is the recurrence's table in O(|items|·T·B/32) word operations instead of O(|items|·T·B).
 * The naive recurrence (naive-oracle.ts) checks it in the tests.
 */
export function buildExactFillTable(items: ItemSet): ExactFillTable {
  const { cores, maxBatch } = items;
  const stride = maxBatch + 1;
  const words = (maxBatch >>> 5) + 1;
  const tailBits = stride & 31;
  const lastMask = tailBits === 0 ? 0xffffffff : 2 ** tailBits - 1;
  const reach = new Uint32Array((cores + 1) * words);
  // Lowest non-zero word of each row (words when empty): shifts skip the empty prefix.
  const low = new Int32Array(cores + 1).fill(words);
  const ranks = new Int32Array((cores + 1) * stride).fill(-1);
  reach[0] = 1; // ⟨0, 0⟩: the empty plan, the seed every plan grows from.
  low[0] = 0;

  const order = Array.from(items.rank.keys()).sort((a, b) => (items.rank[a] ?? 0) - (items.rank[b] ?? 0));
  for (const item of order) {
    const itemThreads = items.threads[item] ?? 0;
    const itemBatch = items.batch[item] ?? 0;
    const rank = items.rank[item] ?? 0;
    const wordShift = itemBatch >>> 5;
    const bitShift = itemBatch & 31;
    // Rows in ascending t: row t − t' already holds this item's own copies (unbounded reuse).
    for (let t = itemThreads; t <= cores; t++) {
      const srcRow = t - itemThreads;
      const srcLow = low[srcRow] ?? words;
      if (srcLow === words) continue;
      const src = srcRow * words;
      const dst = t * words;
      const rankBase = t * stride;
      let rowLow = low[t] ?? words;
      for (let w = srcLow + wordShift; w < words; w++) {
        const s = src + w - wordShift;
        let v = (reach[s] ?? 0) << bitShift;
        if (bitShift !== 0 && w - wordShift > srcLow) v |= (reach[s - 1] ?? 0) >>> (32 - bitShift);
        if (w === words - 1) v &= lastMask;
        const old = reach[dst + w] ?? 0;
        let added = (v & ~old) >>> 0;
        if (added === 0) continue;
        reach[dst + w] = (old | added) >>> 0;
        if (w < rowLow) rowLow = w;
        while (added !== 0) {
          const lowest = added & -added;
          ranks[rankBase + (w << 5) + 31 - Math.clz32(lowest)] = rank;
          added = (added ^ lowest) >>> 0;
        }
      }
      low[t] = rowLow;
    }
  }
  return { cores, maxBatch, ranks, values: items.values };
}

/** opt₌[t][b] in ms, or undefined where no plan fills ⟨t, b⟩ exactly (never Infinity). */
export function exactFillLatency(table: ExactFillTable, threads: number, batch: number): number | undefined {
  if (threads < 1 || threads > table.cores || batch < 1 || batch > table.maxBatch) return undefined;
  const rank = table.ranks[threads * (table.maxBatch + 1) + batch] ?? -1;
  return rank < 0 ? undefined : table.values[rank];
}

/**
 * The optimum's rank for ⟨cores, batch⟩: opt₌[cores][batch] with exactCores, else min over t ≤ cores of opt₌[t][batch].
 * −1 when infeasible.
 */
export function optimumRank(table: ExactFillTable, cores: number, batch: number, exactCores: boolean): number {
  const stride = table.maxBatch + 1;
  if (exactCores) return table.ranks[cores * stride + batch] ?? -1;
  let best = -1;
  for (let t = 1; t <= cores; t++) {
    const rank = table.ranks[t * stride + batch] ?? -1;
    if (rank >= 0 && (best < 0 || rank < best)) best = rank;
  }
  return best;
}
