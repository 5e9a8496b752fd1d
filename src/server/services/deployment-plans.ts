// Turning ⟨i, t, b⟩ into a serving plan with per-instance CPU lists, with the core allocator on the agent's
// registered topology restricted to the deployment's core budget. Pure apart from its inputs.
import { allocate } from "@/core/allocator/allocate";
import { formatCpuList } from "@/core/topology/cpulist";
import { listCores, restrictTopology } from "@/core/topology/topology-queries";
import type { HostTopology } from "@/core/topology/types";
import type { ServingPlan } from "@/contracts/serving-plan";
import { invalidInput } from "@/server/errors/domain-errors";

export interface PlanRequest {
  items: Array<{ count: number; threads: number; batch: number }>;
  batchSize?: number;
  batchTimeoutMs: number;
  dimensions?: Record<string, number>;
}

/** Physical cores in a budget of logical CPUs on this topology. */
export function budgetCores(topology: HostTopology, budget: readonly number[]): number {
  return listCores(restrictTopology(topology, budget)).length;
}

export function allocatePlan(topology: HostTopology, budget: readonly number[], request: PlanRequest): ServingPlan {
  const scoped = restrictTopology(topology, budget);
  const allocation = allocate(scoped, request.items, { spanning: "sockets" });
  const instances = request.items.map((item, index) => ({
    ...item,
    cpus: allocation.instances.filter((a) => a.item === index).map((a) => formatCpuList(a.cpus)),
  }));
  return {
    instances,
    ...(request.batchSize !== undefined ? { batchSize: request.batchSize } : {}),
    batchTimeoutMs: request.batchTimeoutMs,
    ...(request.dimensions && Object.keys(request.dimensions).length ? { dimensions: request.dimensions } : {}),
    warmupIterations: 3,
  };
}

/** Generation 1 of every deployment: one instance on every core of the budget, b = 1 (the runtimes' default). */
export function defaultPlan(
  topology: HostTopology,
  budget: readonly number[],
  dimensions?: Record<string, number>,
): ServingPlan {
  const cores = budgetCores(topology, budget);
  if (cores === 0) throw invalidInput("the core budget holds none of the agent's usable CPUs", { field: "cpus" });
  return allocatePlan(topology, budget, {
    items: [{ count: 1, threads: cores, batch: 1 }],
    batchSize: 1,
    batchTimeoutMs: 0,
    dimensions,
  });
}

export const DEFAULT_PLAN_LABEL = "default (unprofiled)";
