/**
 * Where to measure: a profile taken on cores that serve traffic (or that another deployment uses) measures that
 * traffic too. When the agent has enough whole physical cores outside every deployment's budget, on the socket
 * that holds the profiled deployment's budget (the same caches and memory as where it will serve), those are
 * offered; otherwise the measurement runs on the deployment's own (serving) cores, and says so.
 * A core is free only when none of its SMT siblings is in a budget: a sibling's load is interference too.
 */
import { listCores } from "../topology/topology-queries";
import type { HostTopology } from "../topology/types";

export interface CpuSelectionInput {
  topology: HostTopology;
  /** CPUs the agent may use. */
  allowedCpus: readonly number[];
  /** The profiled deployment's budget. */
  budgetCpus: readonly number[];
  /** Every live deployment's budget on that agent (the profiled one's included or not). */
  deploymentBudgets: ReadonlyArray<readonly number[]>;
  /** Physical cores the measurement needs (the grid's largest thread count). */
  coresNeeded: number;
}

export type CpuSelection =
  | { kind: "free"; cpus: number[]; socket: number; freeCores: number }
  | { kind: "serving"; cpus: number[]; socket: number | null; freeCores: number; reason: string };

export function selectProfilingCpus(input: CpuSelectionInput): CpuSelection {
  const allowed = new Set(input.allowedCpus);
  const taken = new Set([...input.budgetCpus, ...input.deploymentBudgets.flat()]);
  const cores = listCores(input.topology);
  // The budget's socket: the one holding most of its cores.
  const budget = new Set(input.budgetCpus);
  const perSocket = new Map<number, number>();
  for (const core of cores)
    if (core.cpus.some((c) => budget.has(c))) perSocket.set(core.socket, (perSocket.get(core.socket) ?? 0) + 1);
  const socket = [...perSocket.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? null;
  const free = cores.filter(
    (core) => core.socket === socket && core.cpus.every((c) => allowed.has(c) && !taken.has(c)),
  );
  const serving = [...input.budgetCpus].sort((a, b) => a - b);
  if (socket === null)
    return {
      kind: "serving",
      cpus: serving,
      socket,
      freeCores: 0,
      reason: "the budget's CPUs are not in the agent's topology",
    };
  if (free.length >= input.coresNeeded) {
    return {
      kind: "free",
      cpus: free
        .slice(0, input.coresNeeded)
        .flatMap((c) => c.cpus)
        .sort((a, b) => a - b),
      socket,
      freeCores: free.length,
    };
  }
  return {
    kind: "serving",
    cpus: serving,
    socket,
    freeCores: free.length,
    reason: `${free.length} physical core${free.length === 1 ? "" : "s"} outside every deployment's budget on socket ${socket}, ${input.coresNeeded} needed: it measures on the serving cores`,
  };
}
