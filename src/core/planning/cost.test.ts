import { describe, expect, it } from "vitest";
import {
  HOURS_PER_MONTH,
  breakEvenLoad,
  costPerMillionAtRateUsd,
  costReport,
  energyPerInferenceJ,
  energyPerResponseJ,
  llmCostPerMillionTokens,
  monthlyCostUsd,
  planMonthlyCost,
  rightSizedHourlyCost,
} from "./cost";
import { PlanningInputError } from "./errors";
import { roundLikeDisplay, roundToSignificant } from "./significant-figures";

// Fixture R (digest §0.3): T(B) = 3.49528 + 0.0328947·B ms.
const T = (b: number) => 3.49528 + 0.0328947 * b;

describe("cost per inference (F-67)", () => {
  it('Example 13.1 A: $4/h at batch 1, 1/T(1) = 283.43 req/s → 4 / (3600 × 283.43) × 10⁶ = $3.9202 ("$3.92")', () => {
    const cost = costPerMillionAtRateUsd({ hourlyCostUsd: 4, throughputPerS: 1000 / T(1) });
    expect(roundLikeDisplay(cost, "3.9202")).toBe(3.9202);
    expect(roundLikeDisplay(cost, "3.92")).toBe(3.92);
  });
  it('Example 13.1 A with the printed 283 req/s gives $3.9262 → "$3.93": the chapter\'s $3.92 needs the unrounded rate', () => {
    expect(roundLikeDisplay(costPerMillionAtRateUsd({ hourlyCostUsd: 4, throughputPerS: 283 }), "3.93")).toBe(3.93);
  });
  it('Example 13.1 B: batch 8, 8/T(8) = 2,128.5 img/s → $0.5220 (printed 2,129 → $0.5219), both "$0.52"; A/B = 7.5 ± 0.05 (not "8×")', () => {
    const a = costPerMillionAtRateUsd({ hourlyCostUsd: 4, throughputPerS: 1000 / T(1) });
    const b = costPerMillionAtRateUsd({ hourlyCostUsd: 4, throughputPerS: (8 * 1000) / T(8) });
    expect(roundLikeDisplay(b, "0.5220")).toBe(0.522);
    expect(roundLikeDisplay(costPerMillionAtRateUsd({ hourlyCostUsd: 4, throughputPerS: 2129 }), "0.5219")).toBe(
      0.5219,
    );
    expect(roundLikeDisplay(b, "0.52")).toBe(0.52);
    expect(Math.abs(a / b - 7.5)).toBeLessThanOrEqual(0.05);
  });
  const table18: Array<[name: string, hourly: number, rate: number, exact: string, display: string]> = [
    ["c5.xlarge (CPU)", 0.17, 50, "0.9444", "0.94"],
    ["g4dn.xlarge (T4)", 0.53, 400, "0.3681", "0.37"],
    ["one H100", 4, 7040, "0.1578", "0.16"],
  ];
  for (const [name, hourly, rate, exact, display] of table18) {
    it(`Example 13.13, Table 18: ${name} at $${hourly}/h and ${rate} img/s → $${exact} per 1M ("$${display}")`, () => {
      const cost = costPerMillionAtRateUsd({ hourlyCostUsd: hourly, throughputPerS: rate });
      expect(roundLikeDisplay(cost, exact)).toBe(Number(exact));
      expect(roundLikeDisplay(cost, display)).toBe(Number(display));
    });
  }
  it("Self-check 13.10 Q1: at 5 QPS for an hour, CPU $0.20/h → $0.0000111 per query, GPU $2.00/h → $0.000111 (10×)", () => {
    const counts = { withinSlo: 5 * 3600, late: 0, rejected: 0, fallback: 0 };
    const cpu = costReport({ hourlyCostUsd: 0.2, windowS: 3600, counts });
    const gpu = costReport({ hourlyCostUsd: 2, windowS: 3600, counts });
    expect(roundLikeDisplay(cpu.costPerInferenceUsd ?? 0, "0.0000111")).toBe(0.0000111);
    expect(roundLikeDisplay(gpu.costPerInferenceUsd ?? 0, "0.000111")).toBe(0.000111);
    expect((gpu.costPerInferenceUsd ?? 0) / (cpu.costPerInferenceUsd ?? 1)).toBeCloseTo(10, 9);
  });
  it("the denominator is SLO-meeting completions; rejected, late and fallback counts come back beside it (synthetic)", () => {
    // 60 s at $3.60/h costs $0.06. 900 met the SLO (50 of them by the fallback), 40 were late, 60 rejected: 1,000 offered.
    const r = costReport({
      hourlyCostUsd: 3.6,
      windowS: 60,
      counts: { withinSlo: 900, late: 40, rejected: 60, fallback: 50 },
    });
    expect(r.windowCostUsd).toBeCloseTo(0.06, 12);
    expect(r.offered).toBe(1000);
    expect(r.completed).toBe(940);
    expect(r.goodputPerS).toBeCloseTo(15, 12);
    expect(r.costPerInferenceUsd).toBeCloseTo(0.06 / 900, 15);
    expect(r.costPerMillionUsd).toBeCloseTo(66.6667, 3);
    expect([r.rejectionRate, r.lateRate, r.fallbackRate]).toEqual([0.06, 0.04, 0.05]);
    // Counting every completion instead would understate the cost: 0.06 / 940 < 0.06 / 900.
    expect(0.06 / 940).toBeLessThan(r.costPerInferenceUsd ?? 0);
  });
  it("no SLO-meeting completion: no finite cost per inference (null), never Infinity; nothing offered: null rates", () => {
    const r = costReport({
      hourlyCostUsd: 4,
      windowS: 60,
      counts: { withinSlo: 0, late: 10, rejected: 5, fallback: 0 },
    });
    expect(r.costPerInferenceUsd).toBeNull();
    expect(r.costPerMillionUsd).toBeNull();
    const empty = costReport({
      hourlyCostUsd: 4,
      windowS: 60,
      counts: { withinSlo: 0, late: 0, rejected: 0, fallback: 0 },
    });
    expect(empty.rejectionRate).toBeNull();
  });
});

describe("hardware break-even (F-68, Table 18)", () => {
  const t4 = { name: "g4dn.xlarge (T4)", hourlyCostUsd: 0.53, capacityPerS: 400 };
  const h100 = { name: "H100", hourlyCostUsd: 4, capacityPerS: 7040 };
  it('Table 18: the H100 costs 4 / 0.53 = 7.55× a T4 per hour ("7.5×")', () => {
    const r = breakEvenLoad({ large: h100, small: t4 });
    expect(roundLikeDisplay(r.hourlyRatio, "7.55")).toBe(7.55);
    expect(roundLikeDisplay(r.hourlyRatio, "7.5")).toBe(7.5);
  });
  it('Table 18: break-even 4 / (3600 × $0.3681e-6) ≈ 3,019 img/s ("below about 3,000 img/s … T4 costs less")', () => {
    const r = breakEvenLoad({ large: h100, small: t4 });
    expect(roundLikeDisplay(r.continuousPerS, "3019")).toBe(3019);
    expect(r.largeCarriesBreakEven).toBe(true);
  });
  it("Table 18 with whole T4s: 7 carry 2,800 img/s for $3.71/h; 2,801 img/s needs 8 at $4.24/h > $4", () => {
    expect(breakEvenLoad({ large: h100, small: t4 }).wholeSmallInstancesPerS).toBe(2800);
    const seven = rightSizedHourlyCost({ loadPerS: 2800, option: t4 });
    expect(seven.instances).toBe(7);
    expect(seven.hourlyCostUsd).toBeCloseTo(3.71, 12);
    const eight = rightSizedHourlyCost({ loadPerS: 2801, option: t4 });
    expect(eight.instances).toBe(8);
    expect(eight.hourlyCostUsd).toBeCloseTo(4.24, 12);
    expect(eight.hourlyCostUsd).toBeGreaterThan(h100.hourlyCostUsd);
  });
  it("a large option too small to carry the break-even load never wins on one instance", () => {
    expect(
      breakEvenLoad({ large: { name: "slow", hourlyCostUsd: 4, capacityPerS: 1000 }, small: t4 }).largeCarriesBreakEven,
    ).toBe(false);
  });
});

describe("replicas and monthly cost", () => {
  it(`a month is ${HOURS_PER_MONTH} h: Napkin Math 13.3's 36 H100s at $4/h cost 36 × 4 × 730 = $105,120 (27 before headroom: $78,840)`, () => {
    const r = planMonthlyCost({
      peakArrivalRatePerS: 5000,
      serviceTimeMs: 3.52819,
      p99BudgetMs: 50,
      p99Multiplier: 4.6,
      headroomFraction: 0.3,
      hourlyCostUsdPerReplica: 4,
    });
    if (!r.feasible) throw new Error("expected a feasible plan");
    expect(r.replicas).toBe(36);
    expect(r.hourlyCostUsd).toBe(144);
    expect(r.monthlyCostUsd).toBeCloseTo(105_120, 6);
    expect(r.baseMonthlyCostUsd).toBeCloseTo(78_840, 6);
    expect(monthlyCostUsd({ replicas: 3, hourlyCostUsd: 4 })).toBeCloseTo(8760, 9);
  });
  it("an infeasible SLO yields no bill", () => {
    expect(
      planMonthlyCost({
        peakArrivalRatePerS: 5000,
        serviceTimeMs: 20,
        p99BudgetMs: 50,
        headroomFraction: 0.3,
        hourlyCostUsdPerReplica: 4,
      }).feasible,
    ).toBe(false);
  });
});

describe("energy (F-66, Napkin Math 13.5)", () => {
  it("Napkin Math 13.5: 114 × 8 = 912 tok/s on 700 W + 300 W → 1,000 / 912 = 1.0965 J/token; a 500-token reply 548.2 J", () => {
    expect(roundLikeDisplay(energyPerInferenceJ({ powerW: 1000, throughputPerS: 114 * 8 }), "1.0965")).toBe(1.0965);
    expect(
      roundLikeDisplay(energyPerResponseJ({ powerW: 1000, tokensPerS: 912, tokensPerResponse: 500 }), "548.2"),
    ).toBe(548.2);
  });
  it('Napkin Math 13.5: at 10% utilization (91.2 tok/s) the GPU still draws ~300 W plus 300 W host → 6.58 J/token ("6.6", "approximately 6×")', () => {
    const idle = energyPerInferenceJ({ powerW: 600, throughputPerS: 91.2 });
    expect(roundLikeDisplay(idle, "6.58")).toBe(6.58);
    expect(roundLikeDisplay(idle, "6.6")).toBe(6.6);
    expect(roundToSignificant(idle / energyPerInferenceJ({ powerW: 1000, throughputPerS: 912 }), 1)).toBe(6);
  });
});

describe("LLM $ per million tokens (F-71, §13.10.3)", () => {
  it('§13.10.3 Llama 3 8B: $3/h, 10,000 prompt tok/s, 1,000 + 256 tokens → 10 req/s, 45,216,000 tok/h ("45.2 million"), $0.06635/M ("$0.066")', () => {
    const r = llmCostPerMillionTokens({
      hourlyCostUsd: 3,
      promptTokens: 1000,
      outputTokens: 256,
      prefillTokensPerS: 10_000,
      kvResidency: { residentRequests: 469, ttftMs: 41.9, tpotMs: 1.57 },
    });
    expect(r.prefillLimitedRequestsPerS).toBeCloseTo(10, 12);
    expect(r.tokensPerRequest).toBe(1256);
    expect(r.tokensPerHour).toBeCloseTo(45_216_000, 3);
    expect(roundLikeDisplay(r.tokensPerHour / 1e6, "45.2")).toBe(45.2);
    expect(roundLikeDisplay(r.costPerMillionTokensUsd, "0.06635")).toBe(0.06635);
    expect(roundLikeDisplay(r.costPerMillionTokensUsd, "0.066")).toBe(0.066);
    // KV residency (optimistic): 469 / (0.0419 + 256 × 0.00157 s) = 469 / 0.44382 = 1,056.7 req/s ≫ 10: prefill sets the floor.
    expect(roundLikeDisplay(r.kvResidencyRequestsPerS ?? 0, "1056.7")).toBe(1056.7);
    expect(r.limitedBy).toBe("prefill");
    expect(r.limitingRequestsPerS).toBeCloseTo(10, 12);
  });
  it("when residency is the tighter bound it sets the rate", () => {
    const r = llmCostPerMillionTokens({
      hourlyCostUsd: 3,
      promptTokens: 1000,
      outputTokens: 256,
      prefillTokensPerS: 10_000,
      kvResidency: { residentRequests: 4, ttftMs: 41.9, tpotMs: 1.57 },
    });
    expect(r.limitedBy).toBe("kv-residency");
    expect(r.limitingRequestsPerS).toBeCloseTo(4000 / 443.82, 9);
  });
});

describe("bad input names the parameter", () => {
  it("zero throughput, negative prices, inconsistent counts, fractional tokens", () => {
    const check = (fn: () => unknown, parameter: string) => {
      expect(fn).toThrow(PlanningInputError);
      expect(fn).toThrow(new RegExp(`^${parameter.replace(/[.[\]]/g, "\\$&")}:`));
    };
    check(() => costPerMillionAtRateUsd({ hourlyCostUsd: 4, throughputPerS: 0 }), "throughputPerS");
    check(() => costPerMillionAtRateUsd({ hourlyCostUsd: -1, throughputPerS: 10 }), "hourlyCostUsd");
    check(
      () => costReport({ hourlyCostUsd: 1, windowS: 60, counts: { withinSlo: 5, late: 0, rejected: 0, fallback: 6 } }),
      "counts.fallback",
    );
    check(
      () => costReport({ hourlyCostUsd: 1, windowS: 0, counts: { withinSlo: 5, late: 0, rejected: 0, fallback: 0 } }),
      "windowS",
    );
    check(
      () =>
        breakEvenLoad({
          large: { name: "a", hourlyCostUsd: 4, capacityPerS: 1 },
          small: { name: "b", hourlyCostUsd: 0, capacityPerS: 1 },
        }),
      "small.hourlyCostUsd",
    );
    check(
      () => llmCostPerMillionTokens({ hourlyCostUsd: 3, promptTokens: 10.5, outputTokens: 1, prefillTokensPerS: 1 }),
      "promptTokens",
    );
    check(() => energyPerInferenceJ({ powerW: Number.NaN, throughputPerS: 1 }), "powerW");
  });
});
