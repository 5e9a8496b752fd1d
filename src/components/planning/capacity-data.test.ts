import { describe, expect, it } from "vitest";
import { BATCHED_PLAN_CAVEAT } from "@/core/planning/capacity";
import { roundLikeDisplay } from "@/core/planning/significant-figures";
import { defaultState } from "@/lib/planning/fields";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import {
  CAPACITY_PRESETS,
  capacitySpec,
  computeCapacity,
  utilizationCurves,
  type CapacityState,
  type CapacityView,
} from "./capacity-data";

const preset = (id: string): CapacityState => {
  const p = CAPACITY_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`no preset ${id}`);
  return p.state;
};

function feasiblePlan(view: CapacityView) {
  if (!view.plan?.ok || !view.plan.value.feasible)
    throw new Error(`expected a feasible plan, got ${JSON.stringify(view.plan)}`);
  return view.plan.value;
}

describe("capacity page: Napkin Math 13.3", () => {
  const view = computeCapacity(preset("napkin"));

  it("is the page's default view", () => {
    expect(defaultState(capacitySpec)).toEqual(preset("napkin"));
  });

  it("Step 1: ρ_max = 1 − 4.6 × 3.52819 / 50 = 0.675407", () => {
    expect(roundLikeDisplay(feasiblePlan(view).safeUtilization.maxUtilization, "0.675407")).toBe(0.675407);
  });

  it("Steps 2–4: 7,402.9 req/s → 7,402.9 / 283.43 = 26.12 → 27 → ⌈27 × 1.3⌉ = 36", () => {
    const r = feasiblePlan(view).replicas;
    expect(roundLikeDisplay(r.requiredServiceRatePerS, "7402.9")).toBe(7402.9);
    expect(roundLikeDisplay(r.exactReplicas, "26.12")).toBe(26.12);
    expect(r.baseReplicas).toBe(27);
    expect(r.finalReplicas).toBe(36);
  });

  it("Step 5: one failure leaves 35: 5,000 / (283.43 × 35) = 50.40% ≤ ρ_max", () => {
    const bars = view.replicaBars;
    expect(bars.map((b) => b.step)).toEqual(["exact need", "base", "+30% headroom", "N+1 on base", "N+1 on final"]);
    expect(bars[2]!.replicas).toBe(36);
    expect(roundLikeDisplay(100 * bars[2]!.utilizationAfterFailures!, "50.40")).toBe(50.4);
    expect(bars[2]!.withinMaxUtilization).toBe(true);
  });

  it("N+2 both readings: 27 + 2 = 29 at the same threshold, 36 + 2 = 38 keeping the headroom", () => {
    const bars = computeCapacity(preset("napkin-n2")).replicaBars;
    expect(bars.find((b) => b.step === "N+2 on base")?.replicas).toBe(29);
    expect(bars.find((b) => b.step === "N+2 on final")?.replicas).toBe(38);
  });

  it("§13.10.2 batched plan: 5,000 / (0.6754 × 7,040) = 1.05 → 2 → 3 replicas, with the caveat", () => {
    const plan = feasiblePlan(computeCapacity(preset("batched")));
    expect(plan.replicas.baseReplicas).toBe(2);
    expect(plan.replicas.finalReplicas).toBe(3);
    expect(plan.caveats).toContain(BATCHED_PLAN_CAVEAT);
  });
});

describe("capacity page: the utilization–latency curves (Figure 5, Table 7)", () => {
  const curves = (() => {
    const c = computeCapacity(preset("napkin")).curves;
    if (!c?.ok) throw new Error("expected curves");
    return c.value;
  })();

  it("run from ρ = 0 to 0.95 in steps of 0.025", () => {
    expect(curves.points).toHaveLength(39);
    expect(curves.points[0]!.utilization).toBe(0);
    expect(curves.points.at(-1)!.utilization).toBeCloseTo(0.95, 12);
  });

  it("Table 7 with S = 3.5282 ms: 7.1 ms at 50%, 35.3 ms at 90%; M/D/1 waits half as long as M/M/1", () => {
    const at = (rho: number) => curves.points.find((p) => Math.abs(p.utilization - rho) < 1e-9)!;
    expect(roundLikeDisplay(at(0.5).mm1MeanMs, "7.1")).toBe(7.1);
    expect(roundLikeDisplay(at(0.9).mm1MeanMs, "35.3")).toBe(35.3);
    // W_q(M/D/1) = ρS / (2(1 − ρ)) = S/2 at ρ = 0.5 → W = 1.5 S.
    expect(at(0.5).md1MeanMs).toBeCloseTo(1.5 * 3.52819, 10);
    // p99 ≈ 4.6 × mean (the chapter's multiple).
    expect(at(0.5).mm1P99Ms).toBeCloseTo(4.6 * at(0.5).mm1MeanMs, 10);
  });

  it("M/M/c with c = 1 is M/M/1; pooling c = 4 servers at the same per-server ρ waits less", () => {
    const one = utilizationCurves({ serviceTimeMs: 3.5, servers: 1, multiplier: 4.6 });
    for (const p of one) expect(p.mmcMeanMs).toBeCloseTo(p.mm1MeanMs, 9);
    for (const p of curves.points.slice(1)) expect(p.mmcMeanMs).toBeLessThan(p.mm1MeanMs);
  });

  it("the budget line sits at 50 ms and the y axis at 2 × 50 = 100 ms; ρ_max is marked", () => {
    expect(curves.modelBudgetMs).toBe(50);
    expect(curves.yMaxMs).toBe(100);
    expect(curves.maxUtilization).toBeCloseTo(0.675407, 6);
  });

  it("CSV: one row per curve point with every model's latency in ms", () => {
    const csv = computeCapacity(preset("napkin")).curvesCsv;
    expect(csv.columns[0]).toBe("utilization");
    expect(csv.rows).toHaveLength(39);
  });
});

describe("capacity page: invalid input and infeasible SLOs", () => {
  it("a negative peak rate is refused on its field and blanks the plan", () => {
    const view = computeCapacity({ ...preset("napkin"), rate: "-5" });
    expect(view.errors.rate).toBe("Peak arrival rate must be > 0 req/s");
    expect(view.plan).toBeNull();
    expect(view.replicaBars).toEqual([]);
    // The curves do not depend on the rate.
    expect(view.curves?.ok).toBe(true);
  });

  it("an SLO an idle server misses (4.6 × 12 ms = 55.2 ms > 50 ms) plans nothing and says why", () => {
    const view = computeCapacity({ ...preset("napkin"), service: "12" });
    expect(view.plan?.ok && view.plan.value.feasible).toBe(false);
    expect(view.plan?.ok && !view.plan.value.feasible && view.plan.value.safeUtilization.reason).toMatch(
      /idle server's p99 \(55\.200 ms\)/,
    );
    expect(view.replicaBars).toEqual([]);
  });

  it("an outside-worker bound at or above the budget is refused on that field", () => {
    const view = computeCapacity({ ...preset("napkin"), outside: "50" });
    expect(view.errors.outside).toMatch(/below the p99 budget/);
    expect(view.plan).toBeNull();
    expect(view.curves).toBeNull();
  });

  it("Napkin Math 13.3 Step 0: 68 ms end to end with an 18 ms outside bound plans the same 36", () => {
    expect(
      feasiblePlan(computeCapacity({ ...preset("napkin"), budget: "68", outside: "18" })).replicas.finalReplicas,
    ).toBe(36);
  });

  it("the URL reproduces the view", () => {
    const state = { ...preset("napkin"), k: "2", servers: "8" };
    const back = parseUrlState(capacitySpec, new URLSearchParams(serializeUrlState(capacitySpec, state)));
    expect(back).toEqual(state);
    expect(computeCapacity(back).replicaBars.find((b) => b.step === "N+2 on final")?.replicas).toBe(38);
  });
});
