import { describe, expect, it } from "vitest";
import { dominates } from "@/core/batching/pareto-frontier";
import { roundLikeDisplay } from "@/core/planning/significant-figures";
import { defaultState } from "@/lib/planning/fields";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import { chosenResiduals, paretoXAxis } from "./batching-chart";
import { computeBatching, type BatchingView } from "./batching-data";
import { BATCHING_PRESETS, batchingSpec, type BatchingState } from "./batching-form";

const preset = (id: string): BatchingState => {
  const p = BATCHING_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`no preset ${id}`);
  return p.state;
};

function ok<T>(run: { ok: true; value: T } | { ok: false; message: string } | null, what: string): T {
  if (!run?.ok) throw new Error(`expected ${what}, got ${JSON.stringify(run)}`);
  return run.value;
}

describe("batching page: Table 10 (TV-040), 500 QPS under a 50 ms SLO", () => {
  const view = computeBatching(preset("table10"));
  const v = ok(view.validator, "a validation");

  it("is the page's default view", () => {
    expect(defaultState(batchingSpec)).toEqual(preset("table10"));
  });

  it("30% of 50 ms = 15 ms for the window; T_w = 12 ms → λT_w = 6, expected request-seen batch 7, p99 batch 1 + 12 = 13", () => {
    expect(v.card.maxWindowMs).toBeCloseTo(15, 12);
    expect(v.card.poissonMean).toBeCloseTo(6, 12);
    expect(v.card.expectedSeenBatch).toBeCloseTo(7, 12);
    expect(v.card.p99SeenBatch).toBe(13);
  });

  it("envelope 12 + T(13) = 15.923 ms; capacity 32 / T(32) = 7,036.2/s, derated 0.89 × 7,036.2 = 6,262/s", () => {
    expect(v.card.envelopeMs.toFixed(3)).toBe("15.923");
    expect(roundLikeDisplay(v.card.capacityPerS, "7036.2")).toBe(7036.2);
    expect(Math.round(v.card.deratedCapacityPerS)).toBe(6262);
    expect(v.card.offeredPerS).toBe(500);
  });

  it("the 12 ms / batch-32 configuration passes every screen", () => {
    expect(v.validation.pass).toBe(true);
    expect(v.validation.checks.map((c) => [c.id, c.status])).toEqual([
      ["stability", "pass"],
      ["mean-screen", "pass"],
      ["tail-envelope", "pass"],
      ["window-fraction", "pass"],
      ["memory-cap", "pass"],
      ["zero-window", "pass"],
    ]);
  });

  it("a 20 ms window fails the window share (20 > 15 ms) and the whole candidate with it", () => {
    const w = ok(computeBatching({ ...preset("table10"), cWindow: "20" }).validator, "a validation");
    expect(w.validation.pass).toBe(false);
    expect(w.validation.checks.find((c) => c.id === "window-fraction")?.status).toBe("fail");
  });
});

describe("batching page: the knee (Figure 6, TV-032)", () => {
  const k = ok(computeBatching(preset("table10")).knee, "a knee");

  it("B* = (10 + 3.49528) / 0.0328947 = 410.3; there latency is 2 × 13.495 = 26.99 ms and throughput half of 30,400", () => {
    expect(roundLikeDisplay(k.kneeBatch!, "410.3")).toBe(410.3);
    expect(roundLikeDisplay(k.kneeLatencyMs!, "26.99")).toBe(26.99);
    expect(roundLikeDisplay(k.kneeThroughputPerS!, "15200")).toBe(15200);
  });

  it("batch 1 behind a 10 ms window: 1 / 13.528 ms = 73.9 req/s, against 283.4 back to back", () => {
    const b1 = k.rows[0]!;
    expect(b1.batch).toBe(1);
    expect(roundLikeDisplay(b1.unpipelinedThroughputPerS, "73.9")).toBe(73.9);
    expect(roundLikeDisplay(b1.pipelinedThroughputPerS, "283.4")).toBe(283.4);
  });

  it("41 batch sizes from 1 to 1,024 at four per octave; throughput never falls as the batch grows", () => {
    expect(k.rows).toHaveLength(41);
    expect(k.rows.at(-1)!.batch).toBe(1024);
    for (let i = 1; i < k.rows.length; i++) {
      expect(k.rows[i]!.unpipelinedThroughputPerS).toBeGreaterThan(k.rows[i - 1]!.unpipelinedThroughputPerS);
    }
  });
});

describe("batching page: the Pareto frontier at 500 QPS", () => {
  const p = ok(computeBatching(preset("table10")).pareto, "a frontier");

  it("splits 64 candidates into frontier, dominated and unstable (batch 1 carries only 283/s < 500/s)", () => {
    expect(p.stable.length + p.unstable.length).toBe(64);
    expect(p.unstable.every((c) => c.maxBatch === 1)).toBe(true);
    expect(p.unstable).toHaveLength(8);
    expect(p.frontier.length + p.dominated.length).toBe(p.stable.length);
  });

  it("every dominated point is dominated by a frontier point; no frontier point is", () => {
    for (const d of p.dominated) expect(p.frontier.some((f) => dominates(f, d))).toBe(true);
    for (const f of p.frontier) expect(p.stable.some((s) => dominates(s, f))).toBe(false);
  });

  it("without a limit nothing is highlighted; a 15 ms limit picks the fastest stable candidate whose envelope fits", () => {
    expect(p.best).toBeNull();
    const limited = ok(computeBatching({ ...preset("table10"), limit: "15" }).pareto, "a frontier");
    // Brute force over every stable candidate: the highest throughput with envelope ≤ 15 ms.
    const fitting = limited.stable.filter((c) => c.envelopeMs <= 15);
    const top = Math.max(...fitting.map((c) => c.throughputPerS));
    expect(limited.best).not.toBeNull();
    expect(limited.best!.throughputPerS).toBe(top);
    expect(limited.best!.envelopeMs).toBeLessThanOrEqual(15);
    expect(
      limited.frontier.some((f) => f.windowMs === limited.best!.windowMs && f.maxBatch === limited.best!.maxBatch),
    ).toBe(true);
  });

  it("full batches (the default): the envelope is T_w + T(B_max); the window only costs latency, so the frontier is the smallest window across the stable caps", () => {
    expect(p.batchMode).toBe("full");
    expect(p.frontier.map((f) => [f.windowMs, f.maxBatch])).toEqual([
      [0, 2],
      [0, 4],
      [0, 8],
      [0, 16],
      [0, 32],
      [0, 64],
      [0, 128],
    ]);
    // (0, 128): envelope T(128) = 3.49528 + 128 × 0.0328947 = 7.7058 ms at 16,611/s.
    expect(p.frontier.at(-1)!.envelopeMs.toFixed(3)).toBe("7.706");
    expect(Math.round(p.frontier.at(-1)!.throughputPerS)).toBe(16_611);
  });

  it("TV-039's endpoints: (2 ms, cap 8) → 5.758 ms at 2,128.5/s and (50 ms, cap 128) → 57.706 ms at 16,611/s; (2, 128) dominates (50, 128)", () => {
    const q = ok(
      computeBatching({ ...preset("table10"), windows: "2, 50", batches: "8, 128", rate: "0" }).pareto,
      "a frontier",
    );
    const find = (w: number, b: number) => q.stable.find((c) => c.windowMs === w && c.maxBatch === b)!;
    expect(find(2, 8).envelopeMs.toFixed(3)).toBe("5.758");
    expect(find(2, 8).throughputPerS.toFixed(1)).toBe("2128.5");
    expect(find(50, 128).envelopeMs.toFixed(3)).toBe("57.706");
    expect(find(50, 128).onFrontier).toBe(false);
    expect(q.frontier.map((f) => [f.windowMs, f.maxBatch])).toEqual([
      [2, 8],
      [2, 128],
    ]);
  });

  it("request-seen batches at λ (Eq. 12): a zero window sees batch 1, so (0 ms, cap 128) alone is the frontier", () => {
    const q = ok(computeBatching({ ...preset("table10"), frontierBatch: "seen" }).pareto, "a frontier");
    expect(q.batchMode).toBe("seen");
    // Envelope 0 + T(1) = 3.528 ms; throughput 128 / T(128) = 16,611/s: fastest and shortest at once.
    expect(q.frontier.map((f) => [f.windowMs, f.maxBatch])).toEqual([[0, 128]]);
    expect(q.frontier[0]!.envelopeMs.toFixed(3)).toBe("3.528");
    expect(q.unstable).toHaveLength(8);
  });

  it("a limit no candidate meets highlights nothing", () => {
    expect(ok(computeBatching({ ...preset("table10"), limit: "1" }).pareto, "a frontier").best).toBeNull();
  });

  it("CSV: every candidate with its status and the best flag", () => {
    const csv = computeBatching({ ...preset("table10"), limit: "15" }).paretoCsv;
    expect(csv.rows).toHaveLength(64);
    expect(csv.rows.filter((r) => r[6] === true)).toHaveLength(1);
    expect(new Set(csv.rows.map((r) => r[5]))).toEqual(new Set(["frontier", "dominated", "unstable"]));
  });
});

describe("batching page: the service-time source", () => {
  it("Table 8's displayed T(B) fit one line: F ≈ 3.495 ms, s ≈ 0.0329 ms, residuals within the displays' rounding", () => {
    const s = ok(computeBatching(preset("table8-fit")).service, "a fit");
    expect(s.fit?.chosen).toBe("affine");
    if (s.model.kind !== "affine") throw new Error("expected an affine fit");
    expect(Math.abs(s.model.fixedMs - 3.49528)).toBeLessThan(0.01);
    expect(Math.abs(s.model.perSampleMs - 0.0328947)).toBeLessThan(0.0005);
    for (const r of chosenResiduals(s.fit!).residuals)
      expect(Math.abs(r.residualMs)).toBeLessThanOrEqual(0.005 + 0.005);
    expect(s.fitLine[0]!.batch).toBe(1);
    expect(s.fitLine.at(-1)!.batch).toBe(32);
    expect(computeBatching(preset("table8-fit")).fitCsv.rows).toHaveLength(5);
  });

  it("fixture A as typed: T(32) = 3.50 + 0.033 × 32 = 4.556 ms → 7,023.7/s", () => {
    const v = ok(computeBatching(preset("stated")).validator, "a validation");
    expect(roundLikeDisplay(v.card.capacityPerS, "7023.7")).toBe(7023.7);
  });

  it("a model's profile is used when one is plugged in; without profiles the page says there are none", () => {
    const none = computeBatching({ ...preset("table10"), source: "profile" });
    expect(none.errors.profile).toBe("No model profiles are available yet");
    expect(none.knee).toBeNull();
    const profiles = [
      {
        id: "p1",
        label: "resnet50 on host-a",
        curves: [
          {
            threads: 2,
            points: [
              { batch: 1, latencyMs: 10 },
              { batch: 8, latencyMs: 17 },
            ],
          },
        ],
      },
    ];
    const withProfile = computeBatching(
      { ...preset("table10"), source: "profile", profile: "p1", threads: "2" },
      profiles,
    );
    const s = ok(withProfile.service, "a fit");
    // Two points, one line: s = (17 − 10) / 7 = 1 ms, F = 9 ms.
    expect(s.model).toMatchObject({ kind: "affine" });
    if (s.model.kind === "affine") {
      expect(s.model.perSampleMs).toBeCloseTo(1, 12);
      expect(s.model.fixedMs).toBeCloseTo(9, 12);
    }
    const wrongT = computeBatching({ ...preset("table10"), source: "profile", profile: "p1", threads: "4" }, profiles);
    expect(wrongT.errors.threads).toBe("The profile has no curve for t = 4 (it has t = 2)");
  });
});

describe("batching page: invalid input shows a message, never a NaN", () => {
  const noNaN = (view: BatchingView) => expect(JSON.stringify(view)).not.toMatch(/NaN|Infinity/);

  it("a negative window is refused on its field and blanks the validator only", () => {
    const view = computeBatching({ ...preset("table10"), cWindow: "-5" });
    expect(view.errors.cWindow).toBe("Window T_w must be ≥ 0 ms");
    expect(view.validator).toBeNull();
    expect(view.pareto?.ok).toBe(true);
    noNaN(view);
  });

  it("F = s = 0 is no model: refused on the per-sample field", () => {
    const view = computeBatching({ ...preset("table10"), fixedMs: "0", perSampleMs: "0" });
    expect(view.errors.perSampleMs).toBe("Per-sample part s: F and s cannot both be zero: a batch must take time");
    expect(view.knee).toBeNull();
    noNaN(view);
  });

  it("a bad candidate list names the item", () => {
    const view = computeBatching({ ...preset("table10"), batches: "1, 2, 4.5" });
    expect(view.errors.batches).toBe('Candidate max batches: value 3 ("4.5") must be a whole number');
    expect(view.pareto).toBeNull();
  });

  it("the URL reproduces the view", () => {
    const state = { ...preset("table10"), limit: "15", cWindow: "10" };
    const back = parseUrlState(batchingSpec, new URLSearchParams(serializeUrlState(batchingSpec, state)));
    expect(back).toEqual(state);
    expect(ok(computeBatching(back).pareto, "a frontier").best).not.toBeNull();
  });
});

describe("the frontier's x axis with measured points", () => {
  it("stays linear from 0 while the measurement is near the model", () => {
    // Model up to 20 ms, SLO 50 ms, measured 60 ms ≤ 5 × 50: linear, 0 … 80 (nice ticks over 61.2).
    expect(paretoXAxis([5, 20], [60], 50)).toEqual({ scale: "linear", domain: [0, 80], ticks: [0, 20, 40, 60, 80] });
  });

  it("turns to whole decades on a log axis when a measured p99 is over 5× the model's top", () => {
    // Model 3.5 … 15.9 ms, SLO 50 ms, measured 2,738 ms > 250 ms: decades 1 … 10,000 with 1-2-5 ticks.
    const axis = paretoXAxis([3.5, 15.9], [2738, 4055], 50);
    expect(axis.scale).toBe("log");
    expect(axis.domain).toEqual([1, 10_000]);
    expect(axis.ticks).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000]);
  });
});
