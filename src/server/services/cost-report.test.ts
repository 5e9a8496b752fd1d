import { describe, expect, it } from "vitest";
import { LatencyHistogram } from "@/core/stats/histogram";
import type { LoadgenReportJson } from "@/contracts/agent-jobs";
import {
  breakEvenBetween,
  costRow,
  measuredCapacity,
  openRunLatencyAtSlo,
  periodUsage,
  totals,
  trendSeries,
  type CostRowInput,
  type StoredLoadTest,
  type UsagePiece,
} from "./cost-report";

/** An open run: `ok` responses at the given latencies (ms), of `intended` requests. */
function openRun(latenciesMs: number[], intended: number, okPerS: number): NonNullable<LoadgenReportJson["open"]> {
  const h = LatencyHistogram.create();
  for (const ms of latenciesMs) h.recordMs(ms);
  const s = h.summary();
  return {
    measured: { intended, sent: intended, ok: latenciesMs.length, dropped: 0 },
    windowMs: 10_000,
    offeredPerS: intended / 10,
    okPerS,
    latency: { ...s, histogram: h.encode() },
    timeline: [],
  } as NonNullable<LoadgenReportJson["open"]>;
}

function test(id: string, run: ReturnType<typeof openRun>, generation = 1, versionId = "v1"): StoredLoadTest {
  return {
    id,
    modelVersionId: versionId,
    generationAtStart: generation,
    generationAtEnd: generation,
    spec: { mode: "open" },
    finishedAt: null,
    report: {
      format: "packrat-loadgen/1",
      startedAt: "",
      finishedAt: "",
      target: "",
      model: "m",
      mode: "open",
      config: {},
      open: run,
    } as LoadgenReportJson,
  };
}

describe("the SLO verdict of an open run", () => {
  it("counts failures as missing the deadline: 99 of 100 ok within it meets p98, not p99.5", () => {
    // 98 at 10 ms, 1 at 200 ms, 1 failed. p98 of 100 intended needs 98 within 50 ms: 98 are → met.
    const run = openRun([...Array(98).fill(10), 200], 100, 9.9);
    expect(openRunLatencyAtSlo(run, { deadlineMs: 50, quantile: 0.98 }).met).toBe(true);
    // p99 needs 99 within: only 98 are (the 200 ms one and the failure miss it).
    expect(openRunLatencyAtSlo(run, { deadlineMs: 50, quantile: 0.99 }).met).toBe(false);
    // p99.5 of 100 intended needs 99.5 of the 99 ok: impossible.
    expect(openRunLatencyAtSlo(run, { deadlineMs: 1000, quantile: 0.995 })).toEqual({ met: false, latencyMs: null });
  });
});

describe("measured capacity", () => {
  const slo = { deadlineMs: 50, quantile: 0.99 };
  const fast = openRun(Array(100).fill(10), 100, 20);
  const faster = openRun(Array(100).fill(12), 100, 40);
  const slow = openRun(Array(100).fill(80), 100, 80);
  it("is the highest rate that met the SLO at the running generation and version", () => {
    const c = measuredCapacity(
      [test("a", fast), test("b", faster), test("c", slow)],
      { generation: 1, modelVersionId: "v1" },
      slo,
    );
    expect(c?.ratePerS).toBe(40);
    expect(c?.loadTestId).toBe("b");
  });
  it("ignores another generation, another version, a run that spanned a reconfiguration, and a model without an SLO", () => {
    const spanned = { ...test("d", faster), generationAtEnd: 2 };
    expect(
      measuredCapacity(
        [test("a", fast, 2), test("b", faster, 1, "v0"), spanned],
        { generation: 1, modelVersionId: "v1" },
        slo,
      ),
    ).toBeNull();
    expect(measuredCapacity([test("a", fast)], { generation: 1, modelVersionId: "v1" }, null)).toBeNull();
  });
});

const base: CostRowInput = {
  deploymentId: "d1",
  modelId: "m1",
  modelName: "resnet",
  modelVersion: 1,
  hostName: "h",
  hardwareClass: "T4",
  generation: 1,
  price: { hourlyUsd: 0.53, demo: false },
  slo: { deadlineMs: 50, quantile: 0.99 },
  capacity: { ratePerS: 400, loadTestId: "lt", latencyAtSloMs: 30, finishedAt: null },
  usage: { windowS: 7200, completed: 1_000_000, rejected: 5000, withinSlo: 990_000 },
  // The whole period at $0.53/h: 2 h × $0.53 = $1.06.
  priced: {
    windowS: 7200,
    completed: 1_000_000,
    rejected: 5000,
    withinSlo: 990_000,
    costUsd: 1.06,
    unpricedMinutes: 0,
    unpricedS: 0,
  },
  measuredPeakPerS: 1000,
  comparison: {
    profileId: "p",
    batchSize: 4,
    cores: 4,
    runningLabel: "packrat",
    runningLatencyMs: 20,
    defaultLatencyMs: 40,
  },
};
const options = { peakPerS: {}, headroomMultiplier: 1.3, redundancyK: 1 };

/** A piece of usage of d1 at `price` $/h (null: no price in effect). */
function piece(p: {
  start: Date;
  deploymentId?: string;
  price: number | null;
  minutes?: number;
  windowS: number;
  completed: number;
  rejected?: number;
  withinSlo: number;
}): UsagePiece {
  return {
    start: p.start,
    deploymentId: p.deploymentId ?? "d1",
    price: p.price === null ? null : { hourlyUsd: p.price, demo: false },
    minutes: p.minutes ?? Math.round(p.windowS / 60),
    windowS: p.windowS,
    completed: p.completed,
    rejected: p.rejected ?? 0,
    withinSlo: p.withinSlo,
  };
}

describe("a cost row", () => {
  it("prices capacity and goodput with planning core I (Table 18's T4: $0.53/h at 400/s → $0.3681 per 1M)", () => {
    const r = costRow(base, options);
    expect(r.capacityCostPerMillionUsd).toBeCloseTo(0.3681, 4);
    // Actual: 2 h × $0.53 = $1.06 over 990,000 within the SLO → $1.0707 per 1M; 495,000 per hour.
    expect(r.actual?.windowCostUsd).toBeCloseTo(1.06, 10);
    expect(r.actual?.costPerMillionUsd).toBeCloseTo(1.06 / 0.99, 10);
    expect(r.goodputPerHour).toBe(495_000);
    expect(r.actual?.late).toBe(10_000);
    expect(r.actual?.rejected).toBe(5000);
  });
  it("sizes the peak: 1000/s on 400/s replicas → 3 base, ⌈3 × 1.3⌉ = 4, +1 = 5; 5 × $0.53 × 730 h = $1,934.50", () => {
    const r = costRow(base, options);
    expect(r.replicas).toEqual({ base: 3, withHeadroom: 4, total: 5, survivesK: true });
    expect(r.monthlyCostUsd).toBeCloseTo(1934.5, 8);
    expect(r.peakSource).toBe("measured");
  });
  it("takes an entered peak over the measured one", () => {
    const r = costRow(base, { ...options, peakPerS: { d1: 100 } });
    expect(r.peakPerS).toBe(100);
    expect(r.peakSource).toBe("entered");
    expect(r.replicas).toEqual({ base: 1, withHeadroom: 2, total: 3, survivesK: true }); // ⌈100/400⌉ = 1, ⌈1 × 1.3⌉ = 2, + k = 3
  });
  it("saves against ⟨1, T, B⟩: 40 ms vs 20 ms for B = 4 → 100/s vs 200/s, $1.472 vs $0.736 per 1M", () => {
    const r = costRow(base, options);
    expect(r.saving?.latencySavingMs).toBe(20);
    expect(r.saving?.latencyRatio).toBe(2);
    expect(r.saving?.defaultCostPerMillionUsd).toBeCloseTo(1.472222, 6); // 0.53 / (3600 × 100) × 10⁶
    expect(r.saving?.runningCostPerMillionUsd).toBeCloseTo(0.736111, 6);
    expect(r.saving?.costSavingPerMillionUsd).toBeCloseTo(0.736111, 6);
  });
  it("leaves every priced figure empty without a price, and capacity figures empty without a load test", () => {
    const none = {
      windowS: 0,
      completed: 0,
      rejected: 0,
      withinSlo: 0,
      costUsd: 0,
      unpricedMinutes: 120,
      unpricedS: 7200,
    };
    const r = costRow({ ...base, price: null, priced: none, capacity: null }, options);
    expect(r.actual).toBeNull();
    expect(r.capacityCostPerMillionUsd).toBeNull();
    expect(r.replicas).toBeNull();
    expect(r.monthlyCostUsd).toBeNull();
    expect(r.goodputPerHour).toBe(495_000); // still measured
  });
});

describe("totals and the trend", () => {
  it("sums cost and goodput per model across agents", () => {
    const a = costRow(base, options);
    const usage = { windowS: 3600, completed: 10_000, rejected: 0, withinSlo: 10_000 };
    const b = costRow(
      {
        ...base,
        deploymentId: "d2",
        hostName: "h2",
        usage,
        priced: { ...usage, costUsd: 0.53, unpricedMinutes: 0, unpricedS: 0 },
      },
      options,
    );
    const t = totals([a, b]);
    expect(t.models).toHaveLength(1);
    expect(t.models[0]!.costUsd).toBeCloseTo(1.06 + 0.53, 10);
    expect(t.models[0]!.goodput).toBe(1_000_000);
    expect(t.all.costPerMillionUsd).toBeCloseTo(1.59, 10);
  });
  it("prices each bucket: $1/h for an hour with 500 SLO-meeting → $2000 per 1M; unpriced pieces left out", () => {
    const start = new Date("2026-12-01T10:00:00Z");
    const s = trendSeries([
      piece({ start, price: 1, windowS: 3600, completed: 600, withinSlo: 500 }),
      piece({ start, deploymentId: "unpriced", price: null, windowS: 3600, completed: 600, withinSlo: 600 }),
    ]);
    expect(s).toEqual([{ t: start.getTime(), costPerMillionUsd: 2000, goodput: 500 }]);
  });
  it("prices each piece of a bucket at its own price: a change from $1/h to $3/h half-way through a day", () => {
    const day = new Date("2026-12-01T00:00:00Z");
    // 12 h at $1/h = $12 with 6,000 within the SLO, then 12 h at $3/h = $36 with 6,000: $48 for 12,000 → $4,000 per 1M.
    // At today's $3/h the whole day would have been $72 → $6,000 per 1M: the old trend's error.
    const s = trendSeries([
      piece({ start: day, price: 1, windowS: 12 * 3600, completed: 6000, withinSlo: 6000 }),
      piece({ start: day, price: 3, windowS: 12 * 3600, completed: 6000, withinSlo: 6000 }),
    ]);
    expect(s).toHaveLength(1);
    expect(s[0]!.costPerMillionUsd).toBeCloseTo(4000, 9);
  });
  it("a period across a price change: the priced part at its own prices, the minutes before the first price counted apart", () => {
    const start = new Date("2026-12-01T00:00:00Z");
    const { usage, priced } = periodUsage([
      // 30 minutes before the class had any price: 1,800 s, 900 within the SLO — counted, not priced.
      piece({ start, price: null, minutes: 30, windowS: 1800, completed: 1000, withinSlo: 900 }),
      // 60 minutes at $0.60/h = $0.60, then 60 minutes at $1.20/h = $1.20: $1.80 over 7,200 s.
      piece({ start, price: 0.6, minutes: 60, windowS: 3600, completed: 2000, rejected: 10, withinSlo: 1900 }),
      piece({ start, price: 1.2, minutes: 60, windowS: 3600, completed: 2000, withinSlo: 2000 }),
    ]);
    expect(usage).toEqual({ windowS: 9000, completed: 5000, rejected: 10, withinSlo: 4800 });
    expect(priced).toMatchObject({
      windowS: 7200,
      completed: 4000,
      rejected: 10,
      withinSlo: 3900,
      unpricedMinutes: 30,
      unpricedS: 1800,
    });
    expect(priced.costUsd).toBeCloseTo(1.8, 12);
    // The row: $1.80 ÷ 3,900 within the SLO × 10⁶ = $461.54 per 1M (a mean of $0.90/h over the 2 priced hours);
    // goodput per hour still over all 9,000 s reported: 4,800 × 3600 / 9000 = 1,920.
    const r = costRow({ ...base, usage, priced }, options);
    expect(r.actual?.windowCostUsd).toBeCloseTo(1.8, 12);
    expect(r.actual?.costPerMillionUsd).toBeCloseTo((1.8 / 3900) * 1e6, 9);
    expect(r.goodputPerHour).toBeCloseTo(1920, 9);
    // Forward-looking figures keep today's price ($0.53/h): 5 replicas × $0.53 × 730 h, as before.
    expect(r.monthlyCostUsd).toBeCloseTo(1934.5, 8);
    expect(totals([r]).all).toMatchObject({ unpricedMinutes: 30, unpricedS: 1800 });
  });
  it("break-even uses F-68 with the dearer class as the large one (TV-075: H100 vs T4 ≈ 3,019/s)", () => {
    const be = breakEvenBetween(
      { hardwareClass: "T4", hourlyUsd: 0.53, capacityPerS: 400, capacitySource: "measured" },
      { hardwareClass: "H100", hourlyUsd: 4, capacityPerS: 7040, capacitySource: "entered" },
    );
    expect(be.large.hardwareClass).toBe("H100");
    expect(be.result.continuousPerS).toBeCloseTo(3018.87, 1);
    expect(be.smallCostPerMillionUsd).toBeCloseTo(0.3681, 4);
  });
});
