import { describe, expect, it } from "vitest";
import { roundLikeDisplay } from "@/core/planning/significant-figures";
import { defaultState } from "@/lib/planning/fields";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import {
  LATENCY_PRESETS,
  computeLatencyBudget,
  latencyBudgetSpec,
  type LatencyBudgetState,
  type LatencyBudgetView,
} from "./latency-budget-data";

const preset = (id: string): LatencyBudgetState => {
  const p = LATENCY_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`no preset ${id}`);
  return p.state;
};

function budgetOf(view: LatencyBudgetView) {
  if (!view.budget?.ok) throw new Error(`expected a budget, got ${JSON.stringify(view.budget)}`);
  return view.budget.value;
}

const kindShare = (view: LatencyBudgetView, kind: string) =>
  budgetOf(view).p50.byKind.find((k) => k.kind === kind)?.sharePercent ?? Number.NaN;

describe("latency budget page: the ResNet-50 preset (Example 13.2, Table 3)", () => {
  const view = computeLatencyBudget(preset("resnet50"));

  it("is the page's default view", () => {
    expect(defaultState(latencyBudgetSpec)).toEqual(preset("resnet50"));
  });

  it("Table 3 at p50: 4.5 + 0.5 + 3.5 + 0.1 = 8.6 ms; preprocessing 52.3%, the forward pass 40.7%, the copy 5.81%", () => {
    const b = budgetOf(view);
    expect(b.p50.totalMs).toBeCloseTo(8.6, 12);
    expect(roundLikeDisplay(kindShare(view, "preprocess"), "52.3")).toBe(52.3);
    expect(roundLikeDisplay(kindShare(view, "inference"), "40.7")).toBe(40.7);
    expect(roundLikeDisplay(kindShare(view, "transfer"), "5.81")).toBe(5.81);
  });

  it("the queue is modeled: ρ = 140/s × 3.5 ms = 0.49, so the median arrival does not wait (0 ms at p50)", () => {
    const q = budgetOf(view).queueModel!;
    expect(q.utilization).toBeCloseTo(0.49, 12);
    expect(q.p50Ms).toBe(0);
    // M/M/1 wait tail: P(W_q > t) = ρ·e^(−(μ−λ)t) with μ = 1/3.5 per ms, λ = 0.14 per ms.
    // p99: ln(0.49 / 0.01) / (0.285714 − 0.14) = 3.89182 / 0.145714 = 26.709 ms.
    expect(roundLikeDisplay(q.p99Ms, "26.709")).toBe(26.709);
    const queueRow = budgetOf(view).rows.find((r) => r.kind === "queue")!;
    expect(queueRow.source).toBe("model");
  });

  it("p99 path: 8.6 + 26.709 = 35.309 ms, 14.691 ms left of the 50 ms deadline", () => {
    const b = budgetOf(view);
    expect(roundLikeDisplay(b.p99.totalMs, "35.309")).toBe(35.309);
    expect(roundLikeDisplay(b.p99.remainingMs, "14.691")).toBe(14.691);
    expect(b.p99.withinDeadline).toBe(true);
  });

  it("Checkpoint 13.1: the outside-worker p99s (4.5 + 0.5 + 0.1 = 5.1 ms) leave 44.9 ms for queue + inference", () => {
    const b = budgetOf(view);
    expect(b.outsideWorkerUpperBoundMs).toBeCloseTo(5.1, 12);
    expect(b.workerAllowanceMs).toBeCloseTo(44.9, 12);
  });

  it("Systems Perspective 13.2: a 10× faster model gives 8.6 − 3.5 + 0.35 = 5.45 ms, 1.578×, ceiling 8.6 / 5.1 = 1.686×", () => {
    if (!view.amdahl?.ok) throw new Error("expected an Amdahl result");
    expect(view.amdahl.value.afterMs).toBeCloseTo(5.45, 12);
    expect(roundLikeDisplay(view.amdahl.value.speedup, "1.578")).toBe(1.578);
    expect(view.amdahl.value.ceilingSpeedup).toBeCloseTo(8.6 / 5.1, 12);
  });

  it("Fallacy 1 dividend at 140 req/s: W = 3.5 / 0.51 = 6.863 ms → 0.35 / 0.951 = 0.3680 ms, 18.65× for a 10× model", () => {
    if (!view.dividend?.ok) throw new Error("expected a dividend");
    const d = view.dividend.value;
    expect(roundLikeDisplay(d.meanBeforeMs, "6.863")).toBe(6.863);
    expect(roundLikeDisplay(d.meanAfterMs, "0.3680")).toBe(0.368);
    expect(d.modelSpeedup).toBeCloseTo(10, 12);
    expect(roundLikeDisplay(d.systemSpeedup, "18.65")).toBe(18.65);
  });

  it("the chart has a p50 and a p99 bar, stacked by stage; the CSV has a row per stage per percentile", () => {
    expect(view.chart.map((b) => b.percentile)).toEqual(["p50", "p99"]);
    expect(view.chart[0]!.inference).toBe(3.5);
    expect(view.chart[1]!.queue).toBeCloseTo(26.709, 3);
    expect(view.csv.columns).toEqual([
      "percentile",
      "stage",
      "source",
      "duration_ms",
      "share_percent",
      "deadline_ms",
      "remaining_ms",
    ]);
    expect(view.csv.rows).toHaveLength(18);
    expect(view.csv.rows.find((r) => r[0] === "p99" && r[1] === "Queue")?.[2]).toBe("model");
  });
});

describe("latency budget page: the other presets", () => {
  it("Table 4 (DLRM, 10 ms p99): 0.5 + 7.5 + 1 = 9 ms, 1 ms left", () => {
    const b = budgetOf(computeLatencyBudget(preset("dlrm")));
    expect(b.p99.totalMs).toBeCloseTo(9, 12);
    expect(b.p99.remainingMs).toBeCloseTo(1, 12);
  });

  it("Self-check 13.3 Q1: GPU 8 → 4 ms takes 28 ms to 24 ms, 1.1667×, −14.3%", () => {
    const view = computeLatencyBudget(preset("selfcheck"));
    if (!view.amdahl?.ok) throw new Error("expected an Amdahl result");
    expect(view.amdahl.value.beforeMs).toBeCloseTo(28, 12);
    expect(view.amdahl.value.afterMs).toBeCloseTo(24, 12);
    expect(roundLikeDisplay(view.amdahl.value.speedup, "1.1667")).toBe(1.1667);
    expect(roundLikeDisplay(view.amdahl.value.latencyReduction * 100, "14.3")).toBe(14.3);
  });

  it("the dividend is only offered for the queued stage", () => {
    const view = computeLatencyBudget({ ...preset("resnet50"), speedStage: "preprocess", speedup: "2" });
    expect(view.dividend).toMatchObject({ ok: false, notApplicable: true });
    // Preprocess 4.5 → 2.25 ms: 8.6 − 2.25 = 6.35 ms at p50.
    expect(view.amdahl?.ok && view.amdahl.value.afterMs).toBeCloseTo(6.35, 12);
  });
});

describe("latency budget page: invalid input shows a message, never a NaN", () => {
  it("a deadline that is not a number blanks the budget and names the field", () => {
    const view = computeLatencyBudget({ ...preset("resnet50"), deadline: "fifty" });
    expect(view.errors.deadline).toBe("p99 deadline must be a number (in ms)");
    expect(view.budget).toBeNull();
    expect(view.chart).toEqual([]);
    expect(view.csv.rows).toEqual([]);
  });

  it("a p99 below its p50 is refused on the p99 field", () => {
    const view = computeLatencyBudget({ ...preset("resnet50"), inferenceP99: "2" });
    expect(view.errors.inferenceP99).toBe("Inference p99 must be ≥ its p50 (3.5 ms)");
    expect(view.budget).toBeNull();
  });

  it("an arrival rate that overloads the modeled queue (300/s × 3.5 ms = 1.05) is refused on the rate field", () => {
    const view = computeLatencyBudget({ ...preset("resnet50"), rate: "300" });
    expect(view.errors.rate).toMatch(/utilization ρ = 1\.05.* ≥ 1/);
    expect(view.budget?.ok).toBe(false);
    expect(view.dividend?.ok).toBe(false);
  });

  it("entering the queue instead of modeling it takes the typed numbers", () => {
    const view = computeLatencyBudget({ ...preset("resnet50"), queueMode: "entered", queueP50: "1", queueP99: "12" });
    expect(budgetOf(view).p99.totalMs).toBeCloseTo(20.6, 12);
    expect(budgetOf(view).rows.find((r) => r.kind === "queue")?.source).toBe("entered");
  });

  it("a path with no time at all is refused, not divided by zero", () => {
    const zeros = Object.fromEntries(
      Object.entries(preset("resnet50")).map(([k, v]) => [k, /P(50|99)$/.test(k) ? "0" : v]),
    ) as LatencyBudgetState;
    const view = computeLatencyBudget({ ...zeros, queueMode: "entered" });
    expect(view.budget?.ok).toBe(false);
    expect(JSON.stringify(view)).not.toMatch(/NaN|Infinity/);
  });
});

describe("latency budget page: measured stages and the URL", () => {
  it("a deployment's measured stages replace the entered ones the agent times, and only those", () => {
    const view = computeLatencyBudget(preset("resnet50"), {
      id: "d1",
      label: "resnet50 on host-a",
      stages: { inference: { p50Ms: 3, p99Ms: 4 }, network: { p50Ms: 99, p99Ms: 99 }, queue: { p50Ms: 0.2, p99Ms: 2 } },
    });
    const rows = budgetOf(view).rows;
    expect(rows.find((r) => r.kind === "inference")).toMatchObject({ source: "measured", p50Ms: 3, p99Ms: 4 });
    expect(rows.find((r) => r.kind === "queue")).toMatchObject({ source: "measured", p99Ms: 2 });
    // The agent does not see the network: it stays entered.
    expect(rows.find((r) => r.kind === "network")).toMatchObject({ source: "entered", p50Ms: 0 });
  });

  it("the URL reproduces the view", () => {
    const state = { ...preset("dlrm"), deadline: "12" };
    const back = parseUrlState(latencyBudgetSpec, new URLSearchParams(serializeUrlState(latencyBudgetSpec, state)));
    expect(back).toEqual(state);
    expect(budgetOf(computeLatencyBudget(back)).p99.remainingMs).toBeCloseTo(3, 12);
  });
});
