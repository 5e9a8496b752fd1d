/**
 * Capacity planning (F-14, F-15, F-69; Napkin Math 13.3 and §13.10.2): from a peak rate, a service time and a p99
 * subbudget to a replica count with headroom and N+k, and the load check that tells a fleet it is overrun.
 */
import { PlanningInputError, requireNonNegative, requirePositive, requirePositiveInteger } from "./errors";
import { ceilTolerant, replicasForPeak, safeUtilization, type ReplicaPlan, type SafeUtilization } from "./queueing";

const MS_PER_S = 1000;

/** The caveat the chapter attaches to a plan sized on the saturated batched rate (§13.10.2). */
export const BATCHED_PLAN_CAVEAT =
  "Sized on the saturated batched rate B/T(B): this matches throughput, not p99 latency; a load test must confirm the tail.";
/** Table 19's caption: every queueing estimate is a planning estimate. */
export const PLANNING_ESTIMATE_CAVEAT =
  "Planning estimate under Poisson arrivals and the stated service model; a load test must confirm it.";

export interface CapacityPlanInput {
  peakArrivalRatePerS: number;
  /** Mean batch-1 service time S (the GPU holds each request for all of it in the M/M/1 plan). */
  serviceTimeMs: number;
  /** p99 budget for queue wait + service (or end-to-end, with outsideWorkerUpperBoundMs). */
  p99BudgetMs: number;
  outsideWorkerUpperBoundMs?: number;
  p99Multiplier?: number;
  /**
   * What one replica serves. Defaults to 1/S (one request at a time, the chapter's M/M/1 plan); a batched plan
   * passes the saturated batched rate B/T(B) and gets the batched caveat.
   */
  perReplicaRatePerS?: number;
  headroomFraction: number;
  redundancyK?: number;
}

export type CapacityPlan =
  | {
      feasible: true;
      safeUtilization: Extract<SafeUtilization, { feasible: true }>;
      perReplicaRatePerS: number;
      batched: boolean;
      replicas: ReplicaPlan;
      caveats: string[];
    }
  | { feasible: false; safeUtilization: Extract<SafeUtilization, { feasible: false }>; caveats: string[] };

export function capacityPlan(input: CapacityPlanInput): CapacityPlan {
  const safe = safeUtilization({
    serviceTimeMs: input.serviceTimeMs,
    p99BudgetMs: input.p99BudgetMs,
    ...(input.outsideWorkerUpperBoundMs !== undefined
      ? { outsideWorkerUpperBoundMs: input.outsideWorkerUpperBoundMs }
      : {}),
    ...(input.p99Multiplier !== undefined ? { p99Multiplier: input.p99Multiplier } : {}),
  });
  if (!safe.feasible) return { feasible: false, safeUtilization: safe, caveats: [PLANNING_ESTIMATE_CAVEAT] };
  const batchedRate = input.perReplicaRatePerS;
  const batched = batchedRate !== undefined;
  const perReplicaRatePerS = batched
    ? requirePositive("perReplicaRatePerS", batchedRate)
    : MS_PER_S / input.serviceTimeMs;
  const replicas = replicasForPeak({
    peakArrivalRatePerS: input.peakArrivalRatePerS,
    perReplicaRatePerS,
    maxUtilization: safe.maxUtilization,
    headroomFraction: input.headroomFraction,
    ...(input.redundancyK !== undefined ? { redundancyK: input.redundancyK } : {}),
  });
  const caveats = batched ? [PLANNING_ESTIMATE_CAVEAT, BATCHED_PLAN_CAVEAT] : [PLANNING_ESTIMATE_CAVEAT];
  return { feasible: true, safeUtilization: safe, perReplicaRatePerS, batched, replicas, caveats };
}

export interface RatedReplicas {
  baseReplicas: number;
  provisionedReplicas: number;
}

/**
 * Replicas when each replica's rate is already its SLO-qualified capacity (self-check 13.10 Q2): base = ⌈λ/R⌉,
 * provisioned = ⌈base × multiplier⌉ for failures, bursts, uneven load and slow scale-out (1.6–2.0× illustrated).
 */
export function replicasAtRatedCapacity(input: {
  peakArrivalRatePerS: number;
  ratedPerReplicaPerS: number;
  headroomMultiplier: number;
}): RatedReplicas {
  const lambda = requirePositive("peakArrivalRatePerS", input.peakArrivalRatePerS);
  const rated = requirePositive("ratedPerReplicaPerS", input.ratedPerReplicaPerS);
  const multiplier = requirePositive("headroomMultiplier", input.headroomMultiplier);
  if (multiplier < 1)
    throw new PlanningInputError("out_of_range", "headroomMultiplier", `must be ≥ 1, got ${multiplier}`);
  const baseReplicas = ceilTolerant(lambda / rated);
  return { baseReplicas, provisionedReplicas: ceilTolerant(baseReplicas * multiplier) };
}

export type FleetLoad =
  | { stable: true; utilization: number; capacityPerS: number; spareRatePerS: number }
  | {
      stable: false;
      utilization: number;
      capacityPerS: number;
      /** Arrivals per second that join a backlog no server drains (Example 13.3). */
      backlogGrowthPerS: number;
      /** How fast the wait of a newly arriving request grows, ms of wait per second of surge. */
      waitGrowthMsPerS: number;
    };

/** Is the fleet stable at this rate? λ ≥ μ·replicas has no finite latency: the queue grows for as long as it lasts. */
export function fleetLoad(input: { arrivalRatePerS: number; perReplicaRatePerS: number; replicas: number }): FleetLoad {
  const lambda = requireNonNegative("arrivalRatePerS", input.arrivalRatePerS);
  const mu = requirePositive("perReplicaRatePerS", input.perReplicaRatePerS);
  const n = requirePositiveInteger("replicas", input.replicas);
  const capacityPerS = mu * n;
  const utilization = lambda / capacityPerS;
  if (utilization < 1) return { stable: true, utilization, capacityPerS, spareRatePerS: capacityPerS - lambda };
  const backlogGrowthPerS = lambda - capacityPerS;
  return {
    stable: false,
    utilization,
    capacityPerS,
    backlogGrowthPerS,
    waitGrowthMsPerS: (MS_PER_S * backlogGrowthPerS) / capacityPerS,
  };
}
