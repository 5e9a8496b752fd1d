import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "./errors";
import {
  amdahlOnKinds,
  amdahlWhatIf,
  latencyBudget,
  queueingDividend,
  workerAllowance,
  type LatencyStage,
  type StageKind,
} from "./latency-budget";
import { roundLikeDisplay, roundToSignificant } from "./significant-figures";

const p99 = (deadlineMs: number) => ({ deadlineMs, quantile: 0.99 });

// Example 13.2 / Table 3: the ResNet-50 request, 8.6 ms in all.
const table3: LatencyStage[] = [
  { name: "JPEG decode", kind: "preprocess", durationMs: 3 },
  { name: "Resize 224×224", kind: "preprocess", durationMs: 1 },
  { name: "Normalize", kind: "preprocess", durationMs: 0.5 },
  { name: "CPU→GPU copy", kind: "transfer", durationMs: 0.5 },
  { name: "forward pass", kind: "inference", durationMs: 3.5 },
  { name: "softmax + top-5", kind: "postprocess", durationMs: 0.1 },
];

function kindShare(budget: ReturnType<typeof latencyBudget>, kind: StageKind): number {
  const found = budget.byKind.find((k) => k.kind === kind);
  if (!found) throw new Error(`no ${kind} stage`);
  return found.sharePercent;
}

function expectPlanningError(fn: () => unknown, parameter: string): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PlanningInputError);
    expect((error as PlanningInputError).parameter).toBe(parameter);
    return;
  }
  throw new Error(`expected a PlanningInputError naming ${parameter}`);
}

describe("latency budget (F-02)", () => {
  it("Example 13.2, Table 3: total 3 + 1 + 0.5 + 0.5 + 3.5 + 0.1 = 8.6 ms; exact shares 34.88, 11.63, 5.81, 5.81, 40.70, 1.16%", () => {
    const budget = latencyBudget({ slo: p99(50), stages: table3 });
    expect(budget.totalMs).toBeCloseTo(8.6, 12);
    const exact = ["34.88", "11.63", "5.81", "5.81", "40.70", "1.16"];
    budget.stages.forEach((stage, i) =>
      expect(roundLikeDisplay(stage.sharePercent, exact[i] ?? "")).toBe(Number(exact[i])),
    );
  });
  it("Table 3: each share rounds on its own to 35, 12, 6, 6, 41, 1, which sums to 101, not 100", () => {
    const rounded = latencyBudget({ slo: p99(50), stages: table3 }).stages.map((s) => s.roundedSharePercent);
    expect(rounded).toEqual([35, 12, 6, 6, 41, 1]);
    expect(rounded.reduce((a, b) => a + b, 0)).toBe(101);
  });
  it('Example 13.2: preprocessing is 4.5 / 8.6 = 52.3% ("52 percent"); the accelerator 3.5 / 8.6 = 40.7% ("41 percent")', () => {
    const budget = latencyBudget({ slo: p99(50), stages: table3 });
    expect(roundLikeDisplay(kindShare(budget, "preprocess"), "52.3")).toBe(52.3);
    expect(Math.round(kindShare(budget, "preprocess"))).toBe(52);
    expect(budget.byKind.find((k) => k.kind === "inference")?.roundedSharePercent).toBe(41);
  });
  it('Example 13.2 with a TensorRT pass of 0.33 ms: total 5.43 ms, preprocessing 4.5 / 5.43 = 82.9% ("83 percent")', () => {
    const faster = table3.map((s) => (s.kind === "inference" ? { ...s, durationMs: 0.33 } : s));
    const budget = latencyBudget({ slo: p99(50), stages: faster });
    expect(budget.totalMs).toBeCloseTo(5.43, 12);
    expect(roundLikeDisplay(kindShare(budget, "preprocess"), "82.9")).toBe(82.9);
  });
  it('Lighthouse 13.1, Table 4 (DLRM, 10 ms p99): 0.5 + 6 + 1.5 + 1 = 9 ms, 1 ms left; MLP 16.7% ("~17"), embeddings 66.7%', () => {
    const budget = latencyBudget({
      slo: p99(10),
      stages: [
        { name: "parsing", kind: "deserialize", durationMs: 0.5 },
        { name: "embedding lookup", kind: "inference", durationMs: 6 },
        { name: "MLP", kind: "inference", durationMs: 1.5 },
        { name: "ranking and filtering", kind: "postprocess", durationMs: 1 },
      ],
    });
    expect(budget.totalMs).toBeCloseTo(9, 12);
    expect(budget.remainingMs).toBeCloseTo(1, 12);
    expect(budget.withinDeadline).toBe(true);
    expect(roundLikeDisplay(budget.stages[2]!.sharePercent, "16.7")).toBe(16.7);
    expect(budget.stages[2]!.roundedSharePercent).toBe(17);
    expect(roundLikeDisplay(budget.stages[1]!.sharePercent, "66.7")).toBe(66.7);
  });
  it("a path over its deadline has negative remaining budget and is flagged", () => {
    const budget = latencyBudget({ slo: p99(8), stages: table3 });
    expect(budget.remainingMs).toBeCloseTo(-0.6, 12);
    expect(budget.withinDeadline).toBe(false);
  });
  it("rounded shares are each within 0.5 of the exact share, and exact shares sum to 100 (any stages)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 1000, noNaN: true }), { minLength: 1, maxLength: 9 }),
        (durations) => {
          const budget = latencyBudget({
            slo: p99(1e6),
            stages: durations.map((d, i) => ({ name: `s${i}`, kind: "inference", durationMs: d })),
          });
          expect(budget.stages.reduce((sum, s) => sum + s.sharePercent, 0)).toBeCloseTo(100, 9);
          for (const s of budget.stages)
            expect(Math.abs(s.roundedSharePercent - s.sharePercent)).toBeLessThanOrEqual(0.5);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("worker allowance (Checkpoint 13.1, TV-019)", () => {
  it("Checkpoint 13.1: a 50 ms deadline with an 18 ms upper bound on the other stages leaves 32 ms for queueing + inference", () => {
    expect(workerAllowance({ slo: p99(50), outsideWorkerUpperBoundMs: 18 })).toEqual({
      workerAllowanceMs: 32,
      feasible: true,
    });
  });
  it("an outside bound at or above the deadline leaves nothing: infeasible", () => {
    expect(workerAllowance({ slo: p99(50), outsideWorkerUpperBoundMs: 55 }).feasible).toBe(false);
  });
});

describe("Amdahl what-if (F-03)", () => {
  it('Systems Perspective 13.2: non-model stages are 5.0 / 8.6 = 58.1% ("58 percent")', () => {
    const budget = latencyBudget({ slo: p99(50), stages: table3 });
    expect(roundLikeDisplay(kindShare(budget, "preprocess") + kindShare(budget, "transfer"), "58.1")).toBe(58.1);
  });
  it('Systems Perspective 13.2: a 10× faster model (3.5 → 0.35 ms) → 8.6 − 3.5 + 0.35 = 5.45 ms ("5.5"), 8.6 / 5.45 = 1.578× ("1.6×")', () => {
    const budget = latencyBudget({ slo: p99(50), stages: table3 });
    const r = amdahlOnKinds(budget, ["inference"], 10);
    expect(r.afterMs).toBeCloseTo(5.45, 12);
    expect(roundLikeDisplay(r.afterMs, "5.5")).toBe(5.5);
    expect(roundLikeDisplay(r.speedup, "1.578")).toBe(1.578);
    expect(roundLikeDisplay(r.speedup, "1.6")).toBe(1.6);
    // The ceiling as the model becomes free: 8.6 / 5.1 = 1.686×.
    expect(r.ceilingSpeedup).toBeCloseTo(8.6 / 5.1, 12);
  });
  it('Self-check 13.3 Q1: network 8 + CPU 10 + GPU 8 + post 2 = 28 ms; GPU 8 → 4 ms gives 24 ms, −14.3%, 1.1667× ("about 1.17×")', () => {
    const budget = latencyBudget({
      slo: p99(30),
      stages: [
        { name: "network", kind: "network", durationMs: 8 },
        { name: "decode + normalize", kind: "preprocess", durationMs: 10 },
        { name: "GPU", kind: "inference", durationMs: 8 },
        { name: "postprocessing", kind: "postprocess", durationMs: 2 },
      ],
    });
    expect(budget.totalMs).toBe(28);
    const r = amdahlOnKinds(budget, ["inference"], 2);
    expect(r.afterMs).toBeCloseTo(24, 12);
    expect(roundLikeDisplay(100 * r.latencyReduction, "14.3")).toBe(14.3);
    expect(roundLikeDisplay(r.speedup, "1.17")).toBe(1.17);
    expect(roundLikeDisplay(r.speedup, "1.1667")).toBe(1.1667);
  });
  it("the speedup never exceeds the ceiling, and the ceiling is unbounded (null) only when the stage is the whole path", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 1000, noNaN: true }),
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        (total, fraction, k) => {
          const r = amdahlWhatIf({ totalMs: total, stageMs: total * fraction, speedupFactor: k });
          expect(r.ceilingSpeedup).not.toBeNull();
          expect(r.speedup).toBeLessThanOrEqual((r.ceilingSpeedup ?? 0) * (1 + 1e-12));
        },
      ),
      { numRuns: 100 },
    );
    expect(amdahlWhatIf({ totalMs: 5, stageMs: 5, speedupFactor: 2 }).ceilingSpeedup).toBeNull();
  });
});

describe("queueing dividend under load (F-12, Fallacy 1, TV-080)", () => {
  // ρ = 0.80 at S = 3.5282 ms means λ = 0.8 / 3.5282 ms = 226.7 req/s; the faster model keeps that λ.
  const S = 3.5282;
  const lambda = (0.8 * 1000) / S;
  const r = queueingDividend({ arrivalRatePerS: lambda, serviceTimeMs: S, newServiceTimeMs: 1.8 });
  it('Fallacy 1: before, W_q = S·ρ/(1 − ρ) = 3.5282 × 4 = 14.11 ms ("14.1") and W = 17.64 ms ("17.6")', () => {
    expect(roundLikeDisplay(r.before.meanWaitMs, "14.11")).toBe(14.11);
    expect(roundLikeDisplay(r.before.meanWaitMs, "14.1")).toBe(14.1);
    expect(roundLikeDisplay(r.before.meanSojournMs, "17.6")).toBe(17.6);
  });
  it('Fallacy 1: S′ = 1.8 ms → ρ′ = 0.8 × 1.8 / 3.5282 = 0.408 ("41 percent"), W_q′ = 1.241 ms ("1.2"), W′ = 3.041 ms ("3.0")', () => {
    expect(roundLikeDisplay(r.after.utilization, "0.408")).toBe(0.408);
    expect(Math.round(100 * r.after.utilization)).toBe(41);
    expect(roundLikeDisplay(r.after.meanWaitMs, "1.241")).toBe(1.241);
    expect(roundLikeDisplay(r.after.meanWaitMs, "1.2")).toBe(1.2);
    expect(roundLikeDisplay(r.after.meanSojournMs, "3.0")).toBe(3.0);
  });
  it('Fallacy 1: the queue improves 14.11 / 1.24 = 11.4× (the chapter\'s "12×" is 14.1 / 1.2 from rounded values) and the system 5.8× ("6×") for a ~2× model', () => {
    expect(roundLikeDisplay(r.queueImprovement ?? 0, "11.4")).toBe(11.4);
    expect(roundLikeDisplay(r.systemSpeedup, "5.8")).toBe(5.8);
    expect(roundToSignificant(r.systemSpeedup, 1)).toBe(6);
    expect(roundToSignificant(r.modelSpeedup, 1)).toBe(2);
    // The inference gain itself: 3.5282 − 1.8 = 1.7 ms.
    expect(
      roundLikeDisplay(
        r.before.meanSojournMs - r.before.meanWaitMs - (r.after.meanSojournMs - r.after.meanWaitMs),
        "1.7",
      ),
    ).toBe(1.7);
  });
  it("the system speedup exceeds the model speedup whenever there is load (superlinear gain)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.double({ min: 1.01, max: 100, noNaN: true }),
        (rho, k) => {
          const d = queueingDividend({
            arrivalRatePerS: (rho * 1000) / 10,
            serviceTimeMs: 10,
            newServiceTimeMs: 10 / k,
          });
          expect(d.systemSpeedup).toBeGreaterThan(d.modelSpeedup);
        },
      ),
      { numRuns: 100 },
    );
  });
  it("a slower new model that overloads the server is rejected, naming newServiceTimeMs", () => {
    expectPlanningError(
      () => queueingDividend({ arrivalRatePerS: lambda, serviceTimeMs: S, newServiceTimeMs: 5 }),
      "newServiceTimeMs",
    );
  });
});

describe("bad input", () => {
  it("an SLO without a quantile in (0, 1), a negative stage, an unknown kind, no stages", () => {
    expectPlanningError(() => latencyBudget({ slo: { deadlineMs: 50, quantile: 1 }, stages: table3 }), "slo.quantile");
    expectPlanningError(
      () => latencyBudget({ slo: { deadlineMs: 0, quantile: 0.99 }, stages: table3 }),
      "slo.deadlineMs",
    );
    expectPlanningError(
      () => latencyBudget({ slo: p99(50), stages: [{ name: "x", kind: "inference", durationMs: -1 }] }),
      "stages[0].durationMs",
    );
    expectPlanningError(
      () => latencyBudget({ slo: p99(50), stages: [{ name: "x", kind: "gpu" as StageKind, durationMs: 1 }] }),
      "stages[0].kind",
    );
    expectPlanningError(() => latencyBudget({ slo: p99(50), stages: [] }), "stages");
    expectPlanningError(
      () => latencyBudget({ slo: p99(50), stages: [{ name: "x", kind: "queue", durationMs: 0 }] }),
      "stages",
    );
  });
  it("Amdahl: a factor of 0, NaN totals, a stage longer than the path", () => {
    expectPlanningError(() => amdahlWhatIf({ totalMs: 10, stageMs: 5, speedupFactor: 0 }), "speedupFactor");
    expectPlanningError(() => amdahlWhatIf({ totalMs: Number.NaN, stageMs: 5, speedupFactor: 2 }), "totalMs");
    expectPlanningError(() => amdahlWhatIf({ totalMs: 10, stageMs: 11, speedupFactor: 2 }), "stageMs");
    expectPlanningError(
      () => workerAllowance({ slo: p99(50), outsideWorkerUpperBoundMs: -1 }),
      "outsideWorkerUpperBoundMs",
    );
  });
});
