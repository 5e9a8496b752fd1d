import { describe, expect, it } from "vitest";
import {
  BATCHED_PLAN_CAVEAT,
  PLANNING_ESTIMATE_CAVEAT,
  capacityPlan,
  fleetLoad,
  replicasAtRatedCapacity,
} from "./capacity";
import { PlanningInputError } from "./errors";
import { roundLikeDisplay } from "./significant-figures";

// Napkin Math 13.3's inputs with fixture R's service time (digest TV-024): S = 3.52819 ms, so 1/S = 283.43 req/s.
const napkin = {
  peakArrivalRatePerS: 5000,
  serviceTimeMs: 3.52819,
  p99BudgetMs: 50,
  p99Multiplier: 4.6,
  headroomFraction: 0.3,
};

describe("capacity plan (Napkin Math 13.3, §13.10.2)", () => {
  it("Napkin Math 13.3 end to end: ρ_max 0.675, 7,402.9 req/s, 27 GPUs, 36 with 30% headroom, N+1 at 50.40%: 36 H100s", () => {
    const plan = capacityPlan(napkin);
    if (!plan.feasible) throw new Error("expected a feasible plan");
    expect(roundLikeDisplay(plan.safeUtilization.maxUtilization, "0.675407")).toBe(0.675407);
    expect(roundLikeDisplay(plan.perReplicaRatePerS, "283.43")).toBe(283.43);
    expect(roundLikeDisplay(plan.replicas.requiredServiceRatePerS, "7402.9")).toBe(7402.9);
    expect(plan.replicas.baseReplicas).toBe(27);
    expect(plan.replicas.finalReplicas).toBe(36);
    expect(roundLikeDisplay(100 * (plan.replicas.postFailure.utilizationAfterFailures ?? 0), "50.40")).toBe(50.4);
    expect(plan.replicas.postFailure.withinMaxUtilization).toBe(true);
    expect(plan.batched).toBe(false);
    expect(plan.caveats).toEqual([PLANNING_ESTIMATE_CAVEAT]);
  });
  it("Napkin Math 13.3 N+2: 29 GPUs at the same threshold (base + 2), about 38 keeping the headroom (final + 2)", () => {
    const plan = capacityPlan({ ...napkin, redundancyK: 2 });
    if (!plan.feasible) throw new Error("expected a feasible plan");
    expect(plan.replicas.nPlusKOnBase.replicas).toBe(29);
    expect(plan.replicas.nPlusKOnFinal.replicas).toBe(38);
  });
  it("Napkin Math 13.3 Step 0: an end-to-end 68 ms p99 with an 18 ms outside-worker upper bound plans the same 36", () => {
    const plan = capacityPlan({ ...napkin, p99BudgetMs: 68, outsideWorkerUpperBoundMs: 18 });
    expect(plan.feasible && plan.replicas.finalReplicas).toBe(36);
  });
  it("§13.10.2 batched plan (TV-076): 5,000 / (0.675 × 7,040) = 1.05 → 2 H100s, ⌈2 × 1.3⌉ = 3, flagged: equal p99 not established", () => {
    const plan = capacityPlan({ ...napkin, perReplicaRatePerS: 7040 });
    if (!plan.feasible) throw new Error("expected a feasible plan");
    expect(roundLikeDisplay(plan.replicas.exactReplicas, "1.05")).toBe(1.05);
    expect(plan.replicas.baseReplicas).toBe(2);
    expect(plan.replicas.finalReplicas).toBe(3);
    expect(plan.batched).toBe(true);
    expect(plan.caveats).toContain(BATCHED_PLAN_CAVEAT);
  });
  it("an SLO an idle server cannot meet plans nothing: S = 12 ms, 4.6 × 12 = 55.2 ms > 50 ms", () => {
    const plan = capacityPlan({ ...napkin, serviceTimeMs: 12 });
    expect(plan.feasible).toBe(false);
  });
  it("Self-check 13.10 Q2 (TV-079): 1,000 QPS at 100 QPS per replica → 10 base; 1.6–2.0× headroom → 16–20", () => {
    expect(
      replicasAtRatedCapacity({ peakArrivalRatePerS: 1000, ratedPerReplicaPerS: 100, headroomMultiplier: 1 }),
    ).toEqual({ baseReplicas: 10, provisionedReplicas: 10 });
    expect(
      replicasAtRatedCapacity({ peakArrivalRatePerS: 1000, ratedPerReplicaPerS: 100, headroomMultiplier: 1.6 })
        .provisionedReplicas,
    ).toBe(16);
    expect(
      replicasAtRatedCapacity({ peakArrivalRatePerS: 1000, ratedPerReplicaPerS: 100, headroomMultiplier: 2 })
        .provisionedReplicas,
    ).toBe(20);
  });
});

describe("fleet load (Example 13.3, TV-025)", () => {
  it("Example 13.3 (Black Friday): a fleet planned for 1,000 QPS gets 10,000 → ρ ≥ 1, unstable, the wait grows every second", () => {
    // Planned like Napkin 13.3 for 1,000 QPS: 1,000 / 0.6754 / 283.43 = 5.22 → 6 → ⌈7.8⌉ = 8 replicas.
    const plan = capacityPlan({ ...napkin, peakArrivalRatePerS: 1000 });
    if (!plan.feasible) throw new Error("expected a feasible plan");
    expect(plan.replicas.finalReplicas).toBe(8);
    const normal = fleetLoad({ arrivalRatePerS: 1000, perReplicaRatePerS: plan.perReplicaRatePerS, replicas: 8 });
    expect(normal.stable).toBe(true);
    const surge = fleetLoad({ arrivalRatePerS: 10_000, perReplicaRatePerS: plan.perReplicaRatePerS, replicas: 8 });
    expect(surge.stable).toBe(false);
    if (surge.stable) return;
    // Capacity 8 × 283.431 = 2,267.45/s; 7,732.55 arrivals/s pile up; each second of surge adds 7,732.55 / 2,267.45 s = 3.41 s of wait,
    // so the scenario's "10 s" latency arrives within about 3 s.
    expect(roundLikeDisplay(surge.utilization, "4.41")).toBe(4.41);
    expect(roundLikeDisplay(surge.backlogGrowthPerS, "7733")).toBe(7733);
    expect(roundLikeDisplay(surge.waitGrowthMsPerS, "3410")).toBe(3410);
    for (const v of Object.values(surge)) if (typeof v === "number") expect(Number.isFinite(v)).toBe(true);
  });
  it("exactly at capacity is already unstable (λ = μ·n has no finite wait)", () => {
    expect(fleetLoad({ arrivalRatePerS: 1000, perReplicaRatePerS: 250, replicas: 4 }).stable).toBe(false);
  });
});

describe("bad input", () => {
  it("names the parameter", () => {
    const check = (fn: () => unknown, parameter: string) => {
      expect(fn).toThrow(PlanningInputError);
      expect(fn).toThrow(new RegExp(`^${parameter.replace(/[.[\]]/g, "\\$&")}:`));
    };
    check(() => capacityPlan({ ...napkin, peakArrivalRatePerS: -5 }), "peakArrivalRatePerS");
    check(() => capacityPlan({ ...napkin, perReplicaRatePerS: 0 }), "perReplicaRatePerS");
    check(() => capacityPlan({ ...napkin, serviceTimeMs: Number.NaN }), "serviceTimeMs");
    check(() => fleetLoad({ arrivalRatePerS: 1, perReplicaRatePerS: 1, replicas: 0 }), "replicas");
    check(
      () => replicasAtRatedCapacity({ peakArrivalRatePerS: 1, ratedPerReplicaPerS: 1, headroomMultiplier: 0.5 }),
      "headroomMultiplier",
    );
  });
});
