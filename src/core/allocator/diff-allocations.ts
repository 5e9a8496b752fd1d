/** What diff needs of an instance: an allocation's instances, or the same fields read back from desired state. */
export interface PlacedInstance {
  threads: number;
  batch: number;
  cpus: readonly number[];
}

export interface AllocationDiff {
  /** Same threads on the same CPUs: the process keeps running; only its sub-batch may change. */
  stay: Array<{ from: number; to: number; cpus: number[]; batchBefore: number; batchAfter: number }>;
  /** New instances. `sharesWith` lists the stopping instances holding some of its CPUs: while both run, those CPUs
   *  are oversubscribed (active-passive overlap), so the planner must sequence them. */
  start: Array<{ to: number; threads: number; cpus: number[]; sharesWith: Array<{ from: number; cpus: number[] }> }>;
  stop: Array<{ from: number; threads: number; cpus: number[] }>;
  /** Union of the CPUs starting instances share with stopping ones, ascending. */
  sharedCpus: number[];
  /** Nothing starts or stops (sub-batches may still change). */
  unchanged: boolean;
}

const keyOf = (i: PlacedInstance) => `${i.threads}|${[...i.cpus].sort((a, b) => a - b).join(",")}`;

/** Compares two placements (indexes are positions in `before` and `after`), for the reconfiguration planner. */
export function diffAllocations(before: readonly PlacedInstance[], after: readonly PlacedInstance[]): AllocationDiff {
  const unmatched = new Map<string, number[]>();
  before.forEach((inst, from) => {
    const key = keyOf(inst);
    unmatched.set(key, [...(unmatched.get(key) ?? []), from]);
  });
  const stay: AllocationDiff["stay"] = [];
  const starting: number[] = [];
  after.forEach((inst, to) => {
    const from = unmatched.get(keyOf(inst))?.shift();
    if (from === undefined) starting.push(to);
    else stay.push({ from, to, cpus: sorted(inst.cpus), batchBefore: before[from]!.batch, batchAfter: inst.batch });
  });
  const stayed = new Set(stay.map((s) => s.from));
  const stop = before.flatMap((inst, from) =>
    stayed.has(from) ? [] : [{ from, threads: inst.threads, cpus: sorted(inst.cpus) }],
  );

  const shared = new Set<number>();
  const start = starting.map((to) => {
    const mine = new Set(after[to]!.cpus);
    const sharesWith = stop.flatMap(({ from, cpus }) => {
      const common = cpus.filter((c) => mine.has(c));
      common.forEach((c) => shared.add(c));
      return common.length > 0 ? [{ from, cpus: common }] : [];
    });
    return { to, threads: after[to]!.threads, cpus: sorted(after[to]!.cpus), sharesWith };
  });
  return { stay, start, stop, sharedCpus: sorted([...shared]), unchanged: start.length === 0 && stop.length === 0 };
}

const sorted = (cpus: readonly number[]) => [...cpus].sort((a, b) => a - b);
