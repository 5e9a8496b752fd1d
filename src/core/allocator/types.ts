/**
 * One ⟨i, t, b⟩ triple of a plan: `count` instances, each with `threads` physical cores (= ORT intra-op threads)
 * and sub-batch `batch`. Structurally the optimizer's plan item; declared here so the allocator depends on no one.
 */
export interface AllocationPlanItem {
  count: number;
  threads: number;
  batch: number;
}

/** sequential: fill socket 0, then socket 1, … ; interleave: place instances on sockets round-robin (the default). */
export type AllocationOrder = "sequential" | "interleave";

/** exclude: one logical CPU per physical core (its lowest sibling); pair: every SMT sibling of each core. */
export type SmtPolicy = "exclude" | "pair";

/** How far one instance may stretch when it cannot fit otherwise. */
export type SpanningPolicy = "never" | "numa-nodes" | "sockets";

export interface AllocatorOptions {
  order?: AllocationOrder;
  smt?: SmtPolicy;
  spanning?: SpanningPolicy;
  budget?: {
    /** The logical CPUs reserved for this model; a core is in the budget when any of its CPUs is. Omitted: all. */
    cpus?: readonly number[];
    /** At most this many physical cores in use. Omitted: every core in the budget. */
    cores?: number;
  };
}

export interface InstanceAllocation {
  /** Position in the plan expanded item by item (item 0's instances first). */
  instance: number;
  /** Index of the plan item it came from. */
  item: number;
  threads: number;
  batch: number;
  /** Every logical CPU the instance may run on, ascending. */
  cpus: number[];
  /** Per physical core (one per ORT thread), its CPUs: thread j is pinned to coreCpus[j]. */
  coreCpus: number[][];
  sockets: number[];
  nodes: number[];
  spans: "none" | "numa-nodes" | "sockets";
}

export interface Allocation {
  instances: InstanceAllocation[];
  /** Physical cores the budget offers (after the `cores` cap) and how many the plan uses. */
  coresInBudget: number;
  coresUsed: number;
  /** Budget CPUs no instance holds, ascending (including SMT siblings left out by smt = "exclude"). */
  idleCpus: number[];
}
