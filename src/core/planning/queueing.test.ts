import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "./errors";
import {
  CHAPTER_P99_MULTIPLIER,
  LN_100,
  ceilTolerant,
  dutyCycle,
  erlangB,
  erlangC,
  fixedCostShare,
  littleArrivalRatePerS,
  littleConcurrency,
  littleTimeInSystemMs,
  md1,
  mm1,
  mm1LatencyMultiple,
  mm1SojournPercentileMs,
  mm1TailLatencyMs,
  mmc,
  mmcSojournPercentileMs,
  mmcSojournSurvival,
  mmcWaitPercentileMs,
  mmcWaitSurvival,
  pipelinedDutyCycle,
  queueingUtilization,
  replicasForPeak,
  safeUtilization,
  utilizationLatencyCurve,
} from "./queueing";
import { roundLikeDisplay, roundToSignificant } from "./significant-figures";

// Fixture R (digest §0.3): T(1) = 3.49528 + 0.0328947 = 3.5281747 ms reproduces the chapter's displays.
const S_R = 3.49528 + 0.0328947;
/** The arrival rate that loads a server with service time s to utilization ρ: λ = ρ / S. */
const rateFor = (rho: number, serviceTimeMs: number) => (rho * 1000) / serviceTimeMs;

function expectPlanningError(fn: () => unknown, parameter: string, code?: string): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PlanningInputError);
    expect((error as PlanningInputError).parameter).toBe(parameter);
    if (code) expect((error as PlanningInputError).code).toBe(code);
    return;
  }
  throw new Error(`expected a PlanningInputError naming ${parameter}`);
}

describe("Little's law (F-11, TV-020)", () => {
  it("Napkin Math 13.2: λ = 1,000 QPS, W = 0.05 s → N = 1,000 × 0.05 = 50 in flight", () => {
    expect(littleConcurrency({ arrivalRatePerS: 1000, meanTimeInSystemMs: 50 })).toBeCloseTo(50, 12);
  });
  it("Napkin Math 13.2: W = 0.01 s and N = 50 → λ = 50 / 0.01 = 5,000 req/s", () => {
    expect(littleArrivalRatePerS({ concurrency: 50, meanTimeInSystemMs: 10 })).toBeCloseTo(5000, 9);
  });
  it("Napkin Math 13.2: N ≤ 10 at W = 0.01 s caps λ at 10 / 0.01 = 1,000 req/s", () => {
    expect(littleArrivalRatePerS({ concurrency: 10, meanTimeInSystemMs: 10 })).toBeCloseTo(1000, 9);
  });
  it("Checkpoint 13.2: 2,000 req/s × 10 ms = 20 in flight", () => {
    expect(littleConcurrency({ arrivalRatePerS: 2000, meanTimeInSystemMs: 10 })).toBeCloseTo(20, 12);
  });
  it("Self-check 13.4 Q1: λ = 500, W = 0.04 s → N = 20 (not 12.5, 200 or 2,000)", () => {
    const n = littleConcurrency({ arrivalRatePerS: 500, meanTimeInSystemMs: 40 });
    expect(n).toBeCloseTo(20, 12);
    expect(littleTimeInSystemMs({ concurrency: n, arrivalRatePerS: 500 })).toBeCloseTo(40, 9);
  });
  it("round-trips: N(λ, W) then W(N, λ) and λ(N, W) give the inputs back", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1e5, noNaN: true }),
        fc.double({ min: 0.01, max: 1e4, noNaN: true }),
        (lambda, w) => {
          const n = littleConcurrency({ arrivalRatePerS: lambda, meanTimeInSystemMs: w });
          expect(littleTimeInSystemMs({ concurrency: n, arrivalRatePerS: lambda })).toBeCloseTo(w, 6);
          expect(littleArrivalRatePerS({ concurrency: n, meanTimeInSystemMs: w }) / lambda).toBeCloseTo(1, 10);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("three distinct utilizations (Appendix D.11)", () => {
  it('TV-018: serial path, accelerator busy 3.5 of 8.6 ms → duty cycle 40.7% ("41 percent")', () => {
    expect(roundLikeDisplay(100 * dutyCycle({ busyMs: 3.5, wallClockMs: 8.6 }), "41")).toBe(41);
    expect(dutyCycle({ busyMs: 3.5, wallClockMs: 8.6 })).toBeCloseTo(0.40698, 5);
  });
  it('TV-018: pipelined with one preprocessing worker → 3.5 / max(4.5, 3.5) = 77.8% ("78 percent")', () => {
    expect(roundLikeDisplay(100 * pipelinedDutyCycle({ modelStageMs: 3.5, hostStageMs: 4.5 }), "78")).toBe(78);
  });
  it("TV-018: two preprocessing workers → host stage 2.25 ms < 3.5 ms, the cap is gone: duty cycle 100%", () => {
    expect(pipelinedDutyCycle({ modelStageMs: 3.5, hostStageMs: 4.5, hostWorkers: 2 })).toBe(1);
  });
  it("fixed-cost share F / T(B): fixture R at B = 32 is 3.49528 / (3.49528 + 32 × 0.0328947) = 3.49528 / 4.54791 = 0.7685", () => {
    expect(fixedCostShare({ fixedMs: 3.49528, batchServiceTimeMs: 3.49528 + 32 * 0.0328947 })).toBeCloseTo(0.76855, 4);
  });
  it("queueing utilization ρ = λ·S / c: TV-078's CPU at 5 of 20 QPS is 25%, the GPU at 5 of 200 is 2.5%", () => {
    expect(queueingUtilization({ arrivalRatePerS: 5, serviceTimeMs: 1000 / 20 })).toBeCloseTo(0.25, 12);
    expect(queueingUtilization({ arrivalRatePerS: 5, serviceTimeMs: 1000 / 200 })).toBeCloseTo(0.025, 12);
    // 4 servers share the load: 5,000/s × 0.5 ms / 4 = 0.625.
    expect(queueingUtilization({ arrivalRatePerS: 5000, serviceTimeMs: 0.5, servers: 4 })).toBeCloseTo(0.625, 12);
  });
  it("the three differ on the same worker: they are not interchangeable", () => {
    const rho = queueingUtilization({ arrivalRatePerS: 100, serviceTimeMs: 3.5 }); // 0.35
    const duty = dutyCycle({ busyMs: 3.5, wallClockMs: 8.6 }); // 0.407
    const fixed = fixedCostShare({ fixedMs: 2.61, batchServiceTimeMs: 3.5 }); // 0.746
    expect(new Set([rho, duty, fixed]).size).toBe(3);
  });
  it("rejects a busy time beyond wall clock × resources", () => {
    expectPlanningError(() => dutyCycle({ busyMs: 9, wallClockMs: 4, resourceCount: 2 }), "busyMs", "inconsistent");
    expect(dutyCycle({ busyMs: 8, wallClockMs: 4, resourceCount: 2 })).toBe(1);
  });
});

describe("M/M/1 (F-12, F-13)", () => {
  // Table 7: ρ → 1/(1 − ρ) and, with S = 3.5282 ms (fixture R), the displayed ms; with S = 3.5 ms exactly, the last column.
  const table7: Array<[rho: number, multiple: string, fixtureRMs: string, exact35Ms: number]> = [
    [0.5, "2", "7.1", 7.0],
    [0.7, "3.333", "11.8", 11.667],
    [0.8, "5", "17.6", 17.5],
    [0.9, "10", "35.3", 35.0],
    [0.95, "20", "70.6", 70.0],
  ];
  for (const [rho, multiple, fixtureRMs, exact35Ms] of table7) {
    it(`Table 7, ρ = ${rho}: latency multiple ${multiple}×, W = ${fixtureRMs} ms at S = 3.5282 ms, ${exact35Ms} ms at S = 3.5 ms`, () => {
      expect(roundLikeDisplay(mm1LatencyMultiple(rho), multiple)).toBe(Number(multiple));
      const atR = mm1({ arrivalRatePerS: rateFor(rho, S_R), serviceTimeMs: S_R });
      expect(atR.utilization).toBeCloseTo(rho, 12);
      expect(roundLikeDisplay(atR.meanSojournMs, fixtureRMs)).toBe(Number(fixtureRMs));
      const at35 = mm1({ arrivalRatePerS: rateFor(rho, 3.5), serviceTimeMs: 3.5 });
      expect(at35.meanSojournMs).toBeCloseTo(exact35Ms, 2);
    });
  }
  it("Table 7: moving from 80% to 90% utilization doubles latency (10 / 5 = 2)", () => {
    expect(mm1LatencyMultiple(0.9) / mm1LatencyMultiple(0.8)).toBeCloseTo(2, 12);
  });
  it("Self-check 13.4 Q5: S = 10 ms → W = 20 ms at ρ = 0.5 and 100 ms at ρ = 0.9: 5× for 1.8× the load", () => {
    const low = mm1({ arrivalRatePerS: 50, serviceTimeMs: 10 });
    const high = mm1({ arrivalRatePerS: 90, serviceTimeMs: 10 });
    expect(low.meanSojournMs).toBeCloseTo(20, 9);
    expect(high.meanSojournMs).toBeCloseTo(100, 9);
    expect(high.meanSojournMs / low.meanSojournMs).toBeCloseTo(5, 9);
  });
  it("Eq. 5 (TV-023): ρ = 0.7 → mean 3.33·S and p99 ≈ 4.6 / 0.3 = 15.3·S; ρ = 0.9 → p99 ≈ 46·S", () => {
    const s = 10;
    const at70 = { arrivalRatePerS: 70, serviceTimeMs: s };
    expect(roundLikeDisplay(mm1(at70).meanSojournMs / s, "3.33")).toBe(3.33);
    expect(roundLikeDisplay(mm1TailLatencyMs(at70, CHAPTER_P99_MULTIPLIER) / s, "15.3")).toBe(15.3);
    expect(mm1TailLatencyMs({ arrivalRatePerS: 90, serviceTimeMs: s }, CHAPTER_P99_MULTIPLIER) / s).toBeCloseTo(46, 9);
  });
  it("Eq. 5: the exact p99 multiple is ln 100 = 4.60517 (the default), and p99 = 4.6 × mean at any ρ", () => {
    expect(roundToSignificant(LN_100, 6)).toBe(4.60517);
    for (const rho of [0.1, 0.5, 0.9]) {
      const input = { arrivalRatePerS: rateFor(rho, S_R), serviceTimeMs: S_R };
      expect(mm1TailLatencyMs(input) / mm1(input).meanSojournMs).toBeCloseTo(4.60517, 5);
      expect(mm1SojournPercentileMs(input, 0.99)).toBeCloseTo(mm1TailLatencyMs(input), 9);
    }
  });
  // TV-S03: t_q / W for an exponential sojourn.
  const multipliers: Array<[q: number, display: string]> = [
    [0.5, "0.6931"],
    [0.9, "2.3026"],
    [0.95, "2.9957"],
    [0.99, "4.6052"],
    [0.999, "6.9078"],
  ];
  for (const [q, display] of multipliers) {
    it(`TV-S03: the p${q * 100} sojourn is ${display} × the mean`, () => {
      const input = { arrivalRatePerS: 200, serviceTimeMs: S_R };
      expect(roundLikeDisplay(mm1SojournPercentileMs(input, q) / mm1(input).meanSojournMs, display)).toBe(
        Number(display),
      );
    });
  }
  it("Pitfall 2 (TV-082): ρ = 0.70, S = 3.5282 ms → mean 11.8 ms, p99 54.1 ms: a 4.6× gap", () => {
    const input = { arrivalRatePerS: rateFor(0.7, S_R), serviceTimeMs: S_R };
    expect(roundLikeDisplay(mm1(input).meanSojournMs, "11.8")).toBe(11.8);
    const p99 = mm1TailLatencyMs(input, CHAPTER_P99_MULTIPLIER);
    expect(roundLikeDisplay(p99, "54.1")).toBe(54.1);
    expect(p99 / mm1(input).meanSojournMs).toBeCloseTo(4.6, 12);
  });
  it("Pitfall 1 (TV-081): ρ 0.70 → 0.90 cuts cost 22.2% but triples the mean; p99 54.1 ms → 162 ms", () => {
    // Fleet size for a fixed load is ∝ 1/ρ: replicas(0.9)/replicas(0.7) = 0.7/0.9, so cost falls by 1 − 0.7/0.9.
    const plan = (rho: number) =>
      replicasForPeak({
        peakArrivalRatePerS: 5000,
        perReplicaRatePerS: 283.43,
        maxUtilization: rho,
        headroomFraction: 0,
      });
    expect(roundLikeDisplay(100 * (1 - plan(0.9).exactReplicas / plan(0.7).exactReplicas), "22.2")).toBe(22.2);
    expect(mm1LatencyMultiple(0.9) / mm1LatencyMultiple(0.7)).toBeCloseTo(3, 12);
    const p99 = (rho: number) =>
      mm1TailLatencyMs({ arrivalRatePerS: rateFor(rho, S_R), serviceTimeMs: S_R }, CHAPTER_P99_MULTIPLIER);
    expect(roundLikeDisplay(p99(0.7), "54.1")).toBe(54.1);
    expect(roundLikeDisplay(p99(0.9), "162")).toBe(162);
  });
  it("Little's law inside the model: N = λ·W and L_q = λ·W_q", () => {
    const r = mm1({ arrivalRatePerS: 800, serviceTimeMs: 1 }); // ρ = 0.8: W = 5 ms, W_q = 4 ms
    expect(r.meanInSystem).toBeCloseTo(0.8 * 5, 12);
    expect(r.meanInQueue).toBeCloseTo(0.8 * 4, 12);
  });
});

describe("M/D/1 (F-16, TV-S01)", () => {
  const rows: Array<[rho: number, display: string]> = [
    [0.5, "1.5"],
    [0.7, "2.1667"],
    [0.8, "3.0"],
    [0.9, "5.5"],
  ];
  for (const [rho, display] of rows) {
    it(`TV-S01: ρ = ${rho} → W/S = 1 + ρ/(2(1 − ρ)) = ${display}`, () => {
      const r = md1({ arrivalRatePerS: rateFor(rho, S_R), serviceTimeMs: S_R });
      expect(roundLikeDisplay(r.latencyMultiple, display)).toBe(Number(display));
    });
  }
  it("TV-S01 / cross-check: M/D/1's mean wait is exactly half of M/M/1's at the same λ and S, so it is smaller", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0.01, max: 1000, noNaN: true }),
        (rho, s) => {
          const input = { arrivalRatePerS: rateFor(rho, s), serviceTimeMs: s };
          const d = md1(input).meanWaitMs;
          const m = mm1(input).meanWaitMs;
          expect(d / m).toBeCloseTo(0.5, 10);
          expect(d).toBeLessThan(m);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("M/M/c with Erlang C (F-17, TV-S02)", () => {
  it("TV-S02: c = 1, λ = 0.8, μ = 1 → C = 0.8 and W_q = 4.0 (M/M/1)", () => {
    const r = mmc({ arrivalRatePerS: 0.8, serviceTimeMs: 1000, servers: 1 });
    expect(r.probabilityOfWaiting).toBeCloseTo(0.8, 12);
    expect(r.meanWaitMs / 1000).toBeCloseTo(4, 10);
  });
  it("TV-S02: c = 2, λ = 1, μ = 1 → C = 1/3, W_q = 1/3, W = 4/3", () => {
    const r = mmc({ arrivalRatePerS: 1, serviceTimeMs: 1000, servers: 2 });
    expect(r.probabilityOfWaiting).toBeCloseTo(1 / 3, 12);
    expect(r.meanWaitMs / 1000).toBeCloseTo(1 / 3, 12);
    expect(r.meanSojournMs / 1000).toBeCloseTo(4 / 3, 12);
  });
  it("TV-S02: the 27-GPU plan pooled as M/M/27 (λ = 5,000, μ = 283.43) → a = 17.64, ρ = 0.6534, C ≈ 0.0261, W_q ≈ 0.0098 ms, wait p99 ≈ 0.36 ms", () => {
    const input = { arrivalRatePerS: 5000, serviceTimeMs: 1000 / 283.43, servers: 27 };
    const r = mmc(input);
    expect(roundLikeDisplay(r.offeredLoadErlangs, "17.64")).toBe(17.64);
    expect(roundLikeDisplay(r.utilization, "0.6534")).toBe(0.6534);
    expect(roundLikeDisplay(r.probabilityOfWaiting, "0.0261")).toBe(0.0261);
    expect(roundLikeDisplay(r.meanWaitMs, "0.0098")).toBe(0.0098);
    expect(roundLikeDisplay(mmcWaitPercentileMs(input, 0.99), "0.36")).toBe(0.36);
    // Far below the per-GPU M/M/1 plan's 50 ms p99 subbudget: pooling absorbs bursts better (§13.4.5).
    expect(mmcSojournPercentileMs(input, 0.99)).toBeLessThan(50);
  });
  it("cross-check: with c = 1 Erlang C equals M/M/1 (C = ρ, same wait, same sojourn percentiles)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.99, noNaN: true }),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        fc.double({ min: 0.01, max: 0.999, noNaN: true }),
        (rho, s, q) => {
          const input = { arrivalRatePerS: rateFor(rho, s), serviceTimeMs: s };
          const c1 = mmc({ ...input, servers: 1 });
          const single = mm1(input);
          expect(c1.probabilityOfWaiting).toBeCloseTo(rho, 10);
          expect(c1.meanWaitMs / single.meanWaitMs).toBeCloseTo(1, 9);
          expect(c1.meanSojournMs / single.meanSojournMs).toBeCloseTo(1, 12);
          // Bisection on the closed-form sojourn tail against M/M/1's closed-form inverse.
          expect(mmcSojournPercentileMs({ ...input, servers: 1 }, q) / mm1SojournPercentileMs(input, q)).toBeCloseTo(
            1,
            9,
          );
        },
      ),
      { numRuns: 150 },
    );
  });
  it("Erlang C by the Erlang-B recursion matches the textbook sum a^c/c!·c/(c − a) / (Σ a^k/k! + …) for small c", () => {
    const direct = (c: number, a: number) => {
      let term = 1; // a^k / k!
      let sum = 0;
      for (let k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
      }
      const top = (term * c) / (c - a);
      return top / (sum + top);
    };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0.001, max: 0.999, noNaN: true }), (c, rho) => {
        const a = rho * c;
        expect(erlangC(c, a)).toBeCloseTo(direct(c, a), 10);
      }),
      { numRuns: 200 },
    );
  });
  it("Erlang-B recursion stays accurate at c = 1000 (a^c/c! overflows doubles there): C(1000, 950) = 0.0682534 (mpmath, 30 digits)", () => {
    expect(erlangC(1000, 950)).toBeCloseTo(0.06825341537714142, 10);
    expect(erlangB(1000, 0)).toBe(0);
    expect(Number.isFinite(erlangC(1000, 999.9))).toBe(true);
  });
  it("wait percentiles invert the closed-form wait CDF; zero when the arrival most likely does not wait", () => {
    const input = { arrivalRatePerS: 2000, serviceTimeMs: 1, servers: 4 }; // a = 2, C(4, 2) = 4/23 = 0.1739
    expect(mmc(input).probabilityOfWaiting).toBeCloseTo(4 / 23, 12);
    expect(mmcWaitPercentileMs(input, 0.5)).toBe(0);
    for (const q of [0.9, 0.95, 0.99, 0.999]) {
      const t = mmcWaitPercentileMs(input, q);
      expect(1 - mmcWaitSurvival(input, t)).toBeCloseTo(q, 12);
    }
  });
  it("sojourn percentiles by bisection hit the tail exactly, including θ = μ where the tail is e^(−t)(1 + t/3)", () => {
    // c = 2, λ = 1, μ = 1: C = 1/3 and θ = cμ − λ = 1 = μ. Roots from mpmath: p50 0.974412, p99 5.665961 (seconds).
    const degenerate = { arrivalRatePerS: 1, serviceTimeMs: 1000, servers: 2 };
    expect(mmcSojournPercentileMs(degenerate, 0.5) / 1000).toBeCloseTo(0.9744116051899, 9);
    expect(mmcSojournPercentileMs(degenerate, 0.99) / 1000).toBeCloseTo(5.665960683793, 9);
    // M/M/27 p99 sojourn 16.2589927 ms (mpmath bisection on the same closed form, 30 digits).
    expect(
      mmcSojournPercentileMs({ arrivalRatePerS: 5000, serviceTimeMs: 1000 / 283.43, servers: 27 }, 0.99),
    ).toBeCloseTo(16.25899265644, 7);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.double({ min: 0.01, max: 0.98, noNaN: true }),
        fc.double({ min: 0.01, max: 0.9999, noNaN: true }),
        (c, rho, q) => {
          const input = { arrivalRatePerS: rateFor(rho * c, 2), serviceTimeMs: 2, servers: c };
          const t = mmcSojournPercentileMs(input, q);
          expect(Number.isFinite(t) && t > 0).toBe(true);
          expect(mmcSojournSurvival(input, t)).toBeCloseTo(1 - q, 10);
          // The sojourn is never below the service time's own percentile: −S·ln(1 − q).
          expect(t).toBeGreaterThanOrEqual(-2 * Math.log1p(-q) * (1 - 1e-9));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("utilization–latency curve (Figure 5)", () => {
  it("samples ρ = 0 … 0.95 with M/M/1 mean S/(1 − ρ), p99 m·S/(1 − ρ) and the M/D/1 mean", () => {
    const curve = utilizationLatencyCurve({ serviceTimeMs: S_R, p99Multiplier: CHAPTER_P99_MULTIPLIER });
    expect(curve).toHaveLength(20);
    expect(curve[0]).toEqual({ utilization: 0, mm1MeanMs: S_R, mm1P99Ms: 4.6 * S_R, md1MeanMs: S_R });
    const at70 = curve[14];
    expect(at70?.utilization).toBeCloseTo(0.7, 12);
    expect(roundLikeDisplay(at70?.mm1MeanMs ?? 0, "11.8")).toBe(11.8);
    expect(roundLikeDisplay(at70?.mm1P99Ms ?? 0, "54.1")).toBe(54.1);
    expect(curve.at(-1)?.utilization).toBeCloseTo(0.95, 12);
    for (let i = 1; i < curve.length; i++) expect(curve[i]!.mm1MeanMs).toBeGreaterThan(curve[i - 1]!.mm1MeanMs);
  });
});

describe("safe utilization and replicas (F-14, F-15; Napkin Math 13.3, TV-024)", () => {
  it('Step 1: ρ_max = 1 − 4.6 × 3.5 / 50 = 0.678 (display "0.68"); fixture R (3.52819 ms) gives 0.675407', () => {
    const chapter = safeUtilization({ serviceTimeMs: 3.5, p99BudgetMs: 50, p99Multiplier: 4.6 });
    expect(chapter.feasible && roundLikeDisplay(chapter.maxUtilization, "0.678")).toBe(0.678);
    expect(chapter.feasible && roundLikeDisplay(chapter.maxUtilization, "0.68")).toBe(0.68);
    const r = safeUtilization({ serviceTimeMs: 3.52819, p99BudgetMs: 50, p99Multiplier: 4.6 });
    expect(r.feasible && roundLikeDisplay(r.maxUtilization, "0.675407")).toBe(0.675407);
  });
  it("Step 0: an end-to-end budget first loses the outside-worker upper bound: 68 − 18 = 50 ms → the same ρ_max", () => {
    const a = safeUtilization({
      serviceTimeMs: 3.5,
      p99BudgetMs: 68,
      outsideWorkerUpperBoundMs: 18,
      p99Multiplier: 4.6,
    });
    expect(a.feasible && a.maxUtilization).toBeCloseTo(1 - (4.6 * 3.5) / 50, 12);
    expect(a.modelBudgetMs).toBe(50);
  });
  it("ρ_max ≤ 0 is infeasible: an idle server's p99 4.6 × 12 = 55.2 ms already misses a 50 ms budget", () => {
    const r = safeUtilization({ serviceTimeMs: 12, p99BudgetMs: 50, p99Multiplier: 4.6 });
    expect(r.feasible).toBe(false);
    expect(r.idleP99Ms).toBeCloseTo(55.2, 12);
  });
  it("the default multiple is ln 100, slightly stricter than 4.6", () => {
    const exact = safeUtilization({ serviceTimeMs: 3.5, p99BudgetMs: 50 });
    expect(exact.feasible && exact.maxUtilization).toBeCloseTo(1 - (Math.log(100) * 3.5) / 50, 12);
  });
  it("Steps 2–5 and N+2, fixture R: 7,402.9 req/s; 26.1 → 27 GPUs; × 1.3 = 35.1 → 36; N+1 leaves 50.40%; N+2 is 29 or 38", () => {
    const safe = safeUtilization({ serviceTimeMs: 3.52819, p99BudgetMs: 50, p99Multiplier: 4.6 });
    if (!safe.feasible) throw new Error("expected feasible");
    const plan = replicasForPeak({
      peakArrivalRatePerS: 5000,
      perReplicaRatePerS: 283.43,
      maxUtilization: safe.maxUtilization,
      headroomFraction: 0.3,
      redundancyK: 1,
    });
    expect(roundLikeDisplay(plan.requiredServiceRatePerS, "7402.9")).toBe(7402.9);
    expect(roundLikeDisplay(plan.exactReplicas, "26.1")).toBe(26.1);
    expect(plan.baseReplicas).toBe(27);
    expect(plan.finalReplicas).toBe(36);
    expect(plan.postFailure.replicasLeft).toBe(35);
    expect(roundLikeDisplay(100 * (plan.postFailure.utilizationAfterFailures ?? 0), "50.40")).toBe(50.4);
    expect(plan.postFailure.withinMaxUtilization).toBe(true);
    const two = replicasForPeak({
      peakArrivalRatePerS: 5000,
      perReplicaRatePerS: 283.43,
      maxUtilization: safe.maxUtilization,
      headroomFraction: 0.3,
      redundancyK: 2,
    });
    expect(two.nPlusKOnBase.replicas).toBe(29);
    expect(two.nPlusKOnFinal.replicas).toBe(38);
    // Base + 2 losing 2 is the base fleet again: ρ = 5,000 / (283.43 × 27) = 0.6534 ≤ ρ_max "under the same threshold".
    expect(two.nPlusKOnBase.utilizationAfterFailures).toBeCloseTo(5000 / (283.43 * 27), 12);
    expect(two.nPlusKOnBase.withinMaxUtilization).toBe(true);
  });
  it("Napkin Math 13.3 with the chapter's rounded inputs: ρ = 0.68 → 7,352.9; ρ = 0.678 and μ = 283 → 26.06 → 27 → 36, N+1 at 50.48%", () => {
    expect(
      roundLikeDisplay(
        replicasForPeak({
          peakArrivalRatePerS: 5000,
          perReplicaRatePerS: 283,
          maxUtilization: 0.68,
          headroomFraction: 0.3,
        }).requiredServiceRatePerS,
        "7352.9",
      ),
    ).toBe(7352.9);
    const plan = replicasForPeak({
      peakArrivalRatePerS: 5000,
      perReplicaRatePerS: 283,
      maxUtilization: 1 - (4.6 * 3.5) / 50,
      headroomFraction: 0.3,
    });
    expect(roundLikeDisplay(plan.requiredServiceRatePerS, "7374.6")).toBe(7374.6);
    expect(plan.baseReplicas).toBe(27);
    expect(plan.finalReplicas).toBe(36);
    expect(roundLikeDisplay(100 * (plan.postFailure.utilizationAfterFailures ?? 0), "50.48")).toBe(50.48);
  });
  it("ceilTolerant forgives binary dust (100 × 1.1 = 110.00000000000001 → 110) but not a real excess", () => {
    expect(100 * 1.1).toBeGreaterThan(110);
    expect(ceilTolerant(100 * 1.1)).toBe(110);
    expect(ceilTolerant(110.001)).toBe(111);
    expect(
      replicasForPeak({
        peakArrivalRatePerS: 1000,
        perReplicaRatePerS: 100,
        maxUtilization: 0.5,
        headroomFraction: 0.3,
      }).finalReplicas,
    ).toBe(26);
  });
  it("a fleet of k replicas or fewer has nobody left after k failures: no utilization, not within ρ_max", () => {
    const plan = replicasForPeak({
      peakArrivalRatePerS: 1,
      perReplicaRatePerS: 1000,
      maxUtilization: 0.5,
      headroomFraction: 0,
    });
    expect(plan.finalReplicas).toBe(1);
    expect(plan.postFailure).toEqual({
      replicas: 1,
      replicasLeft: 0,
      utilizationAfterFailures: null,
      withinMaxUtilization: false,
    });
  });
});

describe("bad input: typed errors naming the parameter, never NaN", () => {
  it("negative rates, zero or NaN service times", () => {
    expectPlanningError(() => mm1({ arrivalRatePerS: -1, serviceTimeMs: 1 }), "arrivalRatePerS", "negative");
    expectPlanningError(() => mm1({ arrivalRatePerS: 1, serviceTimeMs: 0 }), "serviceTimeMs", "not_positive");
    expectPlanningError(() => md1({ arrivalRatePerS: Number.NaN, serviceTimeMs: 1 }), "arrivalRatePerS", "not_finite");
    expectPlanningError(
      () => mmc({ arrivalRatePerS: 1, serviceTimeMs: Number.POSITIVE_INFINITY, servers: 2 }),
      "serviceTimeMs",
      "not_finite",
    );
    expectPlanningError(
      () => littleConcurrency({ arrivalRatePerS: 1, meanTimeInSystemMs: -3 }),
      "meanTimeInSystemMs",
      "negative",
    );
  });
  it("ρ ≥ 1 is unstable: no finite latency", () => {
    expectPlanningError(() => mm1({ arrivalRatePerS: 1000, serviceTimeMs: 1 }), "arrivalRatePerS", "unstable");
    expectPlanningError(() => md1({ arrivalRatePerS: 2000, serviceTimeMs: 1 }), "arrivalRatePerS", "unstable");
    expectPlanningError(
      () => mmc({ arrivalRatePerS: 4000, serviceTimeMs: 1, servers: 4 }),
      "arrivalRatePerS",
      "unstable",
    );
    expectPlanningError(() => erlangC(3, 3), "offeredLoadErlangs", "unstable");
    expectPlanningError(() => mm1LatencyMultiple(1), "utilization", "unstable");
  });
  it("zero or fractional servers", () => {
    expectPlanningError(() => mmc({ arrivalRatePerS: 1, serviceTimeMs: 1, servers: 0 }), "servers", "not_positive");
    expectPlanningError(() => mmc({ arrivalRatePerS: 1, serviceTimeMs: 1, servers: 1.5 }), "servers", "not_integer");
    expectPlanningError(() => erlangB(0, 1), "servers");
  });
  it("a quantile outside (0, 1)", () => {
    const input = { arrivalRatePerS: 1, serviceTimeMs: 1 };
    for (const q of [0, 1, -0.1, 1.5, Number.NaN]) {
      expectPlanningError(() => mm1SojournPercentileMs(input, q), "quantile");
      expectPlanningError(() => mmcSojournPercentileMs({ ...input, servers: 2 }, q), "quantile");
      expectPlanningError(() => mmcWaitPercentileMs({ ...input, servers: 2 }, q), "quantile");
    }
  });
  it("replica planning inputs", () => {
    const ok = { peakArrivalRatePerS: 5000, perReplicaRatePerS: 283, maxUtilization: 0.6, headroomFraction: 0.3 };
    expectPlanningError(() => replicasForPeak({ ...ok, maxUtilization: 1 }), "maxUtilization", "out_of_range");
    expectPlanningError(() => replicasForPeak({ ...ok, headroomFraction: -0.1 }), "headroomFraction", "negative");
    expectPlanningError(() => replicasForPeak({ ...ok, redundancyK: 1.5 }), "redundancyK", "not_integer");
    expectPlanningError(() => safeUtilization({ serviceTimeMs: 1, p99BudgetMs: 0 }), "p99BudgetMs", "not_positive");
  });
  it("no model returns NaN or ±Infinity for any valid input", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e4, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        (rho, s, c) => {
          const input = { arrivalRatePerS: rateFor(rho * c, s), serviceTimeMs: s, servers: c };
          const values = [
            ...Object.values(mmc(input)),
            ...Object.values(mm1({ arrivalRatePerS: rateFor(rho, s), serviceTimeMs: s })),
            ...Object.values(md1({ arrivalRatePerS: rateFor(rho, s), serviceTimeMs: s })),
            mmcWaitPercentileMs(input, 0.99),
            mmcSojournPercentileMs(input, 0.99),
          ];
          for (const v of values) expect(Number.isFinite(v)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
