import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ProfileCellData } from "./profile-grid-data";
import {
  seriesCsvTable,
  latencyVsThreads,
  perSampleLatencyVsBatch,
  scalingVsThreads,
  tailSpread,
  threadsVerdicts,
  throughputVsBatch,
} from "./profile-series-data";

const cell = (threads: number, batch: number, meanMs: number, p99Ms = meanMs): ProfileCellData => ({
  threads,
  batch,
  meanMs,
  p50Ms: meanMs,
  p90Ms: meanMs,
  p99Ms,
  stddevMs: 0,
  iterations: 100,
});

// Packrat's public ResNet-50 profile (reference/packrat-profiles/resnet_torchscript_16core.csv, TorchScript,
// 16 cores), batch 4 and 32 at t ∈ {1, 2, 4, 8, 16}.
const RESNET = [
  cell(1, 4, 220.9375),
  cell(2, 4, 113.0018),
  cell(4, 4, 61.2118),
  cell(8, 4, 37.6316),
  cell(16, 4, 26.3184),
  cell(1, 32, 2266.1614),
  cell(2, 32, 1185.6505),
  cell(4, 32, 621.9344),
  cell(8, 32, 386.3682),
  cell(16, 32, 273.8053),
];
const RESNET_GRID = { threads: [1, 2, 4, 8, 16], batches: [4, 32] };

describe("PK-CH-1 (Packrat Figures 1–2): diminishing returns of threads, ResNet-50", () => {
  const { speedup, efficiency, baselines } = scalingVsThreads(RESNET_GRID, RESNET);
  const row = (t: number) => speedup.rows.find((r) => r.threads === t)!;

  it("batch 4: 2 → 4 threads 1.85× (113.0018 / 61.2118 = 1.846), 8 → 16 only 1.4× (37.6316 / 26.3184 = 1.430)", () => {
    // S(t) = L(1,4) / L(t,4), so S(4) / S(2) = L(2,4) / L(4,4).
    expect(Number((row(4).b4! / row(2).b4!).toFixed(2))).toBe(1.85);
    expect(Number((row(16).b4! / row(8).b4!).toFixed(1))).toBe(1.4);
  });

  it("batch 32: 2 → 4 threads 1.9× (1185.6505 / 621.9344 = 1.906), 8 → 16 1.4× (386.3682 / 273.8053 = 1.411)", () => {
    expect(Number((row(4).b32! / row(2).b32!).toFixed(1))).toBe(1.9);
    expect(Number((row(16).b32! / row(8).b32!).toFixed(1))).toBe(1.4);
  });

  it("speedup is from t = 1: S(16, 4) = 220.9375 / 26.3184 = 8.395; efficiency E = S / t = 8.395 / 16 = 0.5247", () => {
    expect(baselines.get(4)).toBe(1);
    expect(row(1).b4).toBe(1);
    expect(row(16).b4).toBeCloseTo(220.9375 / 26.3184, 12);
    expect(efficiency.rows.find((r) => r.threads === 16)!.b4).toBeCloseTo(220.9375 / 26.3184 / 16, 12);
    expect(efficiency.rows.find((r) => r.threads === 16)!.b4!.toFixed(4)).toBe("0.5247");
  });

  it("threads stop paying: at b = 4 every step keeps E ≥ 50% (E(16) = 52.5%), at b = 32 E(16) = 2266.16 / 273.81 / 16 = 51.7%", () => {
    const verdicts = threadsVerdicts(RESNET_GRID, RESNET);
    const b4 = verdicts.find((v) => v.batch === 4)!;
    expect(b4).toMatchObject({ bestThreads: 16, baselineThreads: 1, efficientUpTo: 16 });
    expect(b4.bestSpeedup).toBeCloseTo(220.9375 / 26.3184, 12);
    // At 60%, b = 4 stops at t = 8: E(8) = 220.9375 / 37.6316 / 8 = 0.7339 ≥ 0.6, E(16) = 0.5247 < 0.6.
    expect(threadsVerdicts(RESNET_GRID, RESNET, 0.6).find((v) => v.batch === 4)!.efficientUpTo).toBe(8);
  });

  it("latency vs threads draws one curve per batch size, rows by t", () => {
    const l = latencyVsThreads(RESNET_GRID, RESNET);
    expect(l.series.map((s) => s.label)).toEqual(["b = 4", "b = 32"]);
    expect(l.rows.map((r) => r.threads)).toEqual([1, 2, 4, 8, 16]);
    expect(l.rows[0]).toEqual({ threads: 1, b4: 220.9375, b32: 2266.1614 });
    expect(l.empty).toBeNull();
  });
});

describe("throughput and per-sample latency vs batch", () => {
  // t = 1: L(1,1) = 2 ms, L(1,4) = 5 ms; t = 2: L(2,1) = 1.5 ms, L(2,4) = 3 ms.
  const cells = [cell(1, 1, 2), cell(1, 4, 5), cell(2, 1, 1.5), cell(2, 4, 3)];
  const grid = { threads: [1, 2], batches: [1, 4] };

  it("throughput = b / L · 1000: t=1 b=4 → 4 / 5 ms · 1000 = 800 samples/s; t=2 b=1 → 1 / 1.5 · 1000 = 666.7", () => {
    const tp = throughputVsBatch(grid, cells);
    expect(tp.series.map((s) => s.key)).toEqual(["t1", "t2"]);
    expect(tp.rows.find((r) => r.batch === 4)!.t1).toBeCloseTo(800, 12);
    expect(tp.rows.find((r) => r.batch === 1)!.t2).toBeCloseTo(1000 / 1.5, 12);
  });

  it("a chart's CSV: x column, then one column per curve, empty where a cell is missing", () => {
    const tp = throughputVsBatch(grid, [cell(1, 1, 2), cell(1, 4, 5), cell(2, 4, 3)]);
    expect(seriesCsvTable(tp, "batch", "samples_per_s")).toEqual({
      columns: ["batch", "t1_samples_per_s", "t2_samples_per_s"],
      // b=1: 1 / 2 ms · 1000 = 500, t=2 not measured; b=4: 800 and 4 / 3 · 1000 = 1,333.3.
      rows: [
        [1, 500, undefined],
        [4, 800, 4000 / 3],
      ],
    });
  });

  it("per-sample latency = L / b: t=2 b=4 → 3 / 4 = 0.75 ms", () => {
    const ps = perSampleLatencyVsBatch(grid, cells);
    expect(ps.rows.find((r) => r.batch === 4)!.t2).toBeCloseTo(0.75, 12);
    expect(ps.rows.find((r) => r.batch === 1)!.t1).toBe(2);
  });

  it("p99 / mean spread: p99 6 ms over a 4 ms mean → 1.5; a zero mean has none (never Infinity)", () => {
    expect(tailSpread({ p99Ms: 6, meanMs: 4 })).toBe(1.5);
    expect(tailSpread({ p99Ms: 6, meanMs: 0 })).toBeNull();
  });
});

describe("partial profiles draw what they have and say what is missing", () => {
  it("one batch size measured: the curves over batch size are empty, with the reason", () => {
    const tp = throughputVsBatch({ threads: [1, 2], batches: [1, 2] }, [cell(1, 1, 2), cell(2, 1, 1.2)]);
    expect(tp.rows).toHaveLength(1);
    expect(tp.empty).toBe("Needs measurements at two or more batch sizes; one is measured yet.");
  });

  it("no cells at all: empty with 'none is measured yet'", () => {
    expect(latencyVsThreads({ threads: [1, 2], batches: [1] }, []).empty).toBe(
      "Needs measurements at two or more thread counts; none is measured yet.",
    );
  });

  it("without a t = 1 cell, speedup is from the smallest measured t: t₀ = 2, S(4) = L(2)/L(4) = 6 / 4 = 1.5, E = 1.5 · 2 / 4 = 0.75", () => {
    const grid = { threads: [1, 2, 4], batches: [8] };
    const s = scalingVsThreads(grid, [cell(2, 8, 6), cell(4, 8, 4)]);
    expect(s.baselines.get(8)).toBe(2);
    expect(s.speedup.rows.find((r) => r.threads === 4)!.b8).toBe(1.5);
    expect(s.efficiency.rows.find((r) => r.threads === 4)!.b8).toBe(0.75);
  });
});

describe("property: speedup and efficiency against brute force", () => {
  it("S(t,b) · L(t,b) = L(1,b) and E = S / t for any complete grid", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.double({ min: 0.01, max: 1e4, noNaN: true }), { minLength: 24, maxLength: 24 }),
        (T, nb, lat) => {
          const threads = Array.from({ length: T }, (_, i) => i + 1);
          const batches = Array.from({ length: nb }, (_, i) => 2 ** i);
          const cells = threads.flatMap((t, i) => batches.map((b, j) => cell(t, b, lat[i * 4 + j]!)));
          const { speedup, efficiency } = scalingVsThreads({ threads, batches }, cells);
          for (const c of cells) {
            const base = cells.find((x) => x.threads === 1 && x.batch === c.batch)!.meanMs;
            const s = speedup.rows.find((r) => r.threads === c.threads)![`b${c.batch}`]!;
            expect(s * c.meanMs).toBeCloseTo(base, 6);
            expect(efficiency.rows.find((r) => r.threads === c.threads)![`b${c.batch}`]).toBeCloseTo(s / c.threads, 12);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
