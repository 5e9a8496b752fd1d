import { describe, expect, it } from "vitest";
import {
  batchTicks,
  chartCsv,
  chartRows,
  defaultProfile,
  describeGroups,
  parseBatch,
  parseOptimizerParams,
  parseTimeout,
  plannedCoreMap,
  profileOptions,
  serializeOptimizerState,
  tupleText,
  validateCandidate,
  type ProfileChoice,
  type TableRow,
} from "./optimizer-data";

const profile = (over: Partial<ProfileChoice>): ProfileChoice => ({
  id: "p1",
  version: 1,
  status: "complete",
  perturbed: false,
  perturbedRatePerS: null,
  cores: 8,
  threads: [1, 2, 4, 8],
  batches: [1, 2, 4],
  cellsDone: 12,
  cellsTotal: 12,
  compatible: true,
  differences: [],
  ...over,
});

describe("URL state", () => {
  it("round-trips deployment, profile, B and timeout, so a view can be shared", () => {
    const state = parseOptimizerParams({ deployment: "dep_1", profile: "prof-2", B: "16", timeout: "2.5" });
    expect(state).toEqual({ deployment: "dep_1", profile: "prof-2", batch: "16", timeout: "2.5" });
    expect(serializeOptimizerState(state)).toBe("deployment=dep_1&profile=prof-2&B=16&timeout=2.5");
    expect(parseOptimizerParams(Object.fromEntries(new URLSearchParams(serializeOptimizerState(state))))).toEqual(
      state,
    );
  });

  it("keeps where a pre-fill came from (the batching page's Propose this), and nothing else there", () => {
    const state = parseOptimizerParams({ deployment: "dep_1", B: "32", timeout: "12", from: "batching" });
    expect(state).toEqual({ deployment: "dep_1", profile: null, batch: "32", timeout: "12", from: "batching" });
    expect(serializeOptimizerState(state)).toBe("deployment=dep_1&B=32&timeout=12&from=batching");
    expect(parseOptimizerParams({ from: "elsewhere" })).not.toHaveProperty("from");
  });

  it("drops ids that are not ids and leaves empty fields out of the query", () => {
    const state = parseOptimizerParams({ deployment: "<script>", profile: ["a", "b"], B: undefined });
    expect(state).toEqual({ deployment: null, profile: "a", batch: "", timeout: "" });
    expect(serializeOptimizerState(state)).toBe("profile=a");
  });
});

describe("inputs", () => {
  it("B is a whole number 1…65536; empty takes the default", () => {
    expect(parseBatch("8", 1)).toEqual({ ok: true, value: 8 });
    expect(parseBatch("", 4)).toEqual({ ok: true, value: 4 });
    expect(parseBatch("", null).ok).toBe(false);
    expect(parseBatch("2.5", 1)).toEqual({ ok: false, error: "B must be a whole number of samples" });
    expect(parseBatch("0", 1).ok).toBe(false);
    expect(parseBatch("65537", 1).ok).toBe(false);
  });

  it("the timeout defaults to the running plan's and stays within 0…60000 ms", () => {
    expect(parseTimeout("", 5)).toEqual({ ok: true, value: 5 });
    expect(parseTimeout("0", 5)).toEqual({ ok: true, value: 0 });
    expect(parseTimeout("12.5", 5)).toEqual({ ok: true, value: 12.5 });
    expect(parseTimeout("-1", 5).ok).toBe(false);
    expect(parseTimeout("60001", 5).ok).toBe(false);
  });
});

describe("profile choices", () => {
  it("lists an incompatible profile disabled, naming what differs", () => {
    const [option] = profileOptions([
      profile({ compatible: false, differences: [{ field: "core budget (T)", profile: "4", deployment: "8" }] }),
    ]);
    expect(option).toMatchObject({ disabled: true, note: "core budget (T): profile 4, deployment 8" });
    expect(option!.label).toContain("incompatible");
  });

  it("marks a perturbed profile with a warning that gives the rate it saw", () => {
    const [option] = profileOptions([profile({ perturbed: true, perturbedRatePerS: 12.345 })]);
    expect(option!.disabled).toBe(false);
    expect(option!.label).toContain("perturbed");
    expect(option!.note).toContain("12.3 requests/s");
  });

  it("defaults to the URL's profile, else the newest compatible unperturbed one", () => {
    const list = [profile({ id: "a", compatible: false }), profile({ id: "b", perturbed: true }), profile({ id: "c" })];
    expect(defaultProfile(list, "a")).toBe("a"); // shown (and refused) as asked, not silently swapped
    expect(defaultProfile(list, null)).toBe("c");
    expect(defaultProfile(list.slice(0, 2), null)).toBe("b");
    expect(defaultProfile([list[0]!], "missing")).toBeNull();
  });
});

describe("plan text", () => {
  it("writes ⟨i, t, b⟩ groups both ways", () => {
    const groups = [
      { count: 2, threads: 4, batch: 4 },
      { count: 1, threads: 1, batch: 1 },
    ];
    expect(describeGroups(groups)).toBe("2 × ⟨4 threads, b = 4⟩ + 1 × ⟨1 thread, b = 1⟩");
    expect(tupleText(groups)).toBe("⟨2, 4, 4⟩ + ⟨1, 1, 1⟩");
  });
});

describe("latency vs B chart", () => {
  const rows: TableRow[] = [
    { batch: 1, latencyMs: 5, allThreadsMs: 5, oneThreadMs: 9 },
    { batch: 2, latencyMs: 6, allThreadsMs: null, oneThreadMs: 9 },
    { batch: 3, latencyMs: null, allThreadsMs: null, oneThreadMs: null },
  ];

  it("leaves a series out of a row where it has no value (no NaN, no zero)", () => {
    expect(chartRows(rows)).toEqual([
      { batch: 1, packrat: 5, allThreads: 5, oneThread: 9 },
      { batch: 2, packrat: 6, oneThread: 9 },
      { batch: 3 },
    ]);
  });

  it("exports every row, a missing value as an empty cell", () => {
    const csv = chartCsv(rows);
    expect(csv.columns).toHaveLength(4);
    expect(csv.rows[1]).toEqual([2, 6, null, 9]);
  });

  it("ticks the batch axis at round steps from 1 to the largest B", () => {
    expect(batchTicks(4)).toEqual([1, 2, 3, 4]);
    // 128 / 6 ≈ 21.3 → the first of 10, 20, 50, 100 at least that is 50.
    expect(batchTicks(128)).toEqual([1, 50, 100, 128]);
    // 32 / 6 ≈ 5.3 → 10.
    expect(batchTicks(32)).toEqual([1, 10, 20, 30, 32]);
  });
});

describe("planned core map", () => {
  it("gives each ⟨t, b⟩ group its entry, the budget on the first, instance numbers across the plan", () => {
    const entries = plannedCoreMap(
      [
        { count: 2, threads: 2, batch: 4, cpus: ["0-1", "2,3"] },
        { count: 1, threads: 4, batch: 8, cpus: ["4-7"] },
      ],
      [0, 1, 2, 3, 4, 5, 6, 7, 8],
    );
    expect(entries.map((e) => e.label)).toEqual(["⟨2t, b4⟩", "⟨4t, b8⟩"]);
    expect(entries[0]!.cpus).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(entries[1]!.cpus).toEqual([]);
    expect(entries[0]!.instances.map((i) => [i.id, i.cpus])).toEqual([
      [0, [0, 1]],
      [1, [2, 3]],
    ]);
    expect(entries[1]!.instances.map((i) => [i.id, i.cpus])).toEqual([[2, [4, 5, 6, 7]]]);
  });
});

describe("batching validator on the candidate", () => {
  // Packrat's optimum latency follows T(b) = 2 + 3b ms exactly, so the fit recovers F = 2, s = 3.
  const rows: TableRow[] = Array.from({ length: 16 }, (_, i) => ({
    batch: i + 1,
    latencyMs: 2 + 3 * (i + 1),
    allThreadsMs: null,
    oneThreadMs: null,
  }));

  it("fits T(b) on b ≤ B and runs every check with its numbers", () => {
    const result = validateCandidate({
      rows,
      batchSize: 8,
      timeoutMs: 5,
      slo: { deadlineMs: 100, quantile: 0.99 },
      arrivalRatePerS: 100,
    });
    if (!result.ok) throw new Error(result.error);
    // T(8) = 2 + 24 = 26 ms.
    expect(result.value.fittedAtBatchMs).toBeCloseTo(26, 9);
    const byId = Object.fromEntries(result.value.validation.checks.map((c) => [c.id, c]));
    // μ(8) = 8 / 26 ms = 307.7/s > λ = 100/s: stable, ρ = 100 / 307.69 = 0.325.
    expect(byId.stability!.status).toBe("pass");
    expect(byId.stability!.numbers.capacityPerS).toBeCloseTo(8000 / 26, 6);
    expect(byId.stability!.numbers.utilization).toBeCloseTo(100 / (8000 / 26), 6);
    // Window share: 5 ms ≤ 0.3 × 100 ms = 30 ms.
    expect(byId["window-fraction"]).toMatchObject({ status: "pass", numbers: { maxWindowMs: 30 } });
    expect(result.value.note).toContain("b = 1…8");
    expect(result.value.note).toContain("λ = 100/s");
  });

  it("fails stability when the current rate exceeds B / T(B)", () => {
    // μ(2) = 2 / 8 ms = 250/s < 400/s.
    const result = validateCandidate({
      rows,
      batchSize: 2,
      timeoutMs: 0,
      slo: { deadlineMs: 100, quantile: 0.99 },
      arrivalRatePerS: 400,
    });
    if (!result.ok) throw new Error(result.error);
    expect(result.value.validation.pass).toBe(false);
    expect(result.value.validation.checks.find((c) => c.id === "stability")!.status).toBe("fail");
  });

  it("says why it cannot run: no SLO, or fewer than two batch sizes with a plan", () => {
    expect(
      validateCandidate({
        rows,
        batchSize: 8,
        timeoutMs: 0,
        slo: { deadlineMs: null, quantile: null },
        arrivalRatePerS: 1,
      }),
    ).toMatchObject({ ok: false, error: expect.stringContaining("no latency SLO") });
    const sparse = rows.map((r) => (r.batch === 1 ? r : { ...r, latencyMs: null }));
    expect(
      validateCandidate({
        rows: sparse,
        batchSize: 8,
        timeoutMs: 0,
        slo: { deadlineMs: 50, quantile: 0.99 },
        arrivalRatePerS: 1,
      }).ok,
    ).toBe(false);
  });
});
