import { listCores, restrictTopology } from "../topology/topology-queries";
import type { HostTopology, PhysicalCore } from "../topology/types";
import { AllocatorError } from "./errors";
import { packLocal } from "./pack-local";
import type {
  Allocation,
  AllocationPlanItem,
  AllocationOrder,
  AllocatorOptions,
  InstanceAllocation,
  SmtPolicy,
  SpanningPolicy,
} from "./types";

const ORDERS = ["sequential", "interleave"] as const;
const SMT = ["exclude", "pair"] as const;
const SPANNING = ["never", "numa-nodes", "sockets"] as const;

interface Domain {
  socket: number;
  node: number;
  /** Free cores, front first: every placement takes from the front, so an instance's cores are contiguous. */
  free: PhysicalCore[];
}

/** [domain index, cores taken there] per instance. */
type Placement = Array<Array<[number, number]>>;

/**
 * Packrat §3.4: turns a plan ⟨i, t, b⟩ into disjoint per-instance CPU lists. Each instance gets `threads` physical
 * cores inside one NUMA node (hence one socket) when any placement allows it; it stretches over nodes or sockets only
 * when `spanning` permits and nothing else fits. A physical core goes to at most one instance.
 */
export function allocate(
  topology: HostTopology,
  plan: readonly AllocationPlanItem[],
  options: AllocatorOptions = {},
): Allocation {
  const order = oneOf(options.order ?? "interleave", ORDERS, "order");
  const smt = oneOf(options.smt ?? "exclude", SMT, "smt");
  const spanning = oneOf(options.spanning ?? "never", SPANNING, "spanning");
  checkPlan(plan);

  const scoped = options.budget?.cpus === undefined ? topology : restrictToBudget(topology, options.budget.cpus);
  const capCores = options.budget?.cores;
  if (capCores !== undefined && !(Number.isInteger(capCores) && capCores >= 1)) {
    throw new AllocatorError("invalid-budget", "budget.cores", `must be a positive integer, got ${capCores}`);
  }
  const allCores = listCores(scoped);
  const coresInBudget = Math.min(allCores.length, capCores ?? Infinity);
  const demand = plan.reduce((sum, p) => sum + p.count * p.threads, 0);
  if (demand > coresInBudget) {
    throw new AllocatorError("cannot-fit", "plan", `${describeDemand(plan, demand)}; the budget has ${coresInBudget}`);
  }

  const sizes: number[] = [];
  const itemOf: number[] = [];
  plan.forEach((p, item) => {
    for (let c = 0; c < p.count; c++) {
      sizes.push(p.threads);
      itemOf.push(item);
    }
  });
  const domains: Domain[] = scoped.sockets.flatMap((s) =>
    s.nodes.map((n) => ({ socket: s.id, node: n.id, free: [...n.cores] })),
  );
  const byLargest = sizes.map((_, k) => k).sort((a, b) => sizes[b]! - sizes[a]! || a - b);

  const placement = place(sizes, byLargest, domains, order, spanning);
  if (!placement) throw cannotFitLocally(plan, demand, coresInBudget, domains, spanning, Math.max(...sizes));

  // Take actual cores, node-local instances first (in instance order, so each gets a contiguous run from the front of
  // its node), then stretched ones from what is left. Counts per node were settled above, so any order fits.
  const stretched = byLargest.filter((k) => placement[k]!.length > 1);
  const takeOrder = [...sizes.map((_, k) => k).filter((k) => placement[k]!.length === 1), ...stretched];
  const taken: PhysicalCore[][] = sizes.map(() => []);
  for (const k of takeOrder) {
    for (const [d, count] of placement[k]!) taken[k]!.push(...domains[d]!.free.splice(0, count));
  }

  const instances = taken.map((cores, k) => describeInstance(k, itemOf[k]!, plan[itemOf[k]!]!, cores, smt));
  const used = new Set(instances.flatMap((i) => i.cpus));
  return {
    instances,
    coresInBudget,
    coresUsed: demand,
    idleCpus: allCores
      .flatMap((c) => c.cpus)
      .filter((cpu) => !used.has(cpu))
      .sort((a, b) => a - b),
  };
}

/**
 * Finds where each instance goes, as few stretched as the policy lets us: (1) every instance inside one NUMA node;
 * else, if spanning is allowed, (2) every instance inside one socket, each socket's share packed node-locally where it
 * can be; else, with spanning "sockets", (3) instances may cross sockets.
 */
function place(
  sizes: readonly number[],
  byLargest: readonly number[],
  domains: readonly Domain[],
  order: AllocationOrder,
  spanning: SpanningPolicy,
): Placement | null {
  const free = domains.map((d) => d.free.length);
  const everyDomain = domains.map((_, i) => i);
  const nodeLocal = stretchFewest(sizes, byLargest, everyDomain, free, domains, order, 0, spanning);
  if (nodeLocal || spanning === "never") return nodeLocal;

  const socketIds = [...new Set(domains.map((d) => d.socket))];
  const members = socketIds.map((s) => everyDomain.filter((i) => domains[i]!.socket === s));
  const perSocket = packLocal(
    byLargest.map((k) => sizes[k]!),
    members.map((m, s) => ({ socket: socketIds[s]!, free: m.reduce((n, i) => n + free[i]!, 0) })),
    order,
  );
  if (perSocket) {
    const placement: Placement = sizes.map(() => []);
    members.forEach((m, s) => {
      const mine = byLargest.filter((_, j) => perSocket[j] === s);
      // Inside one socket everything fits once all of them may stretch over its nodes, so this never fails.
      const part = stretchFewest(sizes, mine, m, free, domains, order, mine.length, spanning)!;
      for (const k of mine) placement[k] = part[k]!;
    });
    return placement;
  }
  if (spanning !== "sockets") return null;
  return stretchFewest(sizes, byLargest, everyDomain, free, domains, order, sizes.length, spanning);
}

/**
 * Places `instances` (largest first) on the domains listed in `within`: the k largest stretch (placed first, on the
 * roomiest socket and nodes), the rest go node-local; tries k = 0, 1, … maxStretched and keeps the first success.
 */
function stretchFewest(
  sizes: readonly number[],
  instances: readonly number[],
  within: readonly number[],
  initialFree: readonly number[],
  domains: readonly Domain[],
  order: AllocationOrder,
  maxStretched: number,
  spanning: SpanningPolicy,
): Placement | null {
  for (let k = 0; k <= maxStretched; k++) {
    const free = [...initialFree];
    const placement: Placement = sizes.map(() => []);
    let ok = true;
    for (const i of instances.slice(0, k)) {
      const chunks = placeSpanning(sizes[i]!, free, within, domains, spanning);
      if (!chunks) {
        ok = false;
        break;
      }
      for (const [d, count] of chunks) free[d]! -= count;
      placement[i] = chunks;
    }
    if (!ok) continue;
    const rest = instances.slice(k);
    const packed = packLocal(
      rest.map((i) => sizes[i]!),
      within.map((d) => ({ socket: domains[d]!.socket, free: free[d]! })),
      order,
    );
    if (!packed) continue;
    rest.forEach((i, j) => (placement[i] = [[within[packed[j]!]!, sizes[i]!]]));
    return placement;
  }
  return null;
}

/**
 * Cores for an instance allowed to stretch: the socket with the most free cores (one that holds it whole if any),
 * and inside it the nodes with the most free cores first, so it touches as few nodes as it can.
 */
function placeSpanning(
  need: number,
  free: readonly number[],
  within: readonly number[],
  domains: readonly Domain[],
  spanning: SpanningPolicy,
): Array<[number, number]> | null {
  const sockets = [...new Set(within.map((d) => domains[d]!.socket))].map((socket) => {
    const members = within.filter((d) => domains[d]!.socket === socket);
    return { members, free: members.reduce((sum, i) => sum + free[i]!, 0) };
  });
  sockets.sort((a, b) => b.free - a.free);
  const whole = sockets.find((s) => s.free >= need);
  const chosen = whole ? [whole] : spanning === "sockets" ? sockets : [];
  const chunks: Array<[number, number]> = [];
  let left = need;
  for (const s of chosen) {
    for (const d of [...s.members].sort((a, b) => free[b]! - free[a]!)) {
      const take = Math.min(left, free[d]!);
      if (take > 0) chunks.push([d, take]);
      left -= take;
    }
  }
  return left === 0 ? chunks : null;
}

function describeInstance(
  instance: number,
  item: number,
  p: AllocationPlanItem,
  cores: readonly PhysicalCore[],
  smt: SmtPolicy,
): InstanceAllocation {
  const coreCpus = cores.map((c) => (smt === "pair" ? [...c.cpus] : [c.cpus[0]!]));
  const sockets = [...new Set(cores.map((c) => c.socket))].sort((a, b) => a - b);
  const nodeKeys = new Set(cores.map((c) => `${c.socket}:${c.node}`));
  return {
    instance,
    item,
    threads: p.threads,
    batch: p.batch,
    cpus: coreCpus.flat().sort((a, b) => a - b),
    coreCpus,
    sockets,
    nodes: [...new Set(cores.map((c) => c.node))].sort((a, b) => a - b),
    spans: sockets.length > 1 ? "sockets" : nodeKeys.size > 1 ? "numa-nodes" : "none",
  };
}

function oneOf<T extends string>(value: string, allowed: readonly T[], param: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new AllocatorError("invalid-option", param, `${param} must be one of ${allowed.join(", ")}; got "${value}"`);
  }
  return value as T;
}

function checkPlan(plan: readonly AllocationPlanItem[]): void {
  if (!Array.isArray(plan) || plan.length === 0)
    throw new AllocatorError("invalid-plan", "plan", "plan must list at least one ⟨i, t, b⟩ item");
  plan.forEach((p, i) => {
    for (const key of ["count", "threads", "batch"] as const) {
      const v = p[key];
      if (!(Number.isInteger(v) && v >= 1)) {
        throw new AllocatorError(
          "invalid-plan",
          `plan[${i}].${key}`,
          `plan[${i}].${key} must be a positive integer, got ${v}`,
        );
      }
    }
  });
}

function restrictToBudget(topology: HostTopology, cpus: readonly number[]): HostTopology {
  const known = new Set(listCores(topology).flatMap((c) => c.cpus));
  for (const cpu of cpus) {
    if (!known.has(cpu)) {
      throw new AllocatorError(
        "invalid-budget",
        "budget.cpus",
        `CPU ${cpu} is not in the host topology (offline, or not allowed to this process)`,
      );
    }
  }
  return restrictTopology(topology, cpus);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "4 instances × 5 cores need 20 physical cores" (items joined by " + "). */
export function describeDemand(plan: readonly AllocationPlanItem[], demand: number): string {
  const items = plan.map((p) => `${plural(p.count, "instance")} × ${plural(p.threads, "core")}`).join(" + ");
  const verb = plan.length === 1 && plan[0]!.count === 1 ? "needs" : "need";
  return `${items} ${verb} ${plural(demand, "physical core")}`;
}

function cannotFitLocally(
  plan: readonly AllocationPlanItem[],
  demand: number,
  budget: number,
  domains: readonly Domain[],
  spanning: SpanningPolicy,
  largest: number,
): AllocatorError {
  const unit = spanning === "never" ? "NUMA node" : "socket";
  const groups =
    spanning === "never"
      ? domains.map((d) => d.free.length)
      : [...new Set(domains.map((d) => d.socket))].map((s) =>
          domains.filter((d) => d.socket === s).reduce((n, d) => n + d.free.length, 0),
        );
  const biggest = Math.max(...groups);
  const tooBig =
    largest > biggest ? `; an instance of ${largest} cores is larger than any ${unit} (at most ${biggest})` : "";
  const hint = spanning === "never" ? 'allow spanning ("numa-nodes" or "sockets")' : 'allow spanning "sockets"';
  return new AllocatorError(
    "cannot-fit-locally",
    "spanning",
    `${describeDemand(plan, demand)} and the budget has ${budget}, but no placement keeps every instance inside one ${unit} ` +
      `(free cores per ${unit}: ${groups.join(", ")})${tooBig}; ${hint} or use fewer threads per instance`,
  );
}
